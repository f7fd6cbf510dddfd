// A large JSON Lines file is read and scanned on a second thread (./jsonl-worker.ts) while this
// one builds and checks the events: the scan is most of a check's time, and a machine has two
// cores or more. When this thread waits, it is handed chunks to scan itself (./jsonl-batch.ts). Same events, lines and errors as the reader on one thread (./jsonl.ts); a small
// file, a pipe or a FIFO is read here (a thread takes ~30 ms to start).
import { startThread } from '../thread.ts';
import type { HistoryBuilder } from './build.ts';
import { HistoryError, ReaderBug } from './errors.ts';
import { ABORTED, CONSUMED, FALSE, NULL, NUM, SLOW_LINE, STR, STRIDE, TRUE, sharedBatches, slotBase, type Batch, type FromReader, type RawLines, type ReadFailure, type WorkerInput } from './jsonl-batch.ts';
import { BLANK, jsonlLines, parseLine } from './jsonl-line.ts';
import { eachLine } from './jsonl-lines.ts';
import { ReadLimitReached, maxLineBytesOf, type ReadOptions } from './limits.ts';
import { READ_THREAD } from './reader-choice.ts';

export { READ_THREAD } from './reader-choice.ts';

/** The error a failure of the reader thread stands for. */
function failure(m: ReadFailure): Error {
  if (m.history) return new HistoryError(m.history.file, m.history.line, m.history.rule, m.history.expected, m.history.fix);
  if (m.code !== undefined) return Object.assign(new Error(m.message), { code: m.code });
  return new ReaderBug(m.message, m.stack);
}

/** What takes an event as its fields (HistoryBuilder): addFields in FIELDS order (./jsonl-batch.ts), undefined when missing; addCommon for most events. */
export type FieldSink = Pick<HistoryBuilder, 'addFields' | 'addCommon'>;

/** The fields addCommon takes (bits of a line's mask): type, f, process, key, value, time. */
const COMMON = 0b1111110;
/** type, f and process. */
const TYPE_F_PROCESS = 0b1110;

/**
 * Field f of the line at k of a batch (m: the line's mask), undefined when the line lacks it. A
 * plain function of its arguments, small enough to be inlined where it is called ten times per
 * event (a closure over the batch was a third of this thread's time).
 */
function val(m: number, f: number, tags: Uint8Array, nums: Float64Array, line: number, strs: readonly string[], nested: readonly unknown[]): unknown {
  if ((m & (1 << f)) === 0) return undefined; // most fields of most events
  const k = line + f;
  const t = tags[k];
  if (t === STR) return strs[nums[k]!];
  if (t === NUM) return nums[k];
  return t === TRUE ? true : t === FALSE ? false : t === NULL ? null : nested[nums[k]!];
}

/**
 * Each batch's strings arrive as new copies: "ok" from one batch and the builder's 'ok' (or the
 * open op's f from an earlier batch) were compared character by character, 20M times. The copies
 * are swapped for one string per value, the source's literals for the words the builder compares with.
 */
const WORDS = ['invoke', 'ok', 'fail', 'info', 'acquire', 'release', 'renew', 'nemesis'];
const CANONICAL_MAX = 4096; // a file of unique strings keeps its copies: memory stays bounded
function canonicalStrings(): (s: string) => string {
  const known = new Map<string, string>(WORDS.map((w) => [w, w]));
  return (s) => {
    const c = known.get(s);
    if (c !== undefined) return c;
    if (known.size < CANONICAL_MAX) known.set(s, s);
    return s;
  };
}

/**
 * As forEachJsonlEvent (./jsonl.ts), the file read and scanned on a second thread; `fields`, when
 * given, takes the events of the batches (no object made for them). The thread starts reading at
 * once; nothing it read is taken before `go` says yes; on no it is stopped, and this returns false.
 */
export async function forEachJsonlEventThreaded(path: string, onEvent: (raw: unknown, line: number) => void, chunkBytes?: number, o?: ReadOptions, fields?: FieldSink,
  go: Promise<boolean> = Promise.resolve(true)): Promise<boolean> {
  const shared = sharedBatches();
  const canonical = canonicalStrings();
  const tags = new Uint8Array(shared.tags);
  const nums = new Float64Array(shared.nums);
  const ctl = new Int32Array(shared.ctl);
  const ev = { type: undefined as unknown, f: undefined as unknown, process: undefined as unknown, key: undefined as unknown, value: undefined as unknown,
    time: undefined as unknown, index: undefined as unknown, lease_ms: undefined as unknown, valid_ms: undefined as unknown, sent_ms: undefined as unknown,
    mode: undefined as unknown, permits: undefined as unknown, limit: undefined as unknown };

  const take = (b: Batch): void => {
    const why = o?.limit?.();
    if (why !== undefined) throw new ReadLimitReached(path, why, b.firstLine);
    const { nested, texts } = b;
    const strs = b.strs;
    for (let i = 0; i < strs.length; i++) strs[i] = canonical(strs[i]!);
    let k = slotBase(b.n), t = 0;
    for (let i = 0; i < b.count; i++, k += STRIDE) {
      const line = b.firstLine + i;
      const m = nums[k]!;
      if (m === SLOW_LINE) {
        const e = parseLine(path, texts[t++]!, line);
        if (e !== BLANK) onEvent(e, line);
        continue;
      }
      // Fields are numbered from 1 in FIELDS order (./jsonl-batch.ts).
      if (fields && (m & ~COMMON) === 0 && (m & TYPE_F_PROCESS) === TYPE_F_PROCESS && tags[k + 1] === STR && tags[k + 2] === STR && tags[k + 3] === NUM) {
        fields.addCommon(strs[nums[k + 1]!]!, strs[nums[k + 2]!]!, nums[k + 3]!, val(m, 4, tags, nums, k, strs, nested), val(m, 5, tags, nums, k, strs, nested), val(m, 6, tags, nums, k, strs, nested), line);
      } else if (fields) fields.addFields(val(m, 1, tags, nums, k, strs, nested), val(m, 2, tags, nums, k, strs, nested), val(m, 3, tags, nums, k, strs, nested), val(m, 4, tags, nums, k, strs, nested),
        val(m, 5, tags, nums, k, strs, nested), val(m, 6, tags, nums, k, strs, nested), val(m, 7, tags, nums, k, strs, nested), val(m, 8, tags, nums, k, strs, nested),
        val(m, 9, tags, nums, k, strs, nested), line, val(m, 10, tags, nums, k, strs, nested), val(m, 11, tags, nums, k, strs, nested), val(m, 12, tags, nums, k, strs, nested),
        val(m, 13, tags, nums, k, strs, nested));
      else {
        ev.type = val(m, 1, tags, nums, k, strs, nested); ev.f = val(m, 2, tags, nums, k, strs, nested); ev.process = val(m, 3, tags, nums, k, strs, nested);
        ev.key = val(m, 4, tags, nums, k, strs, nested); ev.value = val(m, 5, tags, nums, k, strs, nested); ev.time = val(m, 6, tags, nums, k, strs, nested);
        ev.index = val(m, 7, tags, nums, k, strs, nested); ev.lease_ms = val(m, 8, tags, nums, k, strs, nested); ev.valid_ms = val(m, 9, tags, nums, k, strs, nested);
        ev.sent_ms = val(m, 10, tags, nums, k, strs, nested); ev.mode = val(m, 11, tags, nums, k, strs, nested);
        ev.permits = val(m, 12, tags, nums, k, strs, nested); ev.limit = val(m, 13, tags, nums, k, strs, nested);
        onEvent(ev, line);
      }
    }
    taken();
  };
  const taken = () => { Atomics.add(ctl, CONSUMED, 1); Atomics.notify(ctl, CONSUMED); };
  const maxLine = maxLineBytesOf(o);
  const { fast, onLine } = jsonlLines(path, onEvent, maxLine);
  const scan = (r: RawLines): void => {
    const why = o?.limit?.();
    if (why !== undefined) throw new ReadLimitReached(path, why, r.firstLine);
    const buf = Buffer.from(r.bytes.buffer, r.bytes.byteOffset, r.bytes.length);
    eachLine(path, buf, 0, buf.length - 1, r.firstLine - 1, maxLine, onLine, fast);
    taken();
  };

  const worker = startThread('jsonl-worker', import.meta.url, { path, chunkBytes, maxLineBytes: o?.maxLineBytes, shared, share: READ_THREAD.share } satisfies WorkerInput,
    // It keeps little on its heap (a batch's strings): a small young generation keeps the process's memory down.
    { maxYoungGenerationSizeMb: 4 });
  let settled = false, ended = false;
  const exited = new Promise<number>((resolve) => worker.once('exit', resolve));
  const stop = async () => {
    // Wakes a reader waiting for a slot; it stops at once.
    Atomics.store(ctl, ABORTED, 1);
    Atomics.notify(ctl, CONSUMED);
    await worker.terminate();
  };
  // The thread reads from its start, while `go` is decided: what it sends meanwhile waits here
  // (a few batches at most: it waits for a free slot), and is dropped on a no.
  const early: FromReader[] = [];
  let onMessage: ((m: FromReader) => void) | undefined, onError: ((e: Error) => void) | undefined, earlyError: Error | undefined;
  worker.on('message', (m: FromReader) => { if (onMessage) onMessage(m); else early.push(m); });
  worker.on('error', (e) => { const bug = new ReaderBug(e.message, e.stack); if (onError) onError(bug); else earlyError ??= bug; });
  let yes: boolean;
  try { yes = await go; } catch (e) { await stop(); throw e; }
  if (!yes) { await stop(); return false; }
  try {
    await new Promise<void>((resolve, reject) => {
      const settle = (e?: unknown) => {
        if (settled) return;
        settled = true;
        if (e === undefined) resolve(); else reject(e);
      };
      onMessage = (m) => {
        if (settled) return;
        try {
          if (m.kind === 'batch') take(m);
          else if (m.kind === 'raw') scan(m);
          else if (m.kind === 'end') { ended = true; settle(); }
          else settle(failure(m));
        } catch (e) { settle(e); }
      };
      for (const m of early.splice(0)) onMessage(m);
      if (earlyError) settle(earlyError);
      onError = settle;
      void exited.then((code) => settle(new ReaderBug(`the reader thread stopped (exit code ${code}) before the end of ${path}`)));
    });
  } finally {
    if (ended) await exited; // it has read everything and closed the file: it ends by itself
    else await stop();
  }
  return true;
}
