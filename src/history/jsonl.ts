// JSON Lines reader: reads the file in fixed-size chunks and splits lines itself, so a history of
// millions of events never sits in memory as one text. Lines are scanned as bytes
// (./jsonl-scan.ts) and only unusual ones are decoded and given to JSON.parse.
import { openSource } from './source.ts';
import { isUtf8 } from 'node:buffer';
import { HistoryBuilder } from './build.ts';
import { LineScanner } from './jsonl-scan.ts';
import { BLANK, parseLine } from './jsonl-line.ts';
import { forEachJsonlEventThreaded, readsOnThread } from './jsonl-threaded.ts';
import { ReadLimitReached, lineTooLong, maxLineBytesOf, type ReadOptions } from './limits.ts';
import type { ParsedHistory } from './types.ts';
import { countNewlines, firstInvalidUtf8, notUtf8 } from './utf8.ts';

const CHUNK_BYTES = 1 << 22;

/**
 * Takes the line at buf[start] whole (reading it, finding its end) and returns the position of its
 * '\n', or -1 to leave it to onLine. buf[limit] is a '\n'; the line number is `line`.
 */
export type FastLine = (buf: Buffer, start: number, limit: number, line: number) => number;

/**
 * Calls onLine(buf, start, end, lineNumber) for each line of the file (bytes [start, end) of buf,
 * without '\n'), in order; buf is only valid during the call. Each chunk is cut after its last
 * '\n' and the tail carried over. Decoding is strict: before any line of a chunk is handed on,
 * the chunk's whole lines are checked to be UTF-8, and invalid bytes throw a HistoryError naming
 * their line. A line longer than o.maxLineBytes throws a HistoryError naming it (the buffer grows
 * at most to that), and o.limit is asked before each read (ReadLimitReached).
 */
export async function forEachLineBytes(path: string, onLine: (buf: Buffer, start: number, end: number, line: number) => void, chunkBytes = CHUNK_BYTES, o?: ReadOptions,
  fast?: FastLine): Promise<void> {
  const maxLine = maxLineBytesOf(o);
  const fh = await openSource(path);
  let line = 0;
  const read = (into: Buffer, at: number): Promise<{ bytesRead: number }> => {
    const why = o?.limit?.();
    if (why !== undefined) return Promise.reject(new ReadLimitReached(path, why, line + 1));
    return fh.read(into, at, into.length - at);
  };
  const validate = (buf: Buffer, end: number): void => {
    if (isUtf8(buf.subarray(0, end))) return;
    const bad = firstInvalidUtf8(buf.subarray(0, end), false);
    throw notUtf8(path, line + 1 + countNewlines(buf, 0, bad), bad < end ? buf[bad] : undefined);
  };
  // Two buffers: the next chunk is read into one while the lines of the other are handed on.
  let buf = Buffer.allocUnsafe(chunkBytes);
  let spare = Buffer.allocUnsafe(chunkBytes);
  let carry = 0; // bytes of an unfinished line at the start of buf
  let pending: Promise<{ bytesRead: number }> | undefined = read(buf, 0);
  try {
    for (;;) {
      const { bytesRead }: { bytesRead: number } = await pending!;
      pending = undefined;
      const end: number = carry + bytesRead;
      if (bytesRead === 0) {
        if (end > maxLine) throw lineTooLong(path, line + 1, maxLine);
        if (end > 0) { validate(buf, end); onLine(buf, 0, end, ++line); }
        break;
      }
      const lastNl = buf.lastIndexOf(10, end - 1);
      if (lastNl < carry) {
        carry = end;
        if (carry > maxLine) throw lineTooLong(path, line + 1, maxLine);
        if (carry === buf.length) { // a line longer than the buffer: grow both, up to one byte past the limit
          const bigger = Buffer.allocUnsafe(Math.min(buf.length * 2, maxLine + 1));
          buf.copy(bigger, 0, 0, carry);
          buf = bigger;
          spare = Buffer.allocUnsafe(buf.length);
        }
        pending = read(buf, carry);
        continue;
      }
      const tail: number = end - lastNl - 1;
      buf.copy(spare, 0, lastNl + 1, end);
      if (tail > maxLine) throw lineTooLong(path, line + 1 + countNewlines(buf, 0, lastNl + 1), maxLine);
      pending = read(spare, tail);
      validate(buf, lastNl);
      let start = 0;
      while (start <= lastNl) {
        // A line the fast reader takes finds its own end: no search for it first.
        let nl = fast ? fast(buf, start, lastNl, line + 1) : -1;
        if (nl === -1) {
          nl = buf.indexOf(10, start);
          if (nl - start > maxLine) throw lineTooLong(path, line + 1, maxLine);
          onLine(buf, start, nl, ++line);
        } else {
          if (nl - start > maxLine) throw lineTooLong(path, line + 1, maxLine);
          ++line;
        }
        start = nl + 1;
      }
      [buf, spare] = [spare, buf];
      carry = tail;
    }
  } finally {
    await pending?.catch(() => undefined); // a read still under way when a line was rejected
    await fh.close();
  }
}

/** Calls onLine(text, lineNumber) for each line of the file (without '\n'), in order; strict UTF-8 as forEachLineBytes. */
export async function forEachLine(path: string, onLine: (text: string, line: number) => void, chunkBytes = CHUNK_BYTES, o?: ReadOptions): Promise<void> {
  await forEachLineBytes(path, (buf, start, end, line) => onLine(buf.toString('utf8', start, end), line), chunkBytes, o);
}

/**
 * Calls onEvent(raw, line) for each event line of a JSON Lines file (blank lines skipped); raw is
 * only valid during the call. Throws HistoryError for a line that is not JSON.
 */
export async function forEachJsonlEvent(path: string, onEvent: (raw: unknown, line: number) => void, chunkBytes = CHUNK_BYTES, o?: ReadOptions): Promise<void> {
  if (await readsOnThread(path)) return forEachJsonlEventThreaded(path, onEvent, chunkBytes, o);
  const scanner = new LineScanner();
  // Checking the line's length after the scan is sound: the event is handed on only after it.
  const maxLine = maxLineBytesOf(o);
  const fast: FastLine = (buf, start, limit, line) => {
    const nl = scanner.scanLine(buf, start, limit);
    if (nl !== -1 && nl - start <= maxLine) onEvent(scanner.ev, line);
    return nl;
  };
  await forEachLineBytes(path, (buf, start, end, line) => {
    if (scanner.scan(buf, start, end)) { onEvent(scanner.ev, line); return; }
    const ev = parseLine(path, buf.toString('utf8', start, end), line);
    if (ev !== BLANK) onEvent(ev, line);
  }, chunkBytes, o, fast);
}

/** chunkBytes is for tests (tiny chunks exercise lines split across reads). */
export async function readJsonl(path: string, chunkBytes = CHUNK_BYTES, o?: ReadOptions): Promise<ParsedHistory> {
  const b = new HistoryBuilder(path);
  await forEachJsonlEvent(path, (ev, line) => b.add(ev, line), chunkBytes, o);
  return b.finish();
}
