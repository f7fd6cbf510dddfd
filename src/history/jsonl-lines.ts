// Lines of a file as bytes: read in fixed-size chunks and split here, so a history of millions of
// events never sits in memory as one text; strict UTF-8 and bounded lines (./limits.ts).
import { isUtf8 } from 'node:buffer';
import { openSource } from './source.ts';
import { ReadLimitReached, lineTooLong, maxLineBytesOf, type ReadOptions } from './limits.ts';
import { countNewlines, firstInvalidUtf8, notUtf8 } from './utf8.ts';
import { bufferWithRoom } from './jsonl-scan.ts';

export const CHUNK_BYTES = 1 << 22;

/**
 * The largest read of the scanner on one thread (a file below the reader thread's size): a buffer
 * that stays in the CPU's cache between the read and the scan. 4 MB buffers cost a 17 MB file
 * about a tenth more CPU (each new buffer's pages faulted in, the bytes fetched from memory again
 * after the copy); the reader thread keeps CHUNK_BYTES, whose fewer, larger pieces it shares
 * with the checking thread (docs/benchmarks.md, "Checker throughput").
 */
export const SCAN_CHUNK_BYTES = 1 << 17;

/**
 * The first read's size: the buffers double with each read that fills them, up to the chunk size.
 * Most histories are small (a directory of run histories, Jepsen's): two 4 MB buffers a file
 * would be most of the work of checking it, in allocation and garbage collection.
 */
export const FIRST_CHUNK_BYTES = 1 << 16;

/**
 * Takes the line at buf[start] whole (reading it, finding its end) and returns the position of its
 * '\n', or -1 to leave it to onLine. buf[limit] is a '\n'; the line number is `line`.
 */
export type FastLine = (buf: Buffer, start: number, limit: number, line: number) => number;

export type OnLine = (buf: Buffer, start: number, end: number, line: number) => void;

/**
 * Takes a chunk's whole lines buf[0, lastNl] (checked UTF-8; buf[lastNl] is a '\n', the first line
 * numbered `line`) elsewhere, returning how many lines it holds, or -1 to have them handed on here.
 */
export type TakeChunk = (buf: Buffer, lastNl: number, line: number) => number;

/**
 * Hands on the lines of buf[start, lastNl] (buf[lastNl] is a '\n'), numbered from line + 1, to
 * fast or else onLine, each checked against maxLine; returns the number of the last.
 */
export function eachLine(path: string, buf: Buffer, start: number, lastNl: number, line: number, maxLine: number, onLine: OnLine, fast?: FastLine): number {
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
  return line;
}

/**
 * Calls onLine(buf, start, end, lineNumber) for each line of the file (bytes [start, end) of buf,
 * without '\n'), in order; buf is only valid during the call. Each chunk is cut after its last
 * '\n' and the tail carried over. Decoding is strict: before any line of a chunk is handed on,
 * the chunk's whole lines are checked to be UTF-8, and invalid bytes throw a HistoryError naming
 * their line. A line longer than o.maxLineBytes throws a HistoryError naming it (the buffer grows
 * at most to that), and o.limit is asked before each read (ReadLimitReached).
 */
export async function forEachLineBytes(path: string, onLine: OnLine, chunkBytes = CHUNK_BYTES, o?: ReadOptions,
  fast?: FastLine, take?: TakeChunk): Promise<void> {
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
  // With room after their bytes for the byte scanner's word reads (./jsonl-scan.ts).
  // A small file known whole: a buffer just big enough (a directory of them allocates little).
  let buf = bufferWithRoom(Math.min(chunkBytes, FIRST_CHUNK_BYTES, fh.size !== undefined ? Math.max(fh.size + 1, 256) : Infinity));
  let spare = bufferWithRoom(buf.length);
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
          const bigger = bufferWithRoom(Math.min(buf.length * 2, maxLine + 1));
          buf.copy(bigger, 0, 0, carry);
          buf = bigger;
          spare = bufferWithRoom(buf.length);
        }
        pending = read(buf, carry);
        continue;
      }
      const tail: number = end - lastNl - 1;
      // A read that filled the buffer: the file goes on, so the next reads are larger (never
      // smaller than this buffer, which may hold a long line's tail).
      const next = end === buf.length && buf.length < chunkBytes ? Math.min(buf.length * 2, chunkBytes) : buf.length;
      if (spare.length < next) spare = bufferWithRoom(next);
      buf.copy(spare, 0, lastNl + 1, end);
      if (tail > maxLine) throw lineTooLong(path, line + 1 + countNewlines(buf, 0, lastNl + 1), maxLine);
      pending = read(spare, tail);
      validate(buf, lastNl);
      const taken = take ? take(buf, lastNl, line + 1) : -1;
      line = taken >= 0 ? line + taken : eachLine(path, buf, 0, lastNl, line, maxLine, onLine, fast);
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
