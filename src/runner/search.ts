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
//
// With `keepGoing` a violation does not end the search: once no run is in
// flight it is shrunk (its own budget, on lane 0) and its class (failure-class.ts)
// kept if new, then the search goes on until `timeMs` of search time is spent.
// The search keeps its own clock then (fast-check's time limit would count the
// shrinking), so "found after" stays search time as without it.
//
// With `classify` (a failure's cause, failure-cause.ts) classes are by cause, and the default
// search (no keepGoing) goes on the same way past a failure inherent to the lock's design:
// runs that only show inherent failures are counted, not shrunk, until an implementation bug
// (or a failure it cannot classify) is found and shrunk, or the time is spent; a bug found first
// ends it a little later (done() below), so an inherent failure easy to reach is reported too.
// It reports one failure of each nature at most. Shrinking keeps
// the nature it started from (a bug is not shrunk into the inherent failure beside it). The
// failures come out bugs first, then unclassified, then inherent ones.
import fc from 'fast-check';
import type { RunPlan } from '../workload/plan.ts';
import type { RunOutcome } from './session.ts';
import { shrinkRun } from './shrink.ts';
import { failureClass, repeatOf, type FailureClass } from './failure-class.ts';
import type { CauseClass, Nature } from './failure-cause.ts';

export interface SearchOptions {
  arb: fc.Arbitrary<RunPlan>;
  /** What shrinking walks (default arb): a shard's drawing arb is filtered to its bucket, its shrinking need not be. */
  shrinkArb?: fc.Arbitrary<RunPlan>;
  /** Plans run before any drawn from `arb` (one per aim: each strategy tried once early). */
  first?: RunPlan[];
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
  /** Go on after a violation until timeMs is spent, and report every distinct failure (`failures`). */
  keepGoing?: boolean;
  /** Each distinct failure as soon as it is shrunk (n: 1, 2, …), e.g. to store it before an interrupt. */
  onFailure?(f: Failure, n: number): void | Promise<void>;
  /** A violating run's classes by cause (one per nature, the weightiest first); given, the default search goes on past inherent failures (above). */
  classify?(o: RunOutcome): CauseClass[];
  /** Without keepGoing: stop at the first failure even when it is inherent (its class is still by cause). */
  stopAtFirst?: boolean;
}

/** A distinct failure: its class, when it was first seen, and its shrunk run. */
export interface Failure extends FailureClass {
  /** By cause (classify given): bug, inherent or unknown, and the class in words. */
  nature?: Nature;
  words?: string;
  afterMs: number;              // search time until its first run ended
  runs: number;                 // violating search runs counted for it (its first and the repeats)
  first: RunOutcome;            // the violation as found
  minimal: RunOutcome;          // after shrinking (its class is read from this one)
  path: string;                 // the index of its plan among those drawn from the seed
  confirmed: boolean;
  shrinkInterrupted: boolean;
  /** The search stopped on an error while this failure was shrunk (or before it was): its message; the failure stands. */
  stoppedBy?: string;
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
  firstRun?: number;            // which search run it was, from 1 (in the order drawn)
  minimal?: RunOutcome;         // the smallest violation after shrinking
  path?: string;                // fast-check path of the first counterexample (with seed, fast-check replays it)
  shrinkInterrupted: boolean;
  minimalConfirmed?: boolean;   // the minimal plan broke the lock again on a confirmation run
  /** The distinct failures, bugs first (then in the order found); the first is minimal above (one entry without keepGoing, unless the first was inherent). */
  failures: Failure[];
  /** Violating runs the default search counted and did not shrink: they showed only failures inherent to the design. */
  inherentRuns: number;
  /**
   * A run could not go on (a broken lock contract, a server gone, the history not written) after
   * a violation was found: the error's message. The search stopped there and kept what it had
   * found (a violation seen in a checked history stays one); without a violation the error is thrown.
   */
  stoppedBy?: string;
}

export async function search(o: SearchOptions): Promise<SearchResult> {
  const seed = o.seed ?? Math.floor(Math.random() * 0x7fffffff);
  const k = Math.max(1, Math.floor(o.parallel ?? 1));
  const started = Date.now();
  const res: SearchResult = { seed, runs: 0, shrinkRuns: 0, inconclusive: 0, schedules: 0, searchMs: 0, parallel: 0, shrinkInterrupted: false, failures: [], inherentRuns: 0 };
  const seen = new Set<string>();

  // An error out of a run (a broken lock contract, the history not written) is not a
  // counterexample: fast-check would take it for one, so it is kept and rethrown.
  let fatal: { error: unknown } | undefined;
  const rethrow = () => { if (fatal) throw fatal.error; };   // (a function: the runs set it while the property waits)
  /** After the search: the error, unless a violation was found before it (then it is said, and the search ends with what it has). */
  const stopOrThrow = () => {
    if (!fatal) return;
    if (!res.first) throw fatal.error;
    res.stoppedBy ??= messageOf(fatal.error);
  };
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
  let shrinkMs = 0;      // keepGoing: time spent shrinking so far, not search time
  const searchNow = () => Date.now() - started - shrinkMs;
  const pending: { out: RunOutcome; afterMs: number; index: number }[] = [];   // keepGoing: violations not yet classed
  const launch = (plan: RunPlan) => {
    const index = drawn++;
    const lane = free.pop()!;
    seen.add(JSON.stringify(plan));
    const p: Promise<void> = runTracked(plan, 'search', lane).then((out) => {
      if (out.verdict !== false) return;
      const afterMs = searchNow();
      if (goOn) pending.push({ out, afterMs, index });
      if (res.first) return;
      res.first = out;
      res.firstAfterMs = afterMs;
      res.firstRun = index + 1;
      firstIndex = index;
    }, () => {}).finally(() => { free.push(lane); running.delete(p); });
    running.add(p);
    res.parallel = Math.max(res.parallel, running.size);
  };

  const classOf = o.classify;
  // The default search goes on past inherent failures only (classify given); keepGoing past every one.
  const goOn = o.keepGoing === true || (classOf !== undefined && o.stopAtFirst !== true);
  // The default search ends at a bug (or a failure it cannot classify) once it also has an inherent
  // one, or once the first plans have all run (each strategy tried once) and it has searched as long
  // again as the bug took to find: an inherent failure the same faults make easily is reported
  // beside it, and a lock with a bug alone costs at most twice its time to detection.
  const firstCount = o.first?.length ?? 0;
  const has = (inherent: boolean) => res.failures.some((f) => (f.nature === 'inherent') === inherent);
  const bugAt = () => Math.min(...res.failures.filter((f) => f.nature !== 'inherent').map((f) => f.afterMs));
  const done = () => !o.keepGoing && has(false) && (has(true) || (drawn >= firstCount && searchNow() >= 2 * bugAt()));
  const shrink = (first: RunOutcome, keep?: (out: RunOutcome) => boolean) =>
    shrinkRun(first, { arb: o.shrinkArb ?? o.arb, budgetMs: Math.max(1, o.shrinkTimeMs), runOnce: (plan) => runTracked(plan, 'shrink', 0), keep });
  // keepGoing, with no run in flight: class the violations found, shrinking the new ones (off the search clock).
  const classify = async () => {
    const t = Date.now();
    try {
      for (let c = pending.shift(); c; c = pending.shift()) {
        if (!classOf) {
          const again = repeatOf(c.out.plan, c.out, res.failures);
          if (again) { again.runs++; continue; }
          const s = await shrink(c.out);
          await found(c, s, failureClass(s.minimal.plan, s.minimal));
          stoppedIn(s);
          continue;
        }
        // By cause: each class the run shows (a bug and an inherent failure may share a run) is found once.
        for (const cause of classOf(c.out)) {
          const again = res.failures.find((f) => f.name === cause.key);
          if (again) { again.runs++; continue; }
          // The default search reports one failure of each nature: a class of a nature it has is counted.
          if (!o.keepGoing && has(cause.nature === 'inherent')) { if (cause.nature === 'inherent') res.inherentRuns++; continue; }
          const s = await shrink(c.out, (out) => shows(classOf(out), cause));
          // Shrinking keeps a run that shows this class's anomalies by causes of its nature (else it returns the run found).
          const got = classOf(s.minimal).find((k) => k.nature === cause.nature) ?? cause;
          await found(c, s, byCause(s.minimal.plan, got));
          stoppedIn(s);
        }
      }
    } finally {
      shrinkMs += Date.now() - t;
    }
  };

  /** A shrink a failed run ended: the search stops with what it has (every failure left is kept unshrunk). */
  function stoppedIn(s: Awaited<ReturnType<typeof shrink>>): void {
    if (s.error !== undefined) res.stoppedBy ??= messageOf(s.error);
  }

  async function found(c: { out: RunOutcome; afterMs: number; index: number }, s: Awaited<ReturnType<typeof shrink>>, cls: FailureClass & Pick<Failure, 'nature' | 'words'>) {
    const same = res.failures.find((f) => f.name === cls.name);
    if (same) { same.runs++; return; }
    const f = failureOf(c.out, s, c.afterMs, String(c.index), cls);
    if (s.error !== undefined) f.stoppedBy = messageOf(s.error);
    res.failures.push(f);
    await o.onFailure?.(f, res.failures.length);
  }

  const checked = await fc.check(fc.asyncProperty(o.arb, async (plan) => {
    const alone = k === 1 || o.concurrent?.(plan) !== true;
    if (alone) await settle();
    else while (running.size >= k) await Promise.race(running);
    rethrow();
    if (goOn) {
      if (pending.length) { await settle(); await classify(); }
      if (searchNow() >= o.timeMs || done()) return false;   // time is up (or a bug found): ends fast-check's loop (no shrinking: endOnFailure)
    } else if (res.first) return false;
    if (stopped) return true;
    launch(plan);
    if (alone) await settle();
    rethrow();
    return goOn || !res.first;
  }), { numRuns: o.runs, seed, examples: (o.first ?? []).map((p): [RunPlan] => [p]), endOnFailure: true, interruptAfterTimeLimit: goOn ? undefined : o.timeMs, markInterruptAsFailure: false });
  stopped = true;
  await settle();
  res.searchMs = searchNow();
  res.schedules = seen.size;
  stopOrThrow();
  if (!res.first) return res;
  if (goOn) {
    await classify();
    // Bugs first, then what could not be classified, then the inherent ones; each group in the order found.
    if (classOf) res.failures.sort((a, b) => RANK[a.nature ?? 'unknown'] - RANK[b.nature ?? 'unknown']);
    const f = res.failures[0]!;   // the first violation is never a repeat: nothing was classed before it
    res.minimal = f.minimal;
    res.path = f.path;
    res.shrinkInterrupted = f.shrinkInterrupted;
    res.minimalConfirmed = f.confirmed;
    return res;
  }

  // Shrink with what the checker found (src/runner/shrink.ts); the seed and
  // path name the first counterexample, which fast-check replays exactly.
  // After an error, no more runs: the violation as found is the result (its history was checked).
  const shrunk = res.stoppedBy === undefined ? await shrink(res.first) : { minimal: res.first, runs: 0, interrupted: true, confirmed: false };
  stoppedIn(shrunk);
  res.minimal = shrunk.minimal;
  res.path = (k === 1 && checked.failed ? checked.counterexamplePath : undefined) ?? (firstIndex === undefined ? undefined : String(firstIndex));
  res.shrinkInterrupted = shrunk.interrupted;
  res.minimalConfirmed = shrunk.confirmed;
  const cause = classOf?.(shrunk.minimal)[0];
  res.failures.push(failureOf(res.first, shrunk, res.firstAfterMs ?? 0, res.path ?? '', cause ? byCause(shrunk.minimal.plan, cause) : undefined));
  if (res.stoppedBy !== undefined) res.failures[0]!.stoppedBy = res.stoppedBy;
  return res;
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

const RANK: Record<Nature, number> = { bug: 0, unknown: 1, inherent: 2 };

/** A class by cause, as a FailureClass: its name is the cause's stable key, its anomalies those its causes name. */
function byCause(plan: RunPlan, c: CauseClass): FailureClass & Pick<Failure, 'nature' | 'words'> {
  return { kinds: [...new Set(plan.faults.map((f) => f.kind))].sort(), anomalies: [...new Set(c.causes.map((x) => x.anomaly))].sort(), name: c.key, nature: c.nature, words: c.words };
}

/** Whether a run's classes show `cls`'s anomalies by causes of its nature. */
function shows(classes: readonly CauseClass[], cls: CauseClass): boolean {
  const same = classes.find((k) => k.nature === cls.nature);
  return same !== undefined && cls.causes.every((x) => same.causes.some((y) => y.anomaly === x.anomaly));
}

/** A distinct failure from its first violating run and what shrinking made of it. */
function failureOf(first: RunOutcome, s: Awaited<ReturnType<typeof shrinkRun>>, afterMs: number, path: string,
  cls: FailureClass = failureClass(s.minimal.plan, s.minimal)): Failure {
  return { ...cls, afterMs, runs: 1, first, minimal: s.minimal, path, confirmed: s.confirmed, shrinkInterrupted: s.interrupted };
}
