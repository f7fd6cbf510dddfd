// A lease judged on a skewed client clock: while c1 holds, c2 waits with its wall clock
// ahead of c1's by more than the lease (or c1 took the lock with its clock behind), so that
// in c2's eyes the lease has run out while c1 still works. A lock that decides expiry by a
// client's clock (an expiry timestamp written by the holder and compared by the waiter,
// a validity computed on the wall clock) hands the lock to c2: a double holder. A lock whose
// server alone decides expiry (PX, sessions, leases) ignores client clocks and stays safe.
// A random plan skews a client at a time that often falls when nobody holds or nobody waits.
import fc from 'fast-check';
import { firstThenSecond, leaseShare, type Aim } from '../aim.ts';
import type { FaultSpec } from '../../../nemesis/types.ts';

export const skewedClock: Aim = {
  name: 'skewed-clock',
  summary: "a waiting client's wall clock runs ahead of the holder's by more than the lease (or the holder's runs behind) while the holder works; the waiter judges the lease over",
  kinds: ['client-clock'],
  applies: (o) => o.clients >= 2,
  plan: (o) => {
    const ttl = o.ttlMs;
    const skew = fc.integer({ min: ttl + 100, max: 4 * ttl });
    return fc.record({
      d1: leaseShare(ttl, 0, 1 / 4),
      h1: leaseShare(ttl, 1 / 2, 0.7),   // inside the lease, as every plan's holds
      come: fc.integer({ min: 30, max: Math.floor(ttl / 4) }),
      skew,
      // The waiter ahead from just after c1's grant, or the holder behind from before its acquire.
      who: fc.constantFrom<'waiter-ahead' | 'holder-behind'>('waiter-ahead', 'holder-behind'),
    }).map(({ d1, h1, come, skew: delta, who }) => {
      const fault: FaultSpec = who === 'waiter-ahead'
        ? { kind: 'client-clock', at_ms: d1 + Math.floor(come / 2), duration_ms: 2 * ttl, target: 'c2', params: { delta_ms: delta } }
        : { kind: 'client-clock', at_ms: 0, duration_ms: d1 + h1 + ttl, target: 'c1', params: { delta_ms: -delta } };
      return firstThenSecond(o, { d1, w1: ttl, h1, come, w2: 2 * ttl, h2: Math.floor(ttl / 8) }, [fault]);
    });
  },
};
