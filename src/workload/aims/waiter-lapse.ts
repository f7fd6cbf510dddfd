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
import { attempt, leaseShare, type Aim } from '../aim.ts';
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
    return fc.record({
      point: fc.constantFrom(...waitingSends(o)),
      d1: leaseShare(ttl, 0, 1 / 8),
      // c2 comes soon after c1 and starts waiting: its pause lands at its first such send.
      come: leaseShare(ttl, 1 / 16, 1 / 4),
      h1: leaseShare(ttl, 1 / 2, 0.7),
      // Two to three leases: the lease runs out (up to a lease after its last renewal) and a server
      // that drops expired claims on a timer of its own has done so before c2 wakes, so c2 never
      // wakes to a claim that lapsed but still stands (that race is the holder's, not the waiter's).
      pause: leaseShare(ttl, 2, 3),
      // c3 comes this long before c2 wakes and holds past its waking, within its own lease (every
      // hold here fits in one lease: a hold past it breaks a lock that does not keep its lease alive).
      // At most 5/16: c3 must still come a lease after c1's release (come ≥ 1/16, pause ≥ 2, h1 ≤ 0.7 leases).
      before: leaseShare(ttl, 1 / 8, 5 / 16),
      h3: leaseShare(ttl, 1 / 2, 0.7),
    }).map(({ point, d1, come, h1, pause, before, h3 }): RunPlan => {
      const attempts = [[attempt(d1, ttl, h1)], [attempt(d1 + come, 4 * ttl, Math.floor(ttl / 8))], [attempt(d1 + come + pause - before, ttl, h3)]];
      return {
        ttlMs: ttl,
        clients: Array.from({ length: o.clients }, (_, i) => ({ attempts: attempts[i] ?? [] })),
        faults: [{ kind: 'client-pause', at_ms: 0, duration_ms: pause, target: 'c2', params: { point } }],
      };
    });
  },
};
