// The O(n log n) decision procedure for owner-aware lock models (mutex, fenced-mutex,
// reentrant-mutex), exact, not a heuristic: it gives the same verdict as the Wing–Gong–Lowe search
// with the models of checkers/models/mutex.ts plus the double-holder scan (property-tested).
// Why it is exact (docs/history-format.md, "For checker authors" and "Leases and what the server holds"):
// - An info acquire never needs to take effect (taking effect only blocks); an info release by
//   the holder is best taken at its invoke (the process never acts again); a release/renew ok
//   needs its own process to hold the lock, which depends only on that process's own earlier ops
//   and on whether another process took the lock from it; a lost or lapse release is always legal.
// - So each process's ops reduce to holds at the server [acquire point, end], where the end is a
//   non-failed release's point or, for a lease lock, any moment from the lease's end (counted from
//   the acquire's invoke, extended by renews) but never before the acquire returned ok
//   (checkers/lease.ts). In any valid linearization two holds h1 before h2 have h1's acquire
//   complete before h2's: else h1 ends by h2's point ≤ h2's completion < h1's completion, which
//   neither a release (invoked after h1's completion) nor a lease end (not before h1's ok) allows.
// - Holds are therefore ordered by acquire completion, and the greedy placement is optimal: each
//   acquire at its completion (as late as possible: only helps against the previous hold; its own
//   process does nothing in between), each release and renew at its invoke (as early as possible),
//   and a lease taken to run out only when another acquire needs it, at that acquire's completion
//   (as late as possible: the holder's own release or renew before it stays legal). One pass over
//   the events in that order (checkers/holds.ts) decides it; the sort is the n log n.
// - Valid iff no overlap of beliefs (double holders), no acquire while another hold certainly
//   stands, no re-acquire by the holder (mutex), no release/renew ok by a non-holder, and, for
//   fenced-mutex, tokens grow in acquire-completion order.
import type { Op } from '../src/history/types.ts';
import type { Anomaly, Backend, Model } from './types.ts';
import { findOverlaps, scanKey, type Belief, type Misstep, type Overlap } from './holds.ts';
import { doubleHolder, exposure, misstep, staleToken } from './messages.ts';
import { findStaleUnlocks } from './stale-unlock.ts';
import { fencedMutex, mutex, reentrantMutex } from './models/mutex.ts';
import { tokenGreater, tokenOf } from './values.ts';
import type { Silences } from './silences.ts';
import { rwlock, semaphore } from './models/permits.ts';
import { permitAnomalies, permitScan, type PermitKind } from './permit-sweep.ts';

export type Sweep = (key: string, ops: readonly Op[], backend?: Backend, silences?: Silences) => Anomaly[];

/** How a lock model's sweep reads its ops: reentrant nesting, fencing tokens. */
export interface SweepOptions { reentrant: boolean; tokens: boolean }

function lockSweep(opts: SweepOptions): Sweep {
  return (key, ops, backend, silences) => {
    const { beliefs, missteps, grants, exposures } = scanKey(ops, opts.reentrant, silences);
    const tokens = new TokenCheck(key);
    if (opts.tokens) for (const op of grants) tokens.grant(op);
    return sweepAnomalies(key, findOverlaps(beliefs), missteps, tokens.anomalies, backend, exposures);
  };
}

/**
 * A key's anomalies in report order: double holders, then missteps, then stale tokens, then
 * exposures, each kind in its own order, sorted by first line. An exposure is said only where no
 * double holder already shows that belief (the overlap is the same hold, seen taken).
 */
export function sweepAnomalies(key: string, overlaps: readonly Overlap[], missteps: readonly Misstep[], tokens: readonly Anomaly[], backend?: Backend, exposures: readonly Belief[] = []): Anomaly[] {
  const anomalies = overlaps.map((o) => doubleHolder(key, o));
  for (const m of missteps) anomalies.push(misstep(key, m, backend));
  anomalies.push(...tokens);
  anomalies.push(...unshownExposures(overlaps, exposures).map((b) => exposure(key, b)));
  return anomalies.sort((a, b) => (a.lines[0] ?? 0) - (b.lines[0] ?? 0));
}

/** Tokens must grow in acquire-completion order (the linearization order of holds): fed the grants in that order. */
export class TokenCheck {
  readonly anomalies: Anomaly[] = [];
  private best: { op: Op; t: bigint | number } | undefined;
  constructor(private readonly key: string) {}
  grant(op: Op): void {
    const t = tokenOf(op.value);
    if (t === undefined) return;
    if (this.best && !tokenGreater(t, this.best.t)) this.anomalies.push(staleToken(this.key, this.best.op, op, this.best.t, t));
    else this.best = { op, t };
  }
}

/** The sweep options of each model decided by a sweep, by identity: a user model registered under the same name gets the search. */
export const SWEEP_OPTIONS = new Map<Model<any>, SweepOptions>([
  [mutex, { reentrant: false, tokens: false }],
  [fencedMutex, { reentrant: false, tokens: true }],
  [reentrantMutex, { reentrant: true, tokens: false }],
]);

/** The models whose keys hold several holds at once, swept by checkers/permit-sweep.ts (by identity, as SWEEP_OPTIONS). */
export const PERMIT_MODELS = new Map<Model<any>, PermitKind>([[semaphore, 'semaphore'], [rwlock, 'rwlock']]);

export const SWEEPS = new Map<Model<any>, Sweep>([
  ...[...SWEEP_OPTIONS].map(([m, o]) => [m, lockSweep(o)] as const),
  ...[...PERMIT_MODELS].map(([m, kind]) => [m, ((key, ops, backend, silences) => permitAnomalies(key, permitScan(kind, ops, silences), backend)) as Sweep] as const),
]);

/** The exposures no double holder shows (a belief in an overlap is reported there). */
export function unshownExposures(overlaps: readonly Overlap[], exposures: readonly Belief[]): Belief[] {
  if (exposures.length === 0) return [];
  const shown = new Set<Belief>();
  for (const o of overlaps) { shown.add(o.first); shown.add(o.second); }
  return exposures.filter((b) => !shown.has(b));
}

/**
 * The beliefs' anomalies alone (overlapping beliefs, beliefs acted on past their lease), for lock
 * models decided by search (knossos-mutex, user models). reentrant: a process's nested acquires need as many releases.
 */
export function doubleHolderScan(key: string, ops: readonly Op[], reentrant = false, silences?: Silences): Anomaly[] {
  const { beliefs, exposures } = scanKey(ops, reentrant, silences);
  const overlaps = findOverlaps(beliefs);
  return [...overlaps.map((o) => doubleHolder(key, o)), ...unshownExposures(overlaps, exposures).map((b) => exposure(key, b))];
}

/** Stale unlocks behind a key's violation (checkers/stale-unlock.ts), for any lock model. */
export function staleUnlocks(model: Model<any>, key: string, ops: readonly Op[], backend?: Backend): Anomaly[] {
  const { beliefs, missteps } = scanKey(ops, model === reentrantMutex);
  const named = new Set(missteps.filter((m) => m.kind === 'stale-release').map((m) => m.op.id));
  return findStaleUnlocks(key, beliefs, named, backend);
}
