// One EDN form (an op map) read into plain values, without recursion, so a value nested
// thousands deep is refused by the depth bound rather than overflowing the stack. Written here
// rather than taken from a library because a history reader must refuse what it cannot read
// exactly: a map with an odd number of forms, a key given twice, a key `__proto__` (JavaScript
// turns it into the object's prototype), and it must read every valid form (a character
// literal `\"` included).
//
// Values: nil → null, keywords and symbols → strings without the colon, integers → numbers
// (with N → bigint), floats → numbers, ratios (Clojure's printer writes 1/2) → numbers, lists, vectors and sets → arrays, maps → objects whose
// keys are String(key), a tagged form #t x → {tag: 't', val: x} (#inst too), #_ drops a form.
import { MAX_VALUE_DEPTH } from './limits.ts';

/** A form that is not valid EDN (or not one a history may hold); `line` counts from the form's first line (0). */
export class EdnFormError extends Error {
  constructor(message: string, readonly line: number, readonly rule: 'edn-syntax' | 'proto-key' | 'too-deep' = 'edn-syntax') { super(message); }
}

type Frame =
  | { kind: 'coll'; close: string; items: unknown[]; what: 'map' | 'vector' | 'list' | 'set'; line: number }
  | { kind: 'tag'; tag: string }
  | { kind: 'discard' };

const CLOSE: Record<string, string> = Object.assign(Object.create(null) as Record<string, string>, { '[': ']', '(': ')', '{': '}' });
const WHAT = Object.assign(Object.create(null) as Record<string, 'vector' | 'list' | 'map'>, { '[': 'vector', '(': 'list', '{': 'map' } as const);
const NAMED_CHARS = new Map([['newline', '\n'], ['return', '\r'], ['space', ' '], ['tab', '\t'], ['formfeed', '\f'], ['backspace', '\b']]);
const STRING_ESCAPES = new Map([['t', '\t'], ['r', '\r'], ['n', '\n'], ['b', '\b'], ['f', '\f'], ['\\', '\\'], ['"', '"']]);
const INT = /^[-+]?(0|[1-9][0-9]*)$/;
const BIGINT = /^[-+]?(0|[1-9][0-9]*)N$/;
const FLOAT = /^[-+]?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?M?$/;
// A ratio as Clojure's reader takes it (its printer writes one for a non-integer division):
// a signed numerator, an unsigned denominator.
const RATIO = /^([-+]?[0-9]+)\/([0-9]+)$/;

/** Ends a token: EDN whitespace (commas too), brackets, a string or a comment. */
function delimiter(c: string): boolean {
  return c === ' ' || c === ',' || c === '\n' || c === '\t' || c === '\r' || c === '\f' || c === '\ufeff'
    || c === '[' || c === ']' || c === '(' || c === ')' || c === '{' || c === '}' || c === '"' || c === ';';
}

/** A key as the op's field name; refuses a key that would not be an own field. */
function keyText(k: unknown): string {
  return typeof k === 'string' ? k : typeof k === 'bigint' ? `${k}` : JSON.stringify(k) ?? String(k);
}

/** The one form of `text` (an op map, possibly tagged). Throws EdnFormError. */
export function parseEdnForm(text: string): unknown {
  const stack: Frame[] = [];
  let depth = -1; // open collections below the op map (its values nest from 0, as in JSON Lines)
  let line = 0;
  let result: unknown;
  let done = false;
  const fail: (msg: string, at?: number, rule?: EdnFormError['rule']) => never = (msg, at = line, rule = 'edn-syntax') => { throw new EdnFormError(msg, at, rule); };

  /** A finished value goes to the tag, discard or collection above it. */
  const emit = (v: unknown): void => {
    for (;;) {
      const top = stack[stack.length - 1];
      if (top === undefined) {
        if (done) fail('more than one form where one op map was expected');
        result = v; done = true; return;
      }
      if (top.kind === 'discard') { stack.pop(); return; }
      if (top.kind === 'tag') { stack.pop(); v = { tag: top.tag, val: v }; continue; }
      top.items.push(v); return;
    }
  };

  const closeMap = (items: unknown[], openLine: number): Record<string, unknown> => {
    if (items.length % 2 !== 0) {
      fail(`the map opened at line ${openLine + 1} of this op has an odd number of forms: ${describeKey(items[items.length - 1])} has no value`);
    }
    const out: Record<string, unknown> = {};
    const seen = new Set<string>();
    for (let i = 0; i < items.length; i += 2) {
      const key = keyText(items[i]);
      if (key === '__proto__') fail('a map key :__proto__ is refused', openLine, 'proto-key');
      if (seen.has(key)) fail(`the key :${key} appears twice in one map (readers disagree on which value counts)`, openLine);
      seen.add(key);
      out[key] = items[i + 1];
    }
    return out;
  };

  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (c === '\n') { line++; i++; continue; }
    if (c === ' ' || c === ',' || c === '\t' || c === '\r' || c === '\f' || c === '\ufeff') { i++; continue; }
    if (c === ';') { while (i < n && text[i] !== '\n') i++; continue; }
    if (c === '[' || c === '(' || c === '{') {
      if (++depth > MAX_VALUE_DEPTH) fail(`values nest more than ${MAX_VALUE_DEPTH} deep`, line, 'too-deep');
      stack.push({ kind: 'coll', close: CLOSE[c]!, items: [], what: WHAT[c]!, line });
      i++; continue;
    }
    if (c === ']' || c === ')' || c === '}') {
      const top = stack.pop();
      if (top === undefined || top.kind !== 'coll') fail(top === undefined ? `unmatched "${c}"` : `"${c}" follows a ${top.kind === 'tag' ? `tag #${top.tag}` : '#_'} with no form for it`);
      if (top.close !== c) fail(`"${c}" closes the ${top.what} opened at line ${top.line + 1} of this op; expected "${top.close}"`);
      depth--;
      i++;
      emit(top.what === 'map' ? closeMap(top.items, top.line) : top.items);
      continue;
    }
    if (c === '"') {
      let s = '';
      let j = i + 1;
      for (;;) {
        if (j >= n) fail('a string is never closed');
        const d = text[j]!;
        if (d === '"') break;
        if (d === '\n') line++;
        if (d === '\\') {
          const e = text[j + 1];
          if (e === 'u') {
            const hex = text.slice(j + 2, j + 6);
            if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail(`the string escape \\u${hex} is not four hexadecimal digits`);
            s += String.fromCharCode(parseInt(hex, 16)); j += 6; continue;
          }
          const esc = e === undefined ? undefined : STRING_ESCAPES.get(e);
          if (esc === undefined) fail(`the string escape \\${e ?? ''} is not EDN (\\t \\r \\n \\b \\f \\\\ \\" \\uXXXX)`);
          s += esc; j += 2; continue;
        }
        s += d; j++;
      }
      i = j + 1;
      emit(s);
      continue;
    }
    if (c === '\\') {
      // A character literal: the character right after the backslash is taken whatever it is (\" \; \( ...),
      // then a name may follow (\newline, \u0041).
      if (i + 1 >= n) fail('a character literal "\\" with no character');
      let j = i + 2;
      while (j < n && !delimiter(text[j]!)) j++;
      const name = text.slice(i + 1, j);
      let ch: string | undefined;
      if (name.length === 1 || (name.length === 2 && name.codePointAt(0)! > 0xffff)) ch = name;
      else if (/^u[0-9a-fA-F]{4}$/.test(name)) ch = String.fromCharCode(parseInt(name.slice(1), 16));
      else ch = NAMED_CHARS.get(name);
      if (ch === undefined) fail(`the character literal \\${name} is not EDN (one character, \\newline, \\space, \\tab, \\return, \\formfeed, \\backspace or \\uXXXX)`);
      if (ch === '\n' && name === '\n') line++;
      i = j;
      emit(ch);
      continue;
    }
    if (c === '#') {
      const d = text[i + 1];
      if (d === '_') { stack.push({ kind: 'discard' }); i += 2; continue; }
      if (d === '{') {
        if (++depth > MAX_VALUE_DEPTH) fail(`values nest more than ${MAX_VALUE_DEPTH} deep`, line, 'too-deep');
        stack.push({ kind: 'coll', close: '}', items: [], what: 'set', line });
        i += 2; continue;
      }
      let j = i + 1;
      while (j < n && !delimiter(text[j]!)) j++;
      const tag = text.slice(i + 1, j);
      if (!/^[A-Za-z]/.test(tag)) fail(`"#${tag}" is not a tag EDN reads (a tag starts with a letter: #inst, #jepsen.history.Op)`);
      stack.push({ kind: 'tag', tag });
      i = j; continue;
    }
    // A token: nil, true, false, a number, a keyword or a symbol.
    let j = i + 1;
    while (j < n && !delimiter(text[j]!)) j++;
    const tok = text.slice(i, j);
    i = j;
    if (tok === 'nil') emit(null);
    else if (tok === 'true') emit(true);
    else if (tok === 'false') emit(false);
    else if (/^[-+]?[0-9]/.test(tok)) {
      if (INT.test(tok)) emit(parseInt(tok, 10));
      else if (BIGINT.test(tok)) emit(BigInt(tok.slice(0, -1)));
      else if (FLOAT.test(tok)) emit(parseFloat(tok));
      else if (RATIO.test(tok)) emit(ratio(tok, fail));
      else fail(`"${tok}" is not an EDN number${tok.includes('/') ? ' (a ratio is two integers: 1/2, -3/4)' : ''}`);
    } else if (tok[0] === '/' && tok.length > 1) {
      // `/` alone is a symbol; a slash may only split a prefix from a name (a/b), never start one.
      fail(`"${tok}" is neither an EDN number nor a symbol${/^\/[0-9]/.test(tok) ? ' (a ratio needs a numerator: 1/2)' : ''}`);
    } else if (tok[0] === ':') {
      if (tok.length === 1) fail('a keyword ":" with no name');
      emit(tok.slice(1));
    } else emit(tok);
  }
  const top = stack[stack.length - 1];
  if (top !== undefined) {
    if (top.kind === 'coll') fail(`the ${top.what} opened at line ${top.line + 1} of this op is never closed`, top.line);
    fail(top.kind === 'tag' ? `the tag #${top.tag} has no form after it` : '#_ discards the next form, but none follows');
  }
  if (!done) fail('no form where an op map was expected');
  return result;
}

/** A ratio token's value as a number (the checker compares numbers; an exact fraction is not kept). */
function ratio(tok: string, fail: (msg: string) => never): number {
  const [, num, den] = RATIO.exec(tok)!;
  if (/^0+$/.test(den!)) fail(`the ratio "${tok}" divides by zero`);
  // Through BigInt so a numerator or denominator past 2^53 is divided as written, not rounded first.
  const n = BigInt(num!), d = BigInt(den!);
  const whole = n / d;
  const v = whole * d === n ? Number(whole) : Number(n) / Number(d);
  if (!Number.isFinite(v)) fail(`the ratio "${tok}" is beyond what a number holds (about 1.8e308)`);
  return v;
}

function describeKey(k: unknown): string {
  return typeof k === 'string' ? `the key :${k}` : `the key ${keyText(k)}`;
}
