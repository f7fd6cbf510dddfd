// The property "the lock is safe under this plan", searched with fast-check:
// runs until the first violation (or the time budget), then shrinks that plan
// within its own budget (shrink.ts). fast-check's interruptAfterTimeLimit abandons the run
// in flight when time is up, so runs still going are awaited here (a violation
// one of them finds is still the search's).
//
// With `parallel` K > 1, plans whose faults all act on their own clients only
// (`concurrent(plan)`: client pauses, clocks, kills; no fault on a server, a
// server link or a shared proxy) run up to K at once, each on its own lane (its
// own clients, history file and nemesis context; keys are per run anyway), so
// each history is still checked alone. Any other plan waits until every run in
// flight has ended and runs alone. Shrinking is always sequential (lane 0).
// fast-check still draws every plan from the seed in order; a violation ends
// the search when its run ends, and its path is the index of its plan.
import fc from 'fast-check';
import type { RunPlan } from '../workload/plan.ts';
import type { RunOutcome } from './session.ts';
import { shrinkRun } from './shrink.ts';

export interface SearchOptions {
  arb: fc.Arbitrary<RunPlan>;
  /** One run of the plan on lane `lane` (0 ≤ lane < parallel; two runs in flight never share a lane). */
  runOnce(plan: RunPlan, lane: number): Promise<RunOutcome>;
  runs: number;
  timeMs: number;
  shrinkTimeMs: number;
  seed?: number;
  /** At most this many search runs at once (default 1: one after another). */
  parallel?: number;
  /** Whether this plan may run beside others (every fault touches only its own clients); default: never. */
  concurrent?(plan: RunPlan): boolean;
  onRun?(o: RunOutcome, phase: 'search' | 'shrink'): void;
}

export interface SearchResult {
  seed: number;
  runs: number;                 // plans run while searching
  shrinkRuns: number;           // plans run while shrinking
  inconclusive: number;         // search runs whose verdict was 'unknown'
  schedules: number;            // distinct plans among the search runs
  searchMs: number;             // time spent searching (until the last search run ended), not shrinking
  parallel: number;             // the most search runs that were in flight at once
  first?: RunOutcome;           // the first violation found
  firstAfterMs?: number;        // search time until it was found
  minimal?: RunOutcome;         // the smallest violation after shrinking
  path?: string;                // fast-check path of the first counterexample (with seed, fast-check replays it)
  shrinkInterrupted: boolean;
  minimalConfirmed?: boolean;   // the minimal plan broke the lock again on a confirmation run
}

export async function search(o: SearchOptions): Promise<SearchResult> {
  const seed = o.seed ?? Math.floor(Math.random() * 0x7fffffff);
  const k = Math.max(1, Math.floor(o.parallel ?? 1));
  const started = Date.now();
  const res: SearchResult = { seed, runs: 0, shrinkRuns: 0, inconclusive: 0, schedules: 0, searchMs: 0, parallel: 0, shrinkInterrupted: false };
  const seen = new Set<string>();

  // An error out of a run (a broken lock contract, the history not written) is not a
  // counterexample: fast-check would take it for one, so it is kept and rethrown.
  let fatal: { error: unknown } | undefined;
  const rethrow = () => { if (fatal) throw fatal.error; };   // (a function: the runs set it while the property waits)
  const runTracked = async (plan: RunPlan, phase: 'search' | 'shrink', lane: number): Promise<RunOutcome> => {
    rethrow();
    let out: RunOutcome;
    try {
      out = await o.runOnce(plan, lane);
    } catch (e) {
      fatal ??= { error: e };
      throw e;
    }
    if (phase === 'search') res.runs++; else res.shrinkRuns++;
    if (phase === 'search' && out.verdict === 'unknown') res.inconclusive++;
    o.onRun?.(out, phase);
    return out;
  };

  // Search runs in flight (each settles, never rejects: a failure is in `fatal`) and the free lanes.
  const running = new Set<Promise<void>>();
  const free = Array.from({ length: k }, (_, i) => k - 1 - i);   // pop() gives lane 0 first
  const settle = async () => { while (running.size) await Promise.race(running); };
  let drawn = 0;
  let firstIndex: number | undefined;
  let stopped = false;   // fast-check returned: a property it abandoned must not start another run
  const launch = (plan: RunPlan) => {
    const index = drawn++;
    const lane = free.pop()!;
    seen.add(JSON.stringify(plan));
    const p: Promise<void> = runTracked(plan, 'search', lane).then((out) => {
      if (out.verdict !== false || res.first) return;
      res.first = out;
      res.firstAfterMs = Date.now() - started;
      firstIndex = index;
    }, () => {}).finally(() => { free.push(lane); running.delete(p); });
    running.add(p);
    res.parallel = Math.max(res.parallel, running.size);
  };

  const found = await fc.check(fc.asyncProperty(o.arb, async (plan) => {
    const alone = k === 1 || o.concurrent?.(plan) !== true;
    if (alone) await settle();
    else while (running.size >= k) await Promise.race(running);
    rethrow();
    if (res.first) return false;
    if (stopped) return true;
    launch(plan);
    if (alone) await settle();
    rethrow();
    return !res.first;
  }), { numRuns: o.runs, seed, endOnFailure: true, interruptAfterTimeLimit: o.timeMs, markInterruptAsFailure: false });
  stopped = true;
  await settle();
  res.searchMs = Date.now() - started;
  res.schedules = seen.size;
  rethrow();
  if (!res.first) return res;

  // Shrink with what the checker found (src/runner/shrink.ts); the seed and
  // path name the first counterexample, which fast-check replays exactly.
  const shrunk = await shrinkRun(res.first, { arb: o.arb, budgetMs: Math.max(1, o.shrinkTimeMs), runOnce: (plan) => runTracked(plan, 'shrink', 0) });
  res.minimal = shrunk.minimal;
  res.path = (k === 1 && found.failed ? found.counterexamplePath : undefined) ?? (firstIndex === undefined ? undefined : String(firstIndex));
  res.shrinkInterrupted = shrunk.interrupted;
  res.minimalConfirmed = shrunk.confirmed;
  return res;
}
