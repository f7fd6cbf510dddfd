// The keep-alives lapse: c1 takes a lock whose lease its client keeps alive (LockRecipe.keepsAlive)
// and holds it for several leases, as such locks allow; in its critical section its keep-alive
// connection is cut for as long as it holds, while its other traffic flows. The lease runs out at
// the server, c2, waiting all along, gets the lock, and c1 works on believing it holds: a double
// holder unless the lock gives the hold up when a keep-alive fails, or a fenced resource refuses
// c1's late write.
import fc from 'fast-check';
import { firstThenSecond, leaseShare, type Aim } from '../aim.ts';
import type { RunPlan } from '../plan.ts';
import { CRITICAL_SECTION } from '../plan.ts';
import { allowsPoint } from '../points.ts';

export const keepaliveLapse: Aim = {
  name: 'keepalive-lapse',
  summary: "a client holding a kept-alive lease for several leases has its keep-alives cut in its critical section; the lease lapses and a waiting client gets the lock",
  kinds: ['keepalive-cut'],
  applies: (o) => o.clients >= 2 && o.keepsAlive === true && allowsPoint(o.points, CRITICAL_SECTION),
  weight: 1,
  plan: (o) => {
    const ttl = o.ttlMs;
    return fc.record({
      d1: leaseShare(ttl, 0, 1 / 8),
      // Long enough for the lease to lapse (its last keep-alive up to a third of a lease before the cut) and c2 to get in.
      h1: leaseShare(ttl, 2, 3),
      come: leaseShare(ttl, 1 / 4, 1 / 2),
      h2: leaseShare(ttl, 1 / 4, 1 / 2),
    }).map(({ d1, h1, come, h2 }): RunPlan => firstThenSecond(o, { d1, w1: ttl, h1, come, w2: 3 * ttl, h2 }, [
      { kind: 'keepalive-cut', at_ms: 0, duration_ms: h1, target: 'c1', params: { point: CRITICAL_SECTION } },
    ]));
  },
};
