// The O(n log n) decision procedure for owner-aware lock models (mutex, fenced-mutex,
// reentrant-mutex), exact, not a heuristic: it gives the same verdict as the Wing–Gong–Lowe search
// with the models of checkers/models/mutex.ts plus the double-holder scan (property-tested).
// Why it is exact (HISTORY.md, note for checker authors, and "What the server holds"):
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
import { findOverlaps, scanKey } from './holds.ts';
import { doubleHolder, misstep, staleToken } from './messages.ts';
import { findStaleUnlocks } from './stale-unlock.ts';
import { fencedMutex, mutex, reentrantMutex } from './models/mutex.ts';
import { tokenGreater, tokenOf } from './values.ts';

export type Sweep = (key: string, ops: readonly Op[], backend?: Backend) => Anomaly[];

function lockSweep(opts: { reentrant: boolean; tokens: boolean }): Sweep {
  return (key, ops, backend) => {
    const { beliefs, missteps, grants } = scanKey(ops, opts.reentrant);
    const anomalies = findOverlaps(beliefs).map((o) => doubleHolder(key, o));
    for (const m of missteps) anomalies.push(misstep(key, m, backend));
    if (opts.tokens) anomalies.push(...tokenAnomalies(key, grants));
    return anomalies.sort((a, b) => (a.lines[0] ?? 0) - (b.lines[0] ?? 0));
  };
}

/** Tokens must grow in acquire-completion order (the linearization order of holds); grants come in that order. */
function tokenAnomalies(key: string, acquires: Op[]): Anomaly[] {
  const out: Anomaly[] = [];
  let best: { op: Op; t: bigint | number } | undefined;
  for (const op of acquires) {
    const t = tokenOf(op.value);
    if (t === undefined) continue;
    if (best && !tokenGreater(t, best.t)) out.push(staleToken(key, best.op, op, best.t, t));
    else best = { op, t };
  }
  return out;
}

/** Models decided by a sweep, by identity: a user model registered under the same name gets the search. */
export const SWEEPS = new Map<Model<any>, Sweep>([
  [mutex, lockSweep({ reentrant: false, tokens: false })],
  [fencedMutex, lockSweep({ reentrant: false, tokens: true })],
  [reentrantMutex, lockSweep({ reentrant: true, tokens: false })],
]);

/**
 * The double-holder scan alone (overlapping beliefs), for lock models decided by search
 * (knossos-mutex, user models). reentrant: a process's nested acquires need as many releases.
 */
export function doubleHolderScan(key: string, ops: readonly Op[], reentrant = false): Anomaly[] {
  return findOverlaps(scanKey(ops, reentrant).beliefs).map((o) => doubleHolder(key, o));
}

/** Stale unlocks behind a key's violation (checkers/stale-unlock.ts), for any lock model. */
export function staleUnlocks(model: Model<any>, key: string, ops: readonly Op[], backend?: Backend): Anomaly[] {
  const { beliefs, missteps } = scanKey(ops, model === reentrantMutex);
  const named = new Set(missteps.filter((m) => m.kind === 'stale-release').map((m) => m.op.id));
  return findStaleUnlocks(key, beliefs, named, backend);
}
