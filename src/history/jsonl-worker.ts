// The reader thread: reads, splits, checks (UTF-8, line length) and scans a JSON Lines file as
// ./jsonl.ts does on one thread, and hands the events on in shared batches (./jsonl-batch.ts);
// lines the scanner does not take whole go as text, for JSON.parse on the checking thread; a
// piece of a chunk goes as bytes when the checking thread is about to run out of messages.
import { parentPort, workerData } from 'node:worker_threads';
import { HistoryError } from './errors.ts';
import { forEachLineBytes, type OnLine, type TakeChunk } from './jsonl-lines.ts';
import { countNewlines } from './utf8.ts';
import { LineScanner, WORD_ROOM } from './jsonl-scan.ts';
import { lineTooLong, maxLineBytesOf } from './limits.ts';
import { ABORTED, BATCH_LINES, CONSUMED, SLOTS, SLOW_LINE, STRIDE, slotBase, type FromReader, type WorkerInput } from './jsonl-batch.ts';

const input = workerData as WorkerInput;
const port = parentPort!;
const tags = new Uint8Array(input.shared.tags);
const nums = new Float64Array(input.shared.nums);
const ctl = new Int32Array(input.shared.ctl);
const maxLine = maxLineBytesOf({ maxLineBytes: input.maxLineBytes });
const scanner = new LineScanner({ tags, nums });
const post = (m: FromReader) => port.postMessage(m);

let posted = 0;     // messages posted (batches and raw chunks)
const slotItem = new Array<number>(SLOTS).fill(-1); // the message number of the batch last in each slot
let n = 0;          // the current batch's number
let count = -1;     // lines in it; -1: not started
let at = 0;         // where its next line goes in the slot arrays
let texts: string[] = [];
let first = 1;      // its first line's number

/** Starts batch n at `line` once its slot is free (the checking thread took the batch that was in it). */
function begin(line: number): void {
  const last = slotItem[n % SLOTS]!;
  for (;;) {
    const consumed = Atomics.load(ctl, CONSUMED);
    if (Atomics.load(ctl, ABORTED)) throw new Error('aborted');
    if (consumed > last) break;
    Atomics.wait(ctl, CONSUMED, consumed);
  }
  scanner.newBatch();
  texts = [];
  count = 0; at = slotBase(n); scanner.at = at;
  first = line;
}

function flush(): void {
  if (count <= 0) return;
  post({ kind: 'batch', n, count, firstLine: first, strs: scanner.strs, nested: scanner.batchNested, texts });
  slotItem[n % SLOTS] = posted++;
  n++; count = -1;
}

/** The line just scanned or sent as text is the batch's next. */
function next(): void {
  at += STRIDE;
  scanner.at = at;
  if (++count === BATCH_LINES) flush();
}

/**
 * eachLine (./jsonl-lines.ts) of buf[start, lastNl], lines numbered from line + 1, with the scan
 * written in: the loop every line of a large file goes through (a call less per line). Returns
 * the last line's number.
 */
function scanLines(buf: Buffer, start: number, lastNl: number, line: number): number {
  while (start <= lastNl) {
    if (count < 0) begin(line + 1);
    // A line the scanner takes finds its own end: no search for it first.
    let nl = scanner.scanLine(buf, start, lastNl);
    if (nl === -1) {
      nl = buf.indexOf(10, start);
      if (nl - start > maxLine) throw lineTooLong(input.path, line + 1, maxLine);
      onLine(buf, start, nl, ++line);
    } else {
      if (nl - start > maxLine) throw lineTooLong(input.path, line + 1, maxLine);
      ++line;
      next();
    }
    start = nl + 1;
  }
  return line;
}

/** Lines the scanner does not take whole go as text, for JSON.parse on the checking thread. */
const onLine: OnLine = (buf, start, end, line) => {
  if (count < 0) begin(line);
  if (scanner.scan(buf, start, end)) { next(); return; }
  nums[at] = SLOW_LINE;
  texts.push(buf.toString('utf8', start, end));
  next();
};

/**
 * A chunk is gone through in pieces of about this many bytes: before each, a checking thread that
 * has at most AHEAD messages left to take is handed the piece as bytes to scan itself. With none
 * left it would wait for the piece (most of a piece's scan, a tenth of its time in all); with one
 * left, the piece is there when it is done.
 */
const PIECE_BYTES = 1 << 18;
const AHEAD = 1;

const take: TakeChunk = (buf, lastNl, line) => {
  if (!input.share) return scanLines(buf, 0, lastNl, line - 1) - line + 1;
  let first = line; // the number of the piece's first line
  for (let start = 0; start <= lastNl;) {
    const end = lastNl - start > PIECE_BYTES ? buf.indexOf(10, start + PIECE_BYTES) : lastNl;
    if (Atomics.load(ctl, CONSUMED) >= posted - AHEAD) {
      flush();
      const bytes = new Uint8Array(new ArrayBuffer(end - start + 1 + WORD_ROOM), 0, end - start + 1); // room for the scanner's word reads
      bytes.set(buf.subarray(start, end + 1));
      port.postMessage({ kind: 'raw', bytes, firstLine: first } satisfies FromReader, [bytes.buffer]);
      posted++;
      first += countNewlines(buf, start, end + 1);
    } else first = scanLines(buf, start, end, first - 1) + 1;
    start = end + 1;
  }
  return first - line;
};

try {
  await forEachLineBytes(input.path, onLine, input.chunkBytes, { maxLineBytes: input.maxLineBytes }, undefined, take);
  flush();
  post({ kind: 'end' });
} catch (e) {
  if (!Atomics.load(ctl, ABORTED)) {
    flush(); // the lines before the failure are handed on first, as on one thread
    const err = e as NodeJS.ErrnoException;
    if (e instanceof HistoryError) post({ kind: 'error', message: e.message, history: { file: e.file, line: e.line, rule: e.rule, expected: e.expected, fix: e.fix } });
    else post({ kind: 'error', message: err?.message ?? String(e), code: typeof err?.code === 'string' ? err.code : undefined, stack: err?.stack });
  }
}
