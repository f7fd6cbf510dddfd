// A parser thread (node:worker_threads) of ./jsonl-threads.ts: scans the segments it is sent, in
// order, and posts each back (its numbers transferred, not copied).
import { openSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { SegmentScanner } from './jsonl-segment.ts';

const { path, size, maxLine } = workerData as { path: string; size: number; maxLine: number };
const scanner = new SegmentScanner(openSync(path, 'r'), size, maxLine);
parentPort!.on('message', (m: { seg: number; start: number; end: number } | { spare: Float64Array }) => {
  if ('spare' in m) { scanner.spares.push(m.spare); return; }
  try {
    const r = scanner.scan(m.seg, m.start, m.end);
    parentPort!.postMessage(r, [r.records.buffer as ArrayBuffer]);
  } catch (e) {
    parentPort!.postMessage({ seg: m.seg, failure: (e as Error)?.stack ?? String(e) });
  }
});
