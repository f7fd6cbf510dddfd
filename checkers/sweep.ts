// The O(n log n) decision procedure for owner-aware lock models (mutex, fenced-mutex,
// reentrant-mutex), exact, not a heuristic. Why it is exact (HISTORY.md, note for checker authors):
// - An info acquire never needs to take effect (taking effect only blocks); an info release by
//   the holder is best taken at its invoke; a release/renew ok needs its own process to hold the
//   lock, which depends only on that process's own earlier ops (only p's acquire makes p holder).
// - So each process's ops reduce to holds [acquire point, release point]. In any valid
//   linearization two holds h1 before h2 have h1's acquire complete before h2's (else h2's point
//   ≤ its completion < h1's completion < h1's release invoke ≤ h1's release point: overlap), so holds
//   are ordered by acquire completion, and each consecutive pair is independent: it fits iff the
//   first's release invoke comes before the second's acquire completion.
// - Valid iff no overlap of certain holds, no release/renew ok by a non-holder, no re-acquire
//   by the holder (mutex), and, for fenced-mutex, tokens grow in acquire-completion order.
import type { Op } from '../src/history/types.ts';
import type { Anomaly, Model } from './types.ts';
import { buildHolds, findOverlaps } from './holds.ts';
import { doubleHolder, misstep, staleToken } from './messages.ts';
import { fencedMutex, mutex, reentrantMutex } from './models/mutex.ts';
import { tokenGreater, tokenOf } from './values.ts';

export type Sweep = (key: string, ops: readonly Op[]) => Anomaly[];

function lockSweep(opts: { reentrant: boolean; tokens: boolean }): Sweep {
  return (key, ops) => {
    const { holds, missteps } = buildHolds(ops, opts.reentrant);
    const anomalies = findOverlaps(holds).map((o) => doubleHolder(key, o));
    for (const m of missteps) anomalies.push(misstep(key, m));
    if (opts.tokens) anomalies.push(...tokenAnomalies(key, holds.map((h) => h.acquire)));
    return anomalies.sort((a, b) => (a.lines[0] ?? 0) - (b.lines[0] ?? 0));
  };
}

/** Tokens must grow in acquire-completion order (the linearization order of holds). */
function tokenAnomalies(key: string, acquires: Op[]): Anomaly[] {
  const sorted = acquires.slice().sort((a, b) => a.completeSeq - b.completeSeq);
  const out: Anomaly[] = [];
  let best: { op: Op; t: bigint | number } | undefined;
  for (const op of sorted) {
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

/** The double-holder scan alone, for lock models decided by search (knossos-mutex, user models). */
export function doubleHolderScan(key: string, ops: readonly Op[]): Anomaly[] {
  return findOverlaps(buildHolds(ops).holds).map((o) => doubleHolder(key, o));
}
