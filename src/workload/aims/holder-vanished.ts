// The holder vanished: c1 holds a lock that lives in its server session (WorkloadOptions.leased
// false: an advisory lock, GET_LOCK, an open transaction) when its link goes silent (a black
// hole: no FIN, no RST ever reaches the server) and then it dies, as a host that loses its
// network and power does. The server keeps the session, and the lock with it, until TCP
// keepalive gives up (two hours by default): c2, waiting all along, never gets it. A liveness
// failure (--property liveness); a server that ends idle or unanswering sessions sooner
// (idle_session_timeout, tcp_keepalives_idle) frees the lock within the bound. Not where the
// session itself times out while the client is silent (ZooKeeper: o.sessionMs), nor on leases.
import fc from 'fast-check';
import { firstThenSecond, leaseShare, type Aim } from '../aim.ts';
import type { RunPlan } from '../plan.ts';
import { CRITICAL_SECTION } from '../plan.ts';
import { allowsPoint } from '../points.ts';

export const holderVanished: Aim = {
  name: 'holder-vanished',
  summary: 'a client holding a session lock is cut off by a black hole and dies; its server session, and the lock, outlive it while a second client waits',
  kinds: ['partition', 'client-kill'],
  applies: (o) => o.clients >= 2 && o.leased === false && o.sessionMs === undefined && allowsPoint(o.points, CRITICAL_SECTION),
  weight: 1,
  plan: (o) => {
    const ttl = o.ttlMs;
    return fc.record({
      d1: leaseShare(ttl, 0, 1 / 8),
      // c2 comes while c1 holds, before c1 dies; c1 dies once it surely holds and is cut off.
      come: leaseShare(ttl, 1 / 4, 7 / 16),   // strictly before the earliest death (1/2)
      kill: leaseShare(ttl, 1 / 2, 3 / 4),
      // c2 waits past the liveness bound (2 leases) counted from c1's death; the cut outlasts its wait.
      w2: leaseShare(ttl, 3, 4),
    }).map(({ d1, come, kill, w2 }): RunPlan => firstThenSecond(o, { d1, w1: ttl, h1: 5 * ttl, come, w2, h2: Math.floor(ttl / 4) }, [
      { kind: 'partition', at_ms: 0, duration_ms: come + w2 + ttl, target: 'client:c1', params: { point: CRITICAL_SECTION, mode: 'blackhole' } },
      { kind: 'client-kill', at_ms: d1 + kill, target: 'c1' },
    ]));
  },
};
