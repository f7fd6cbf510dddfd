// A SAFE verdict is a promise: it may only be given when the test really tested
// something. Over the conclusive runs of a `lockpick run`: every requested fault
// kind took effect at least once, some acquire succeeded and was released, and
// some acquire met another client's hold (contention). Otherwise the run is
// inconclusive (exit 3) and says which of these was missing.
import { addCounts, getOwn, setOwn } from '../own-key.ts';
import type { RunOutcome } from './session.ts';
import type { CellsJson } from './fault-cells.ts';
import { addOutcomes, describeOutcomes, emptyOutcomes, errorGaps, type Outcomes } from '../report/outcomes.ts';

export interface Coverage {
  runs: number;
  conclusive: number;
  acquires: number;
  okAcquires: number;
  released: number;
  contended: number;
  /** Acquire and renew oks that reported the lock's validity, and of them those checked against their lease (checkers/stats.ts); absent in results from before they were counted. */
  validityReported?: number;
  validityChecked?: number;
  /** Releases that came back lost inside their lease with no server fault (lost-in-lease.ts), and the first: a gap. */
  lostInLease?: number;
  lostInLeaseExample?: string;
  faultsApplied: Record<string, number>;      // per requested kind, in conclusive runs
  inconclusiveReasons: Record<string, number>; // reason → runs (the first reason of each run)
  /** The lock's own counters (Lock.stats) over the conclusive runs, e.g. ZooKeeper watchNotifications, creates, wakeups. */
  lockStats: Record<string, number>;
  /** lockStats / okAcquires, 2 decimals: the herd-effect figure ("watch notifications per ok acquire"). */
  lockStatsPerOkAcquire: Record<string, number>;
  /** Fault-space coverage (./fault-cells.ts): the cells the search could draw and the faults per cell, with its figures. */
  cells?: CellsJson;
  /** Every operation kind by outcome, the errors by message, and which acquire errors no fault explains (report/outcomes.ts), over the conclusive runs. */
  outcomes: Outcomes;
  /** Requested kinds a client said can never reach this lock (FaultEffects.unreachable), in any run: each a gap, whatever other runs counted. */
  unreachable?: Record<string, string>;
}

export function emptyCoverage(requested: readonly string[]): Coverage {
  return {
    runs: 0, conclusive: 0, acquires: 0, okAcquires: 0, released: 0, contended: 0,
    faultsApplied: Object.fromEntries(requested.map((k) => [k, 0])), inconclusiveReasons: {}, lockStats: {}, lockStatsPerOkAcquire: {},
    outcomes: emptyOutcomes(),
  };
}

/**
 * A reason's words, to count reasons by: numbers (times, process ids) vary from run to run and
 * become N; a client's id (c2), an ordinal (5th), a fault's number (#1) and a point's (send:acquire:4) name what was missed and stay.
 */
export function reasonWords(why: string): string {
  const words = why.replace(/(?<![c#\d]|:[a-z]+:)\d+(?!\d|st\b|nd\b|rd\b|th\b)/g, 'N');
  if (words.length <= REASON_CHARS) return words;
  // Cut at a word, marked: a reason cut mid-word ("… to end (KI") reads as a garbled message.
  const cut = words.lastIndexOf(' ', REASON_CHARS - 1);
  return `${words.slice(0, cut > REASON_CHARS / 2 ? cut : REASON_CHARS - 1)}…`;
}

/** The longest reason counted as it is (a fault's words, then why it missed, fit). */
const REASON_CHARS = 300;

/** Counts one run (violating runs count as conclusive: what they found stands). */
export function addRun(c: Coverage, out: RunOutcome): void {
  c.runs++;
  // Learned in any run, conclusive or not: the kind's applications elsewhere reached nothing either.
  for (const [k, why] of Object.entries(out.faults.unreachable ?? {})) {
    if (Object.hasOwn(c.faultsApplied, k) && getOwn(c.unreachable ?? {}, k) === undefined) setOwn(c.unreachable ??= {}, k, why);
  }
  if (out.verdict === 'unknown') {
    const words = reasonWords(out.inconclusive[0] ?? 'no verdict');
    addCounts(c.inconclusiveReasons, { [words]: 1 }); // a reason's words may be a lock's message
    return;
  }
  c.conclusive++;
  c.acquires += out.stats.acquires;
  c.okAcquires += out.stats.okAcquires;
  c.released += out.stats.released;
  c.contended += out.stats.contended;
  if (out.lostInLease?.count) {
    c.lostInLease = (c.lostInLease ?? 0) + out.lostInLease.count;
    c.lostInLeaseExample ??= out.lostInLease.example;
  }
  if (out.stats.validityReported) {   // kept out of results.json for a lock that reports no validity
    c.validityReported = (c.validityReported ?? 0) + out.stats.validityReported;
    c.validityChecked = (c.validityChecked ?? 0) + (out.stats.validityChecked ?? 0);
  }
  for (const [k, n] of Object.entries(out.faults.applied)) if (Object.hasOwn(c.faultsApplied, k)) c.faultsApplied[k]! += n;
  addCounts(c.lockStats, out.lockStats ?? {}); // names are the lock module's
  addOutcomes(c.outcomes, { ...out.outcomes, unansweredWaiters: out.stats.unansweredWaiters ?? 0 });
  c.lockStatsPerOkAcquire = c.okAcquires === 0 ? {}
    : Object.fromEntries(Object.entries(c.lockStats).map(([k, n]) => [k, Math.round((n / c.okAcquires) * 100) / 100]));
}

/** "watchNotifications" → "watch notifications". */
const words = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();

/** Why a run without a violation may not be called safe; empty when it may. */
/** The gap of a requested kind that never took effect. */
const kindGap = (kind: string): string => `fault '${kind}' never took effect in a conclusive run`;

/** Whether a gap is only that a kind never took effect: a shard's own (it leads other kinds), which merge sums over the shards. */
export const isKindGap = (gap: string): boolean => /^fault '[^']+' never took effect in a conclusive run$/.test(gap);

/** `contention: false`: a replay on a plan whose counterexample one client shows alone (ONE_CLIENT_ANOMALIES) asks for none. */
export function gaps(c: Coverage, o: { contention?: boolean } = {}): string[] {
  const out: string[] = [];
  if (c.conclusive === 0) {
    const top = Object.entries(c.inconclusiveReasons).sort((a, b) => b[1] - a[1])[0];
    out.push(`no run was conclusive (${c.runs} run(s))${top ? `; most often: ${top[0]} (${top[1]} run(s))` : ''}`);
    return out;
  }
  for (const [k, n] of Object.entries(c.faultsApplied)) {
    const never = getOwn(c.unreachable ?? {}, k);
    if (never !== undefined) out.push(`fault '${k}' can never reach this lock (${never})${n > 0 ? `: the ${n} time(s) conclusive runs counted it as applied did not test the lock` : ''}`);
    else if (n === 0) out.push(kindGap(k));
  }
  if (c.okAcquires === 0) out.push(`no acquire succeeded (${c.acquires} tried): the lock was never held, so its safety was never tested`);
  else if (c.released === 0) out.push(`no hold ended with a successful release (${c.okAcquires} acquire(s) ok)`);
  // Before contention: waiters that raised are often why none met a hold with a definite answer.
  out.push(...errorGaps(c.outcomes ?? emptyOutcomes(), c.acquires));
  if (c.lostInLease) {
    out.push(`${c.lostInLease} release(s) came back lost inside their lease while no fault touched the servers (${c.lostInLeaseExample ?? 'the first'}): something removed a live lock (another client's stale unlock, an overwrite) though no client got in to show a double holder; more clients (--clients) or longer holds let one in (docs/checking.md)`);
  }
  if (c.contended === 0 && o.contention !== false) {
    out.push(`no contention: no acquire met another client's hold on the same key; use more clients (--clients), fewer keys, or more time`);
  }
  return out;
}

/** One line for the summary, e.g. "24 runs (22 conclusive), 61 ok acquires, 38 contended, faults applied: partition 20". */
export function describeCoverage(c: Coverage): string {
  const faults = Object.entries(c.faultsApplied);
  // The counts are the conclusive runs' (an inconclusive run proves nothing): said so when some were not.
  return `${c.runs} run(s) (${c.conclusive} conclusive), ${c.acquires} acquire(s)${c.conclusive < c.runs ? ` in the conclusive run(s)` : ''}: ${c.okAcquires} ok, ${c.released} released, ${c.contended} contended` +
    (faults.length ? `; faults applied: ${faults.map(([k, n]) => `${k} ${n}`).join(', ')}` : '; no faults asked for') +
    describeValidity(c) + describeLockStats(c) + describeOutcomes(c.outcomes ?? emptyOutcomes()).map((l) => `\n  ${l}`).join('');
}

/**
 * E.g. "; validity reported on 40 grants (acquire or renew ok), 40 checked against their lease": whether
 * overstated-validity was looked for (empty when the lock reports no validity).
 */
function describeValidity(c: Coverage): string {
  const n = c.validityReported ?? 0;
  if (n === 0) return '';
  const checked = c.validityChecked ?? 0;
  return `; validity reported on ${n} grant(s) (acquire or renew ok), ${checked === n ? 'each' : checked} checked against its lease` +
    (checked < n ? ` (the rest: no lease, or the lock's sends unseen: docs/history-format.md "sent_ms")` : '');
}

/** E.g. "; per ok acquire: 4.8 watch notifications, 5.8 creates, 4.1 wakeups" (empty when the lock counts nothing). */
function describeLockStats(c: Coverage): string {
  const per = Object.entries(c.lockStatsPerOkAcquire);
  return per.length ? `; per ok acquire: ${per.map(([k, n]) => `${n} ${words(k)}`).join(', ')}` : '';
}
