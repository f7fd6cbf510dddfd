// Jepsen history.edn reader. A small scanner (strings, comments, char
// literals, bracket nesting) finds where each op map starts and ends, so it
// can report the op's line and never hold more than one chunk plus one op in
// memory; each op map itself is parsed by ./edn-form.ts. Accepts a vector [...] or
// list (...) of op maps spanning many lines, and one map per line with no
// enclosing collection (tagged maps such as #jepsen.history.Op{...} too).
import { openSource } from './source.ts';
import { EdnFormError, parseEdnForm } from './edn-form.ts';
import { HistoryBuilder } from './build.ts';
import { HistoryError } from './errors.ts';
import { countNewlines, firstInvalidUtf8, notUtf8 } from './utf8.ts';
import { ReadLimitReached, lineTooLong, maxLineBytesOf, protoKey, tooDeep, type ReadOptions } from './limits.ts';
import type { ParsedHistory } from './types.ts';

const CHUNK_BYTES = 1 << 20;
const CLOSER: Record<string, string> = { '[': ']', '(': ')', '{': '}' };

/** Turns an op map's tagged wrapper ({tag, val}) into the plain map. */
function unwrap(v: unknown): unknown {
  if (v !== null && typeof v === 'object' && 'tag' in v && 'val' in v && Object.keys(v).length === 2) return (v as { val: unknown }).val;
  return v;
}

/** chunkBytes is for tests (tiny chunks exercise op maps split across reads). */
export async function readEdn(path: string, chunkBytes = CHUNK_BYTES, o?: ReadOptions): Promise<ParsedHistory> {
  const b = new HistoryBuilder(path);
  // One op map is held as text while it is read: bounded like a line of JSON Lines.
  const maxOp = maxLineBytesOf(o);
  const syntax: (line: number, expected: string, fix: string) => never = (line, expected, fix) => {
    throw new HistoryError(path, line, 'edn-syntax', expected, fix);
  };

  // Scanner state, kept across chunks.
  const stack: { close: string; line: number }[] = [];
  let opDepth = -1;          // nesting depth at which op maps sit: 1 inside [..]/(..), 0 for one map per line
  let outerClosed = false;
  let inString = false, inComment = false, escape = false, skipNext = false;
  let line = 1;
  let segStart = -1, segLine = 0; // start (in `text`) and line of the op map being read
  // EDN `#_` discards exactly the next form. At op depth the scanner does it itself (inside an
  // op map ../edn-form.ts does): `discard` counts the forms still to drop (`#_ #_ a b` drops two).
  let discard = 0, discardLine = 0;
  let segDiscard = false;    // the form being read is dropped, not parsed
  let hashPending = false;   // a '#' at op depth: `#_`, or a tagged form such as #jepsen.history.Op{...}
  let inToken = false;       // a discarded scalar (keyword, symbol, number) at op depth
  const stray = (i: number, text: string): never => {
    const token = /^[^\s,\]\)}]*/.exec(text.slice(i, i + 40))![0] || text[i]!;
    return syntax(line, `each element of the history must be an op map {:type ... :f ... :process ...}; found "${token}"`,
      'remove the stray value or wrap it in an op map');
  };

  const fh = await openSource(path);
  try {
    const buf = Buffer.allocUnsafe(chunkBytes);
    const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
    let text = '';
    let eof = false;
    let read = 0;
    while (!eof) {
      const why = o?.limit?.();
      if (why !== undefined) throw new ReadLimitReached(path, why, line);
      const { bytesRead } = await fh.read(buf, 0, chunkBytes);
      const firstChunk = read++ === 0;
      let piece: string;
      try {
        if (bytesRead === 0) { eof = true; piece = decoder.decode(); } else piece = decoder.decode(buf.subarray(0, bytesRead), { stream: true });
      } catch {
        // The bad bytes are in this chunk (or end it): name their line.
        // Every earlier character has been scanned, so `line` is where this chunk starts.
        const bad = bytesRead === 0 ? 0 : firstInvalidUtf8(buf.subarray(0, bytesRead), !firstChunk);
        throw notUtf8(path, line + countNewlines(buf, 0, bad), bytesRead === 0 ? undefined : buf[bad]);
      }
      let i = text.length;
      text += piece;
      for (; i < text.length; i++) {
        const code = text.charCodeAt(i);
        if (inToken && (code <= 32 || code === 44 || code === 34 || code === 59 || code === 40 || code === 41 || code === 91 || code === 93 || code === 123 || code === 125)) inToken = false;
        if (code === 10 /* \n */) { line++; inComment = false; skipNext = false; continue; }
        if (inComment || inToken) continue;
        if (inString) {
          if (escape) escape = false;
          else if (code === 92 /* \\ */) escape = true;
          else if (code === 34 /* " */) inString = false;
          continue;
        }
        if (skipNext) { skipNext = false; continue; }
        if (hashPending) {
          hashPending = false;
          if (code === 95 /* _ */) { segStart = -1; discard++; discardLine = line; continue; }
          // A tagged form or a set: read on as one form.
          if (discard > 0) { discard--; segDiscard = true; }
        }
        if (code === 32 || code === 44 || code === 9 || code === 13 || code === 0xfeff) continue; // EDN whitespace, commas included (and a byte-order mark)
        const c = text[i]!;
        if (c === ';') { inComment = true; continue; }
        const structural = c === '[' || c === ']' || c === '(' || c === ')' || c === '{' || c === '}';
        const depth = stack.length;
        const atTop = segStart === -1 && (depth === opDepth || opDepth === -1);
        if (c === '"') {
          if (atTop && opDepth !== -1) {
            if (discard === 0) stray(i, text);
            discard--;
          }
          inString = true;
          continue;
        }
        if (c === '\\') { // char literal such as \{ or \"
          if (atTop && opDepth !== -1 && discard > 0) discard--;
          skipNext = true;
          continue;
        }
        // Inside an op map only brackets matter; edn-form.ts reads the rest.
        if (!structural && !atTop) continue;
        if (opDepth === -1) {
          // First form of the file: the enclosing collection, or the first op map.
          opDepth = c === '[' || c === '(' ? 1 : 0;
        }
        if (depth === opDepth && segStart === -1) {
          const closesOuter = opDepth === 1 && (c === ']' || c === ')');
          if (outerClosed) syntax(line, 'nothing may follow the closing bracket of the history collection', 'remove what follows, or put every op map inside the one vector');
          if (c === '#') { segStart = i; segLine = line; hashPending = true; continue; }
          if (closesOuter) {
            if (discard > 0) syntax(discardLine, '#_ discards the next form, but none follows before the end of the collection', 'remove the #_');
          } else if (discard > 0) {
            discard--;
            if (!structural) { inToken = true; continue; }
            segDiscard = true; segStart = i; segLine = line;
          } else if (c === '{') { segStart = i; segLine = line; }
          else stray(i, text);
          if (!structural) continue;
        }
        if (c === '[' || c === '(' || c === '{') { stack.push({ close: CLOSER[c]!, line }); continue; }
        if (c === ']' || c === ')' || c === '}') {
          const top = stack.pop();
          if (top === undefined) syntax(line, `unmatched "${c}"`, 'remove it or add the matching opening bracket');
          if (top.close !== c) syntax(line, `"${c}" closes the "${top.close === '}' ? '{' : top.close === ']' ? '[' : '('}" opened at line ${top.line}; expected "${top.close}"`, 'balance the brackets of this op map');
          if (stack.length === opDepth && segStart !== -1) {
            const seg = text.slice(segStart, i + 1);
            segStart = -1;
            if (segDiscard) { segDiscard = false; continue; } // dropped by #_: not an op
            let v: unknown;
            try { v = parseEdnForm(seg); } catch (e) {
              if (!(e instanceof EdnFormError)) throw e;
              if (e.rule === 'too-deep') throw tooDeep(path, segLine + e.line);
              if (e.rule === 'proto-key') throw protoKey(path, segLine + e.line, 'edn');
              syntax(segLine + e.line, `this op map is not valid EDN: ${e.message}`, 'fix the op map (balanced brackets, closed strings, a value for every key)');
            }
            const op = unwrap(v);
            b.add(op, segLine);
          } else if (stack.length === 0 && opDepth === 1) {
            outerClosed = true;
          }
        }
      }
      // Keep only the op map still being read for the next chunk.
      if (segStart === -1) text = '';
      else { text = text.slice(segStart); segStart = 0; }
      if (text.length > maxOp) throw lineTooLong(path, segLine, maxOp, 'op map');
    }
  } finally {
    await fh.close();
  }
  if (inString) syntax(segLine || line, 'a string is never closed', 'add the closing double quote');
  if (segStart !== -1) syntax(segLine, 'this op map is never closed', 'add the closing "}"');
  if (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    syntax(top.line, `the collection opened here is never closed (expected "${top.close}" by the end of the file)`, `add the closing "${top.close}" at the end of the file`);
  }
  if (discard > 0) syntax(discardLine, '#_ discards the next form, but none follows before the end of the file', 'remove the #_');
  return b.finish();
}
