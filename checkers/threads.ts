// checkHistory with the keys shared out between this thread and a second one: each takes the
// next key (largest first) from a shared counter until none is left, so a slow key does not hold
// up the others. Only where it pays: keys decided by the search (a sweep takes microseconds per
// op), several of them, one of lockpick's own models (a user's model lives only in this thread),
// and seconds of work left (KEY_THREADS): the second thread costs ~0.5 s and ~40 MB, more than
// most checks take. Same result as checkHistory: the verdicts are put back in partition order.
import type { Op, ParsedHistory } from '../src/history/types.ts';
import type { Worker } from 'node:worker_threads';
import { startThread } from '../src/thread.ts';
import { keyVerdict, prepareCheck, readyToCheck, runAnomalies, summarize, type KeyVerdict } from './index.ts';
import { BUILTIN_MODELS } from './models/index.ts';
import { SWEEPS } from './sweep.ts';
import { withCrashes } from './crash.ts';
import type { Backend, CheckOptions, CheckResult } from './types.ts';
import type { Silences } from './silences.ts';

export const KEY_THREADS = {
  /**
   * The second thread starts once the keys have taken this long here and those left would take
   * minLeftMs more at the pace so far (it costs ~0.5 s: loading the checker, copying the ops, a
   * cold start); tests set 0 (LOCKPICK_KEY_THREADS_AFTER_MS=Infinity: never).
   */
  afterMs: Number(process.env.LOCKPICK_KEY_THREADS_AFTER_MS ?? 500),
  minLeftMs: 3000,
  /** The most keys this thread takes (tests: 0, every key on the second thread; 1, the rest there). */
  hereMax: Infinity,
  /** How many keys the second thread decided in the last check that started it (for tests). */
  decidedThere: 0,
};

/** parts: the keys from number `base` on (those not yet taken when the thread started). */
export interface KeysInput { model: string; backend: Backend | undefined; silences: Silences; limits: [number | undefined, number | undefined, number]; parts: [string, Op[]][]; base: number; next: SharedArrayBuffer }
export type FromKeys = { kind: 'verdict'; i: number; verdict: KeyVerdict } | { kind: 'done' } | { kind: 'error'; message: string; stack?: string };

export async function checkHistoryOnThreads(h: ParsedHistory, o: CheckOptions): Promise<CheckResult> {
  // A client crash of the lock (checkers/crash.ts) makes the result a violation, whichever thread decides the keys.
  const crashes = runAnomalies(h, o.model);
  await readyToCheck(h, o);
  return withCrashes(await checkKeysOnThreads(h, o), crashes);
}

async function checkKeysOnThreads(h: ParsedHistory, o: CheckOptions): Promise<CheckResult> {
  const c = prepareCheck(h, o);
  if ('valid' in c) return c;
  const { model, parts, budget, backend, started, silences } = c;
  KEY_THREADS.decidedThere = 0;
  if (parts.size < 2 || SWEEPS.has(model) || !BUILTIN_MODELS.has(model)) {
    return summarize(model.name, h.ops.length, started, [...parts].map(([key, ops]) => [key, ops.length, keyVerdict(model, key, ops, budget, backend, silences)]));
  }
  const order = [...parts].sort((a, b) => b[1].length - a[1].length);
  const next = new SharedArrayBuffer(4);
  const counter = new Int32Array(next);
  const verdicts = new Map<number, KeyVerdict>();
  const here = new Set<number>();
  let worker: Worker | undefined;
  let finished = Promise.resolve();
  const start = () => {
    const base = Atomics.load(counter, 0);
    const w = startThread('keys-worker', import.meta.url, { model: model.name, backend, silences, limits: budget.limits, parts: order.slice(base), base, next } satisfies KeysInput);
    // A thread that failed (to start, or on a key) leaves its keys to this one (below): a bug in
    // the check then shows here, as it would without threads.
    finished = new Promise<void>((resolve) => {
      w.on('message', (m: FromKeys) => {
        if (m.kind === 'verdict') verdicts.set(m.i, m.verdict);
        else resolve();
      });
      w.on('error', () => resolve());
      w.on('exit', () => resolve());
    });
    worker = w;
  };
  const t0 = performance.now();
  const totalOps = h.ops.length;
  let opsDone = 0;
  /** Past afterMs, when the keys left, at the pace so far, would take minLeftMs more. */
  const worthAThread = () => {
    const ms = performance.now() - t0;
    return Atomics.load(counter, 0) < order.length && ms >= KEY_THREADS.afterMs && (ms / opsDone) * (totalOps - opsDone) >= KEY_THREADS.minLeftMs;
  };
  try {
    if (KEY_THREADS.afterMs <= 0) start();
    while (here.size < KEY_THREADS.hereMax) {
      const i = Atomics.add(counter, 0, 1);
      if (i >= order.length) break;
      verdicts.set(i, keyVerdict(model, order[i]![0], order[i]![1], budget, backend, silences));
      here.add(i);
      opsDone += order[i]![1].length;
      if (!worker && worthAThread()) start();
    }
    if (!worker && here.size < order.length) start(); // (tests: hereMax)
    await finished;
  } finally {
    await worker?.terminate();
  }
  KEY_THREADS.decidedThere = verdicts.size - [...verdicts.keys()].filter((i) => here.has(i)).length;
  // A key the thread took but never answered for is never lost.
  for (let i = 0; i < order.length; i++) if (!verdicts.has(i)) verdicts.set(i, keyVerdict(model, order[i]![0], order[i]![1], budget, backend, silences));
  const at = new Map(order.map(([key], i) => [key, i]));
  return summarize(model.name, h.ops.length, started, [...parts].map(([key, ops]) => [key, ops.length, verdicts.get(at.get(key)!)!]));
}
