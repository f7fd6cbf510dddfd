// The property "the lock is safe under this plan", searched with fast-check:
// runs until the first violation (or the time budget), then shrinks that plan
// within its own budget (shrink.ts). fast-check's interruptAfterTimeLimit abandons the run
// in flight when time is up, so the run still going is awaited here: a session
// never runs two plans at once.
import fc from 'fast-check';
import type { RunPlan } from '../workload/plan.ts';
import type { RunOutcome } from './session.ts';
import { shrinkRun } from './shrink.ts';

export interface SearchOptions {
  arb: fc.Arbitrary<RunPlan>;
  runOnce(plan: RunPlan): Promise<RunOutcome>;
  runs: number;
  timeMs: number;
  shrinkTimeMs: number;
  seed?: number;
  onRun?(o: RunOutcome, phase: 'search' | 'shrink'): void;
}

export interface SearchResult {
  seed: number;
  runs: number;                 // plans run while searching
  shrinkRuns: number;           // plans run while shrinking
  inconclusive: number;         // runs whose verdict was 'unknown'
  first?: RunOutcome;           // the first violation found
  firstAfterMs?: number;        // search time until it was found
  minimal?: RunOutcome;         // the smallest violation after shrinking
  path?: string;                // fast-check path of the first counterexample (with seed, fast-check replays it)
  shrinkInterrupted: boolean;
  minimalConfirmed?: boolean;   // the minimal plan broke the lock again on a confirmation run
}

export async function search(o: SearchOptions): Promise<SearchResult> {
  const seed = o.seed ?? Math.floor(Math.random() * 0x7fffffff);
  const started = Date.now();
  let inflight: Promise<unknown> = Promise.resolve();
  const res: SearchResult = { seed, runs: 0, shrinkRuns: 0, inconclusive: 0, shrinkInterrupted: false };

  // An error out of a run (a broken lock contract, the history not written) is not a
  // counterexample: fast-check would take it for one, so it is kept and rethrown.
  let fatal: { error: unknown } | undefined;
  const runTracked = async (plan: RunPlan, phase: 'search' | 'shrink'): Promise<RunOutcome> => {
    if (fatal) throw fatal.error;
    const p = o.runOnce(plan);
    inflight = p.catch(() => {});
    let out: RunOutcome;
    try {
      out = await p;
    } catch (e) {
      fatal ??= { error: e };
      throw e;
    }
    if (phase === 'search') res.runs++; else res.shrinkRuns++;
    if (out.verdict === 'unknown') res.inconclusive++;
    o.onRun?.(out, phase);
    return out;
  };

  const found = await fc.check(fc.asyncProperty(o.arb, async (plan) => {
    const out = await runTracked(plan, 'search');
    if (out.verdict !== false) return true;
    res.first = out;
    res.firstAfterMs = Date.now() - started;
    return false;
  }), { numRuns: o.runs, seed, endOnFailure: true, interruptAfterTimeLimit: o.timeMs, markInterruptAsFailure: false });
  await inflight;
  if (fatal) throw fatal.error;
  if (!found.failed || !res.first) return res;

  // Shrink with what the checker found (src/runner/shrink.ts); the seed and
  // path name the first counterexample, which fast-check replays exactly.
  const shrunk = await shrinkRun(res.first, { arb: o.arb, budgetMs: Math.max(1, o.shrinkTimeMs), runOnce: (plan) => runTracked(plan, 'shrink') });
  res.minimal = shrunk.minimal;
  res.path = found.counterexamplePath ?? undefined;
  res.shrinkInterrupted = shrunk.interrupted;
  res.minimalConfirmed = shrunk.confirmed;
  return res;
}
