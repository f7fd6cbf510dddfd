// Reading a big JSON Lines file on parser threads: the file is cut into segments of
// TUNING.segmentBytes, handed round-robin to the threads (./jsonl-thread.ts, which scan lines into
// numbers: ./jsonl-segment.ts), and this thread turns each segment's records back into events,
// in file order, while the threads scan the next ones (at most LOOKAHEAD segments ahead, so
// memory stays bounded whatever the file's size). Events, line numbers and errors are those of
// the one-thread reader (./jsonl.ts): the same scanner, the same JSON.parse path for the rest.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { ScannedEvent } from './jsonl-scan.ts';
import { RECORD, SCANNED, T_FALSE, T_NULL, T_NUMBER, T_STRING, T_TRUE, T_UNDEFINED, type SegmentResult } from './jsonl-segment.ts';
import { ReadLimitReached, lineTooLong, type ReadOptions } from './limits.ts';
import { notUtf8 } from './utf8.ts';

/** Files from minBytes on are read on `threads` parser threads (0: one per core, at most 4). Tests lower them. */
export const TUNING = { minBytes: 64 << 20, segmentBytes: 4 << 20, threads: 0 };
/** Segments each thread may have scanned ahead of the one being read here. */
const AHEAD_PER_THREAD = 2;

export function threadsFor(size: number): number {
  if (size < TUNING.minBytes) return 0;
  const n = TUNING.threads || Math.min(4, availableParallelism());
  // One core: the scanning would only take turns with the checking.
  return n >= 2 || TUNING.threads ? n : 0;
}

/** The parser thread: its TypeScript source under tsx (which the thread must load too), else the built .js beside this file. */
function startThread(path: string, size: number, maxLine: number): Worker {
  const self = import.meta.url;
  const ts = self.endsWith('.ts');
  const entry = new URL(`./jsonl-thread.${ts ? 'ts' : 'js'}`, self).href;
  const code = ts
    ? `const { tsImport } = await import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}); await tsImport(${JSON.stringify(entry)}, ${JSON.stringify(self)});`
    : `await import(${JSON.stringify(entry)});`;
  return new Worker(code, { eval: true, workerData: { path, size, maxLine }, stdout: false, stderr: false });
}

type Failure = { seg: number; failure: string };

/** A parser thread failed: a bug of lockpick's reader (exit 4), not a file that cannot be read. */
export class ReaderBug extends Error {
  constructor(message: string) { super(message); this.name = 'ReaderBug'; }
}

/**
 * Calls onScanned(ev, line) for each line the scanner read, onSlow(text, line) for each other
 * line, in file order; throws the reader's HistoryError for a line breaking its rules.
 */
export async function forEachLineThreaded(path: string, size: number, threads: number, maxLine: number, onScanned: (ev: ScannedEvent, line: number) => void,
  onSlow: (text: string, line: number) => void, o?: ReadOptions): Promise<void> {
  const segBytes = TUNING.segmentBytes;
  const segments = Math.ceil(size / segBytes);
  const workers: Worker[] = [];
  const tables: string[][] = [];
  const ready = new Map<number, SegmentResult>();
  let waiting: { seg: number; resolve: () => void } | undefined;
  let broken: Error | undefined;
  const wake = () => { if (waiting && (broken || ready.has(waiting.seg))) { const w = waiting; waiting = undefined; w.resolve(); } };
  try {
    for (let t = 0; t < threads; t++) {
      const w = startThread(path, size, maxLine);
      const table: string[] = [];
      tables.push(table);
      w.on('message', (r: SegmentResult | Failure) => {
        if ('failure' in r) broken ??= new ReaderBug(`parser thread: ${r.failure}`);
        else {
          for (const s of r.strings) table.push(s); // in id order: this thread's results arrive in order
          ready.set(r.seg, r);
        }
        wake();
      });
      w.on('error', (e) => { broken ??= new ReaderBug(`parser thread: ${e?.stack ?? String(e)}`); wake(); });
      w.on('exit', (code) => { if (code !== 0) broken ??= new ReaderBug(`parser thread exited with code ${code}`); wake(); });
      workers.push(w);
    }
    let issued = 0;
    let line = 0;
    const ev: ScannedEvent = { type: undefined, f: undefined, process: undefined, key: undefined, value: undefined, time: undefined, index: undefined, lease_ms: undefined, valid_ms: undefined };
    for (let seg = 0; seg < segments; seg++) {
      for (; issued < segments && issued <= seg + AHEAD_PER_THREAD * threads; issued++) {
        workers[issued % threads]!.postMessage({ seg: issued, start: issued * segBytes, end: Math.min(size, (issued + 1) * segBytes) });
      }
      const why = o?.limit?.();
      if (why !== undefined) throw new ReadLimitReached(path, why, line + 1);
      if (!ready.has(seg) && !broken) await new Promise<void>((resolve) => { waiting = { seg, resolve }; });
      if (broken) throw broken;
      const r = ready.get(seg)!;
      ready.delete(seg);
      const table = tables[seg % threads]!, texts = r.texts, rec = r.records;
      const str = (id: number): string => (id >= 0 ? table[id]! : texts[-1 - id]!);
      for (let at = 0; at < r.used; at += RECORD) {
        line++;
        if (rec[at] !== SCANNED) { onSlow(str(rec[at + 1]!), line); continue; }
        ev.type = str(rec[at + 1]!);
        ev.f = str(rec[at + 2]!);
        const p = rec[at + 3]!;
        ev.process = p === p ? p : 'nemesis';
        const k = rec[at + 4]!;
        ev.key = k === k ? str(k) : undefined; // NaN: absent
        const t = rec[at + 5]!, ix = rec[at + 8]!, lease = rec[at + 9]!, valid = rec[at + 10]!;
        ev.time = t === t ? t : undefined;
        ev.index = ix === ix ? ix : undefined;
        ev.lease_ms = lease === lease ? lease : undefined;
        ev.valid_ms = valid === valid ? valid : undefined;
        const tag = rec[at + 6]!;
        ev.value = tag === T_UNDEFINED ? undefined : tag === T_NUMBER ? rec[at + 7] : tag === T_STRING ? str(rec[at + 7]!)
          : tag === T_TRUE ? true : tag === T_FALSE ? false : tag === T_NULL ? null : JSON.parse(str(rec[at + 7]!));
        onScanned(ev, line);
      }
      // The buffer goes back to its thread to be filled again.
      workers[seg % threads]!.postMessage({ spare: rec }, [rec.buffer as ArrayBuffer]);
      if (r.error) {
        const at = line - r.lines + r.error.line;
        throw r.error.kind === 'utf8' ? notUtf8(path, at, r.error.byte) : lineTooLong(path, at, maxLine);
      }
    }
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}
