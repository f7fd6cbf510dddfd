// The slow path of the JSON Lines reader: a line the byte scanner (./jsonl-scan.ts) did not take
// whole is decoded and given to JSON.parse, so its values and every error message are JSON.parse's.
// Shared by the reader on this thread (./jsonl.ts) and the one fed by the reader thread (./jsonl-threaded.ts).
import { HistoryError } from './errors.ts';
import { keyProblemParsed } from './json-dupes.ts';
import { lineTooLong, protoKey, tooDeep } from './limits.ts';
import type { FastLine, OnLine, TakeChunk } from './jsonl-lines.ts';
import { isAscii } from 'node:buffer';
import { LineScanner } from './jsonl-scan.ts';

/** No event on this line: it is blank (or only a byte-order mark on line 1). */
export const BLANK: unique symbol = Symbol('blank line');

/** The event of one line's text, or BLANK; throws a HistoryError naming the line for anything that is not one JSON object's text. */
export function parseLine(path: string, text: string, line: number): unknown {
  // An event line starts with '{'; anything else is blank or wrong.
  if (text.charCodeAt(0) !== 123 /* { */) {
    if (line === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1); // byte-order mark
    if (text.trim() === '') return BLANK;
  }
  let ev: unknown;
  try {
    ev = JSON.parse(text);
  } catch (e) {
    throw new HistoryError(path, line, 'not-json', `each line must be one JSON object (JSON Lines); this line does not parse: ${(e as Error).message}`,
      'fix the line so it is a complete JSON object on one line (no trailing commas, double-quoted keys), or remove it');
  }
  const bad = keyProblemParsed(text, ev);
  if (bad?.rule === 'too-deep') throw tooDeep(path, line);
  if (bad?.rule === 'proto-key') throw protoKey(path, line, 'json');
  if (bad?.rule === 'duplicate-key') {
    const dup = bad.key;
    throw new HistoryError(path, line, 'duplicate-key', `the key ${JSON.stringify(dup)} appears twice in one object (JSON readers disagree on which value counts)`,
      `keep one ${JSON.stringify(dup)} in the object and remove the other`);
  }
  return ev;
}

/**
 * The line handlers of forEachLineBytes (./jsonl-lines.ts) that call onEvent(raw, line) for each
 * event: the byte scanner's fast path, else parseLine; without `scan`, parseLine for every line
 * (`take`: a chunk of ASCII text decoded once, its lines cut from the string). raw is only valid
 * during the call.
 */
export function jsonlLines(path: string, onEvent: (raw: unknown, line: number) => void, maxLine: number, scan = true): { fast?: FastLine; onLine: OnLine; take?: TakeChunk } {
  const parsed = (text: string, line: number) => {
    const ev = parseLine(path, text, line);
    if (ev !== BLANK) onEvent(ev, line);
  };
  if (!scan) {
    return {
      onLine: (buf, start, end, line) => parsed(buf.toString('utf8', start, end), line),
      take: (buf, lastNl, first) => {
        // Only where a character is a byte are the string's lengths the lines' lengths in bytes.
        if (!isAscii(buf.subarray(0, lastNl))) return -1;
        const text = buf.toString('latin1', 0, lastNl);
        let line = first;
        for (let start = 0; ; line++) {
          const nl = text.indexOf('\n', start);
          const end = nl === -1 ? lastNl : nl;
          if (end - start > maxLine) throw lineTooLong(path, line, maxLine);
          parsed(text.slice(start, end), line);
          if (nl === -1) return line - first + 1;
          start = nl + 1;
        }
      },
    };
  }
  const scanner = new LineScanner();
  return {
    // Checking the line's length after the scan is sound: the event is handed on only after it.
    fast: (buf, start, limit, line) => {
      const nl = scanner.scanLine(buf, start, limit);
      if (nl !== -1 && nl - start <= maxLine) onEvent(scanner.ev, line);
      return nl;
    },
    onLine: (buf, start, end, line) => {
      if (scanner.scan(buf, start, end)) { onEvent(scanner.ev, line); return; }
      parsed(buf.toString('utf8', start, end), line);
    },
  };
}
