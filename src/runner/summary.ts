// What a run or a replay resolves with (`lockpick run --json`, runLockTest): the summary, its
// distinct failures and liveness totals, the union that ties a verdict to its exit code, and
// the lines that say them.
import type { Anomaly, Verdict } from '../../checkers/types.ts';
import type { ResourceResult } from '../../checkers/resource.ts';
import { planOps, type RunPlan } from '../workload/plan.ts';
import type { Throughput } from './progress.ts';
import type { Failure } from './search.ts';
import type { RunOutcome } from './session.ts';
import type { Coverage } from './coverage.ts';

/** The smallest failing run: its plan, what it did, and what the checkers found (lock anomalies first, then the resource's). */
export interface MinimalCounterexample {
  plan: RunPlan;
  /** Operations done in that run. */
  ops: number;
  faults: number;
  anomalies: Anomaly[];
  resource: ResourceResult;
  /** Broke the lock again on a confirmation run (absent on a replay). */
  confirmed?: boolean;
}

/** What every summary has, whatever the verdict (RunSummary adds the verdict). */
export interface RunSummaryFields {
  dir: string;
  runId: string;
  seed?: number;
  path?: string;
  runs: number;
  shrinkRuns: number;
  inconclusive: number;
  /** Search runs, conclusive and not, distinct schedules, search time and runs per minute of it (not shrinking). */
  throughput: Throughput;
  firstAfterMs?: number;
  ops: number;
  lockViolations: number;       // runs whose lock history was invalid
  /** Measured on every run, whatever the property: runs with a liveness violation, the longest unavailability seen. */
  liveness: LivenessTotals;
  firstAnomalies?: Anomaly[];   // of the first violating run (before shrinking)
  resource: { lostUpdates: number; staleWritesAccepted: number; staleStepsPrevented: number };
  /** The shrunk counterexample (UNSAFE); on a replay that did not break, its last run. */
  minimal?: MinimalCounterexample;
  replay: string;
  coverage: Coverage;
  /** Why no SAFE verdict could be given (exit 3); empty otherwise. */
  gaps: string[];
  /** Wall time of the whole run (search, shrink, reports), ms. */
  elapsedMs: number;
  /** store/<lock>/<run-id>/junit.xml (the same text also at --junit PATH when given). */
  junit: string;
  /** Every distinct failure found (one without keepGoing; none when SAFE), the first being `minimal`; absent on a replay. */
  failures?: FailureJson[];
  /** UNSAFE only: a run could not go on after the violation was found (its error); the search stopped there and kept the failure. */
  stoppedBy?: string;
}

/**
 * `lockpick run --json`, runLockTest and a replay resolve with this: a union on the
 * verdict, so `assert.equal(result.verdict, false)` (or `exitCode === 1`) leaves
 * `result.minimal` defined: an UNSAFE verdict always carries its counterexample.
 */
export type RunSummary = RunSummaryFields & (
  | { verdict: false; exitCode: 1; minimal: MinimalCounterexample }
  | { verdict: true; exitCode: 0 }
  | { verdict: 'unknown'; exitCode: 3 }
);

/** A summary being filled in; `done` checks the union's promise (verdict false ⇔ exit 1 ⇔ a counterexample). */
export type SummaryDraft = RunSummaryFields & { verdict: Verdict; exitCode: 0 | 1 | 3 };

export function done(s: SummaryDraft): RunSummary {
  const want = s.verdict === false ? 1 : s.verdict === true ? 0 : 3;
  if (s.exitCode !== want || (s.verdict === false && !s.minimal)) throw new Error(`lockpick: a summary with verdict ${String(s.verdict)} and exit code ${s.exitCode}${s.minimal ? '' : ', no counterexample'}`);
  return s as RunSummary;
}

/** A distinct failure as --json and results.json say it; its counterexample dir replays with `lockpick run --replay DIR`. */
export interface FailureJson {
  /** Its class by cause (stable: "bug: stale-release · stale-release · client-pause@release"). */
  class: string;
  /** bug: of this implementation; inherent: to the lock's design; unknown: not classified. */
  nature: 'bug' | 'inherent' | 'unknown';
  /** The class in words ("a bug in this lock: its release succeeded on a lock it no longer held (…)"). */
  cause: string;
  kinds: string[]; anomalies: string[]; after_ms: number; runs: number;
  ops: number; faults: number; counterexample: string; confirmed: boolean;
  /** The search stopped on this error while (or before) it shrank this failure: kept as far as it was shrunk, unconfirmed. */
  stopped_by?: string;
}

export function failureJson(f: Failure, cdir: string): FailureJson {
  return {
    class: f.name, nature: f.nature ?? 'unknown', cause: f.words ?? `not classified: ${f.name}`, kinds: f.kinds, anomalies: f.anomalies, after_ms: f.afterMs, runs: f.runs,
    ops: planOps(f.minimal.plan), faults: f.minimal.plan.faults.length, counterexample: cdir, confirmed: f.confirmed,
    ...(f.stoppedBy !== undefined ? { stopped_by: f.stoppedBy } : {}),
  };
}

export function describeFailure(j: FailureJson, n: number): string {
  return `  ${n}. ${j.cause}\n     after ${(j.after_ms / 1000).toFixed(1)} s of search; ${j.anomalies.join(', ')} under ${j.kinds.join(', ') || 'no fault'}; shrunk to ${j.ops} ops / ${j.faults} fault(s)`
    + `${j.confirmed ? '' : j.stopped_by !== undefined ? ' (no confirmation run: the search stopped on an error)' : ' (not seen again on a confirmation run)'}; ${j.runs} violating run(s); ${j.counterexample}`;
}

export interface LivenessTotals {
  checked: boolean;              // the property asks for liveness (its violations make the run unsafe)
  violations: number;            // runs with a liveness violation
  longest_unavailable_ms: number;
  bound_ms: number | null;       // --liveness-ms, else 2 × TTL (+ the session timeout, + the lease lag); null before any run
}

export function addLiveness(t: LivenessTotals, o: RunOutcome): void {
  if (!o.liveness) return;
  t.bound_ms = o.liveness.bound_ms;
  if (o.liveness.violations.length) t.violations++;
  t.longest_unavailable_ms = Math.max(t.longest_unavailable_ms, o.liveness.longest_unavailable_ms);
}

export function describeLiveness(t: LivenessTotals): string {
  return `liveness${t.checked ? '' : ' (measured, not part of --property)'}: ${t.violations} run(s) with a lock unavailable past the bound`
    + ` (${t.bound_ms === null ? 'none measured' : `${t.bound_ms} ms`}); longest unavailable ${t.longest_unavailable_ms} ms`;
}

export function outcomeJson(o: RunOutcome) {
  return {
    run: o.run, verdict: o.verdict, check: o.check, resource: o.resource, problems: o.problems, inconclusive: o.inconclusive,
    faults: o.faults, stats: o.stats, liveness: o.liveness, elapsed_ms: Math.round(o.elapsedMs),
  };
}
