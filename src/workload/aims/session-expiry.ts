// A session lost inside a hold: c1 locks, then is cut from every server in its
// critical section for longer than its session lives and works on, not knowing (a
// lock without a lease holds through the cut). The servers end its session and the
// lock with it (ZooKeeper expires the session and deletes its ephemeral node; MySQL
// and PostgreSQL end a session whose connection closed, with its row and advisory
// locks); c2, waiting all along, is granted the lock while c1 still believes it holds.
// A client that ignores Disconnected (onDisconnect=ignore) is a double holder; the
// careful one checks its session every TTL/3 in its hold and gives the hold up at the
// cut. Session locks only (not leased: TopologyDef.leased, LockRecipe.lease). The
// timescale is the session timeout the recipe asks for (o.sessionMs: ZooKeeper's), so
// the session expires inside the hold whatever --lock-opt sessionTimeoutMs is; a
// server that ends a session when its connection closes has none (0).
import fc from 'fast-check';
import { leaseShare, type Aim } from '../aim.ts';
import type { WorkloadOptions } from '../workload-options.ts';
import { CRITICAL_SECTION, type RunPlan } from '../plan.ts';

/**
 * Past the session timeout, how long c1's cut (and c2's wait) lasts at least: ZooKeeper's leader
 * expires a session up to a tick (500 ms) after its timeout, a SQL server rolls back a closed
 * session's transaction, then c2 is notified or polls again; a loaded 2-core machine adds its own delays.
 */
export const EXPIRY_SLACK_MS = 1500;

export const sessionExpiry: Aim = {
  name: 'session-expiry-in-hold',
  summary: 'a client is cut from the servers in its critical section past its session timeout and works on; its session ends with the lock in it (an ephemeral node, a row lock, an advisory lock), and a waiting client gets the lock while it still believes it holds',
  kinds: ['partition'],
  applies: (o: WorkloadOptions) => o.leased === false && o.clients >= 2,
  plan: (o) => {
    const session = o.sessionMs ?? 0;
    const ttl = o.ttlMs;
    return fc.record({
      d1: fc.integer({ min: 0, max: 300 }),
      h1: leaseShare(ttl, 0, 1 / 4),
      // Past the session and its expiry slack, up to as much again: c2's grant lands inside it.
      cut: fc.integer({ min: session + EXPIRY_SLACK_MS, max: 2 * session + EXPIRY_SLACK_MS }),
      // c2 comes once c1 holds (an acquire is three round trips) and waits past c1's expiry.
      after: fc.integer({ min: 400, max: 1000 }),
      w2: fc.integer({ min: session + EXPIRY_SLACK_MS, max: 2 * session + EXPIRY_SLACK_MS }),
      h2: leaseShare(ttl, 0, 1 / 4),
    }).map(({ d1, h1, cut, after, w2, h2 }): RunPlan => {
      // A session lock's careful client renews (checks its session) all through a hold.
      const renew = o.renew === true;
      const attempts = [
        [{ key: 'k0', delayMs: d1, waitMs: 1000, holdMs: h1, renew }],
        [{ key: 'k0', delayMs: d1 + after, waitMs: w2, holdMs: h2, renew }],
      ];
      return {
        ttlMs: ttl,
        clients: Array.from({ length: o.clients }, (_, i) => ({ attempts: attempts[i] ?? [] })),
        // From the start, the first time c1 is in its critical section: every link of c1 cut for `cut` ms.
        faults: [{ kind: 'partition', at_ms: 0, duration_ms: cut, target: 'client:c1', params: { point: CRITICAL_SECTION } }],
      };
    });
  },
};
