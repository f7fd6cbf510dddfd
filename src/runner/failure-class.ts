// --keep-going: which distinct failures a search found. A failure's class is
// the fault kinds left in its shrunk plan and the anomaly types its shrunk run
// showed (classAnomalies), e.g. "double-holder · kill" (restart without persistence) beside
// "double-holder · clock-bump, partition" (Kleppmann's pause + clock).
import type { RunPlan } from '../workload/plan.ts';
import type { RunOutcome } from './session.ts';

/**
 * The anomaly types that name a failure: the lock's own (double-holder,
 * stale-release, ...), else the resource's (a fencing failure). A lost update
 * beside a double holder depends on whether both holders happened to write, so
 * counting it would split one failure into two classes.
 */
export function classAnomalies(o: Pick<RunOutcome, 'check' | 'resource'>): Set<string> {
  const lock = o.check.anomalies.map((a) => a.type);
  return new Set(lock.length ? lock : o.resource.anomalies.map((a) => a.type));
}

export interface FailureClass {
  /** "anomalies · kinds", both sorted: equal names are the same class. */
  name: string;
  kinds: string[];
  anomalies: string[];
}

export function failureClass(plan: RunPlan, o: Pick<RunOutcome, 'check' | 'resource'>): FailureClass {
  const kinds = [...new Set(plan.faults.map((f) => f.kind))].sort();
  const anomalies = [...classAnomalies(o)].sort();
  return { name: `${anomalies.join(', ') || 'violation'} · ${kinds.join(', ') || 'no fault'}`, kinds, anomalies };
}

/**
 * The class a new violation repeats, if any: one whose every fault kind is in
 * the violating plan and whose every anomaly type the run showed. Such a run is
 * counted, not shrunk (shrinking costs seconds of real runs per candidate).
 * A heuristic that can only under-report: a plan with a kill and a clock bump
 * that broke the lock by the clock is taken for the kill class already found;
 * it never invents a failure, since every class listed was shrunk from a run
 * that broke the lock.
 */
export function repeatOf<C extends FailureClass>(plan: RunPlan, o: Pick<RunOutcome, 'check' | 'resource'>, found: readonly C[]): C | undefined {
  const kinds = new Set(plan.faults.map((f) => f.kind));
  const seen = classAnomalies(o);
  return found.find((c) => c.kinds.every((k) => kinds.has(k)) && c.anomalies.every((a) => seen.has(a)));
}
