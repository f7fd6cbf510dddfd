// checkHistory with the keys shared out between this thread and a second one: each takes the
// next key (largest first) from a shared counter until none is left, so a slow key does not hold
// up the others. Only where it pays: keys decided by the search (a sweep takes microseconds per
// op), several of them, enough ops for a thread's start (~30 ms) to be small beside the check,
// and one of lockpick's own models (a user's model lives only in this thread). Same result as
// checkHistory: the verdicts are put back in partition order.
import type { Op, ParsedHistory } from '../src/history/types.ts';
import { startThread } from '../src/thread.ts';
import { keyVerdict, prepareCheck, summarize, type KeyVerdict } from './index.ts';
import { BUILTIN_MODELS } from './models/index.ts';
import { SWEEPS } from './sweep.ts';
import type { Backend, CheckOptions, CheckResult } from './types.ts';

/** Histories with at least this many ops (and two keys) have their keys checked on two threads; tests set 0 (LOCKPICK_KEY_THREADS_MIN_OPS=Infinity: never). */
export const KEY_THREADS = {
  minOps: Number(process.env.LOCKPICK_KEY_THREADS_MIN_OPS ?? 10_000),
  /** Whether this thread takes keys too (false: tests of the second thread alone). */
  here: true,
  /** How many keys the second thread decided in the last check that started it (for tests). */
  decidedThere: 0,
};

export interface KeysInput { model: string; backend: Backend | undefined; limits: [number | undefined, number | undefined, number]; parts: [string, Op[]][]; next: SharedArrayBuffer }
export type FromKeys = { kind: 'verdict'; i: number; verdict: KeyVerdict } | { kind: 'done' } | { kind: 'error'; message: string; stack?: string };

export async function checkHistoryOnThreads(h: ParsedHistory, o: CheckOptions): Promise<CheckResult> {
  const c = prepareCheck(h, o);
  if ('valid' in c) return c;
  const { model, parts, budget, backend, started } = c;
  KEY_THREADS.decidedThere = 0;
  if (parts.size < 2 || h.ops.length < KEY_THREADS.minOps || SWEEPS.has(model) || !BUILTIN_MODELS.has(model)) {
    return summarize(model.name, h.ops.length, started, [...parts].map(([key, ops]) => [key, ops.length, keyVerdict(model, key, ops, budget, backend)]));
  }
  const order = [...parts].sort((a, b) => b[1].length - a[1].length);
  const next = new SharedArrayBuffer(4);
  const counter = new Int32Array(next);
  const verdicts = new Map<number, KeyVerdict>();
  const here = new Set<number>();
  const worker = startThread('keys-worker', import.meta.url, { model: model.name, backend, limits: budget.limits, parts: order, next } satisfies KeysInput);
  // A thread that failed (to start, or on a key) leaves its keys to this one (below): a bug in
  // the check then shows here, as it would without threads.
  const finished = new Promise<void>((resolve) => {
    worker.on('message', (m: FromKeys) => {
      if (m.kind === 'verdict') verdicts.set(m.i, m.verdict);
      else resolve();
    });
    worker.on('error', () => resolve());
    worker.on('exit', () => resolve());
  });
  try {
    for (let i = KEY_THREADS.here ? Atomics.add(counter, 0, 1) : order.length; i < order.length; i = Atomics.add(counter, 0, 1)) {
      verdicts.set(i, keyVerdict(model, order[i]![0], order[i]![1], budget, backend));
      here.add(i);
    }
    await finished;
  } finally {
    await worker.terminate();
  }
  KEY_THREADS.decidedThere = verdicts.size - [...verdicts.keys()].filter((i) => here.has(i)).length;
  // A key the thread took but never answered for is never lost.
  for (let i = 0; i < order.length; i++) if (!verdicts.has(i)) verdicts.set(i, keyVerdict(model, order[i]![0], order[i]![1], budget, backend));
  const at = new Map(order.map(([key], i) => [key, i]));
  return summarize(model.name, h.ops.length, started, [...parts].map(([key, ops]) => [key, ops.length, verdicts.get(at.get(key)!)!]));
}
