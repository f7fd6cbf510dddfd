// Did the test test anything? (Jepsen's `stats` checker: a test whose operations
// never succeeded is not valid.) From one run's events, in real-time order:
// acquires that succeeded, holds the client ended by releasing, and acquires that
// met another client's hold on the same key (contention: a hold that existed when the
// acquire was invoked, or one that began while it waited) and got a definite answer. A SAFE
// verdict needs all three to be non-zero somewhere in the search. A waiter that raised or
// never answered did not show how the lock treats a waiter, so it is counted apart.
import type { HistoryEvent } from '../src/history/types.ts';

export interface LockStats {
  acquires: number;          // acquire invokes (first acquires, not re-entries)
  okAcquires: number;        // of them, ok
  released: number;          // holds ended by a release the client invoked (not a lapse, not the end)
  contended: number;         // acquires that met another process's hold on the key while they were pending, and ended ok or fail
  unansweredWaiters: number; // acquires that met such a hold and got no definite answer (info, or none by the end)
  /** Acquire and renew oks that reported the lock's validity (`valid_ms`), and of them those checked against their lease (`lease_ms` and `sent_ms` too: checkers/validity.ts). */
  validityReported?: number;
  validityChecked?: number;
}

export const emptyStats = (): LockStats => ({ acquires: 0, okAcquires: 0, released: 0, contended: 0, unansweredWaiters: 0 });

export function addStats(into: LockStats, s: LockStats): LockStats {
  into.acquires += s.acquires;
  into.okAcquires += s.okAcquires;
  into.released += s.released;
  into.contended += s.contended;
  into.unansweredWaiters += s.unansweredWaiters ?? 0;   // a stored LockStats from before it was counted
  if (s.validityReported) {
    into.validityReported = (into.validityReported ?? 0) + s.validityReported;
    into.validityChecked = (into.validityChecked ?? 0) + (s.validityChecked ?? 0);
  }
  return into;
}

const isLapse = (v: unknown) => typeof v === 'object' && v !== null && (v as { lapse?: unknown }).lapse === true;

export function lockStats(events: readonly HistoryEvent[]): LockStats {
  const s = emptyStats();
  // key → processes that believe they hold it (acquire ok … release invoke), with their re-entry depth
  const holders = new Map<string, Map<number | string, number>>();
  const ending = new Set<string>();   // releases invoked that end a belief, until they complete
  // key → processes whose first acquire is pending and has met no hold yet
  const waiting = new Map<string, Set<number | string>>();
  // Pending first acquires that met a hold: counted when they end, by how they end.
  const met = new Set<string>();
  // A renew's lease is its own lease_ms, else its acquire's (checkers/validity.ts): process and key → the acquire's.
  const leases = new Map<string, number>();
  for (const e of events) {
    if (e.process === 'nemesis') continue;
    if (e.type === 'ok' && (e.f === 'acquire' || e.f === 'renew')) countValidity(s, e, leases);
    const key = e.key ?? '';
    let byKey = holders.get(key);
    if (!byKey) holders.set(key, (byKey = new Map()));
    const depth = byKey.get(e.process) ?? 0;
    const id = `${String(e.process)}\u0000${key}`;
    let pending = waiting.get(key);
    if (!pending) waiting.set(key, (pending = new Set()));
    if (e.f === 'acquire' && e.type === 'invoke' && depth === 0) {
      s.acquires++;
      if (byKey.size > 0) met.add(id);
      else pending.add(e.process);
    } else if (e.f === 'acquire' && e.type !== 'invoke' && depth === 0) {
      pending.delete(e.process);
      if (met.delete(id)) {
        if (e.type === 'info') s.unansweredWaiters++;
        else s.contended++;
      }
      if (e.type === 'ok') {
        s.okAcquires++;
        // Every acquire still waiting on this key now meets this hold (a grant during its wait).
        for (const p of pending) met.add(`${String(p)}\u0000${key}`);
        pending.clear();
        byKey.set(e.process, 1);
      }
    } else if (e.f === 'acquire' && e.type === 'ok') {
      byKey.set(e.process, depth + 1);
    } else if (e.f === 'release' && e.type === 'invoke' && depth > 0) {
      if (depth === 1) { byKey.delete(e.process); ending.add(id); } else byKey.set(e.process, depth - 1);
    } else if (e.f === 'release' && e.type !== 'invoke' && ending.delete(id)) {
      // Counted on completion: a lapse (invoke, then ok {lapse}) is not a release, nor is a failed one.
      if (e.type === 'ok' && !isLapse(e.value)) s.released++;
    }
  }
  s.unansweredWaiters += met.size;   // still waiting when the history ends
  return s;
}

const ms = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** An acquire or renew ok: whether it reported a validity, and whether that could be checked against its lease. */
function countValidity(s: LockStats, e: HistoryEvent, leases: Map<string, number>): void {
  const id = `${String(e.process)}\u0000${e.key ?? ''}`;
  const own = ms(e.lease_ms);
  if (e.f === 'acquire' && own !== undefined) leases.set(id, own);
  if (ms(e.valid_ms) === undefined) return;
  s.validityReported = (s.validityReported ?? 0) + 1;
  const lease = own ?? (e.f === 'renew' ? leases.get(id) : undefined);
  if (lease !== undefined && ms(e.sent_ms) !== undefined) s.validityChecked = (s.validityChecked ?? 0) + 1;
}
