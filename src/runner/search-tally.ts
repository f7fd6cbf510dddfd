// What a search has seen so far, run by run: coverage, operations, lock violations, the
// resource's totals, liveness, the first violating run (kept for an interrupt) and the
// distinct failures stored. The search's onRun and onFailure fill it; storing the search's
// results, or what an interrupt found, reads it.
import type { Failure } from './search.ts';
import type { RunOutcome } from './session.ts';
import { wantsLiveness, type Property } from './run-options.ts';
import { addRun, emptyCoverage, type Coverage } from './coverage.ts';
import { addCells, cellsJson, cellsOfRun, emptyCells, type CellCoverage } from './fault-cells.ts';
import { addLiveness, failureJson, type FailureJson, type LivenessTotals } from './summary.ts';
import type { Shard } from '../workload/shard.ts';

export class SearchTally {
  readonly coverage: Coverage;
  ops = 0;
  lockViolations = 0;
  /** The first violation, kept for an interrupt. */
  firstSeen: RunOutcome | undefined;
  /** The distinct failures so far (the 2nd on already in counterexample-N). */
  readonly stored: { f: Failure; cdir: string }[] = [];
  readonly resource = { lostUpdates: 0, staleWritesAccepted: 0, staleStepsPrevented: 0 };
  readonly liveness: LivenessTotals;
  /** Fault-space coverage (fault-cells.ts): set with the cells known once the points are learned (knownCells). */
  cells: CellCoverage | undefined;

  constructor(faults: string[], readonly property: Property, livenessMs: number | undefined, private readonly shard?: Shard) {
    this.coverage = emptyCoverage(faults);
    this.liveness = { checked: wantsLiveness(property), violations: 0, longest_unavailable_ms: 0, bound_ms: livenessMs ?? null };
  }

  /** The cells the search could draw (src/workload/cell-space.ts): from now on each conclusive search run's faults count into them. */
  knownCells(known: readonly string[]): void {
    this.cells = emptyCells(known);
    this.coverage.cells = cellsJson(this.cells);
  }

  /** One run done: a search run counts toward coverage and liveness, a shrinking run only toward the totals. */
  onRun(out: RunOutcome, phase: string): void {
    this.ops += out.ops;
    if (out.lockVerdict === false) this.lockViolations++;
    if (phase === 'search') addLiveness(this.liveness, out);
    this.resource.lostUpdates += out.resource.lostUpdates;
    this.resource.staleWritesAccepted += out.resource.staleWritesAccepted;
    this.resource.staleStepsPrevented += out.resource.staleStepsPrevented;
    if (phase === 'search') addRun(this.coverage, out);
    if (phase === 'search' && this.cells && out.verdict !== 'unknown') {
      addCells(this.cells, cellsOfRun(out.events));
      this.coverage.cells = cellsJson(this.cells);
    }
    if (out.verdict === false) this.firstSeen ??= out;
  }

  failuresJson(): FailureJson[] {
    return this.stored.map((s) => failureJson(s.f, s.cdir));
  }

  /** The totals results.json holds, whatever the verdict. */
  totals() {
    return { property: this.property, lock_violations: this.lockViolations, liveness: this.liveness, resource_totals: this.resource, ops: this.ops, coverage: this.coverage, ...(this.shard ? { shard: this.shard } : {}) };
  }
}
