// A waiter's lease lapses while it waits: c1 holds; c2 comes and waits (its acquire polls, or
// re-reads the queue) and stops just before a command only a waiting acquire sends, for longer
// than its lease, so the server drops whatever c2 had claimed (its queue entry, its lease);
// c1 releases meanwhile and c3 comes shortly before c2 wakes and holds the lock then. A lock
// that takes "nothing older than my claim is left" for its turn, without checking that its claim
// itself is still there (Go's etcd Mutex before it watched its session), hands c2 the lock while
// c3 holds it: a double holder. A correct one finds its claim gone and waits or gives up. The
// lease-outlived aim pauses a holder; this one a waiter, where no hold is at stake, so the
// correct lock has nothing to lose. Leased locks only, whose waiting acquire sends something a
// free lock's acquire does not (learned: acquire sends beyond grantedAcquireSends).
import fc from 'fast-check';
import { attempt, leaseGoneMs, leaseShare, type Aim } from '../aim.ts';
import type { WorkloadOptions } from '../workload-options.ts';
import { parseIoPoint, type RunPlan } from '../plan.ts';

/** The learned sends of an acquire that only a waiting one reaches (beyond what a free lock's acquire sends). */
function waitingSends(o: WorkloadOptions): string[] {
  const granted = o.grantedAcquireSends;
  if (granted === undefined) return [];
  return (o.points ?? []).filter((p) => { const io = parseIoPoint(p); return io?.kind === 'send' && io.op === 'acquire' && io.n > granted; });
}

export const waiterLapse: Aim = {
  name: 'waiter-lapse',
  summary: "a waiting client stops past its lease; the holder releases and a third client takes the lock; the waiter wakes while it holds",
  kinds: ['client-pause'],
  applies: (o) => o.clients >= 3 && o.leased !== false && o.sessionMs === undefined && waitingSends(o).length > 0,
  weight: 1,
  plan: (o) => {
    const ttl = o.ttlMs;
    const gone = leaseGoneMs(o);
    return fc.record({
      point: fc.constantFrom(...waitingSends(o)),
      d1: leaseShare(ttl, 0, 1 / 8),
      // c2 comes soon after c1 and starts waiting. A waiting acquire's send may be a poll (soon
      // after c2 comes) or its look once the holder's key is gone (at c1's release): c1 releases
      // soon after c2 comes, so c2 falls asleep within an eighth of a lease of its coming either way.
      come: leaseShare(ttl, 1 / 16, 1 / 4),
      h1: leaseShare(ttl, 1 / 16, 1 / 8),
      // Two to three leases, and past the lapse however late the servers act on it (leaseGoneMs):
      // the lease runs out (up to a lease after its last renewal) and a server that drops expired
      // claims on a timer of its own has done so before c3 comes, so c2 never wakes to a claim
      // that lapsed but still stands (that race is the holder's, not the waiter's).
      pause: leaseShare(ttl, 2, 3).map((p) => Math.max(p, gone + Math.ceil((7 * ttl) / 16) + p - 2 * ttl)),
      // c3 comes this long before c2 wakes and holds past its waking, within its own lease (every
      // hold here fits in one lease: a hold past it breaks a lock that does not keep its lease alive).
      // At most 5/16: c3 must still come after c2's lease is surely gone, however late c2 fell asleep
      // (at c1's release at the latest, an eighth of a lease after its coming; pause ≥ gone + 7/16).
      before: leaseShare(ttl, 1 / 8, 5 / 16),
      // Past c2's latest waking: `before` plus the eighth of a lease c2 may have fallen asleep late, with room to spare.
      h3: leaseShare(ttl, 0.6, 0.7),
    }).map(({ point, d1, come, h1, pause, before, h3 }): RunPlan => {
      const attempts = [[attempt(d1, ttl, come + h1)], [attempt(d1 + come, pause + 2 * ttl, Math.floor(ttl / 8))], [attempt(d1 + come + pause - before, ttl, h3)]];
      return {
        ttlMs: ttl,
        clients: Array.from({ length: o.clients }, (_, i) => ({ attempts: attempts[i] ?? [] })),
        faults: [{ kind: 'client-pause', at_ms: 0, duration_ms: pause, target: 'c2', params: { point } }],
      };
    });
  },
};
