// Redis Sentinel: replication is cut, c1 locks on the primary alone (the key
// is never copied), the primary goes away, Sentinel promotes a replica that
// never saw the key, and c2 locks on it while c1 still holds. The timescale
// comes from Sentinel's own settings (src/env/redis.ts): a promotion takes
// down-after + an election (measured here 1.9–6.6 s), so the lease and c1's
// hold must outlast it; with the default 800 ms lease no hold can.
import fc from 'fast-check';
import { promotionWithin, SENTINEL_DOWN_AFTER_MS, SENTINEL_FAILOVER_TIMEOUT_MS } from '../../env/redis.ts';
import type { Aim } from '../aim.ts';
import type { WorkloadOptions } from '../workload-options.ts';
import type { RunPlan } from '../plan.ts';

/** Longest promotion planned for with this project's Sentinel settings (src/env/redis.ts), when none were read at start. */
export const PROMOTION_MS = promotionWithin(SENTINEL_DOWN_AFTER_MS, SENTINEL_FAILOVER_TIMEOUT_MS);
/** A lease that outlasts the lead, a promotion and c2's acquire: the timescale of this topology. */
export const failoverLeaseMs = (promotionMs: number) => 3000 + promotionMs + 4000;
export const FAILOVER_LEASE_MS = failoverLeaseMs(PROMOTION_MS);

export const sentinelFailover: Aim = {
  name: 'sentinel-failover-in-hold',
  summary: 'replication cut, a client locks on the primary alone, the primary goes away; a second client locks on the promoted replica while the first holds',
  kinds: ['failover'],
  applies: (o: WorkloadOptions) => o.topology === 'redis-sentinel' && o.clients >= 2,
  plan: (o) => {
    // Sized by what the Sentinels said at start (Timescales), else by this project's settings.
    const promotion = o.promotionMs ?? PROMOTION_MS;
    const ttl = o.ttlFixed ? o.ttlMs : Math.max(o.ttlMs, failoverLeaseMs(promotion));
    return fc.record({
      at: fc.integer({ min: 200, max: 1000 }),
      lead: fc.integer({ min: 1200, max: 3000 }),
      how: fc.constantFrom('kill', 'pause'),
      // c1 acquires after the cut and before the primary goes away.
      c1In: fc.double({ min: 0.2, max: 0.7, noNaN: true }),
      // c2 comes once a promotion is likely done, and keeps trying for a while.
      c2After: fc.integer({ min: Math.floor(promotion / 2), max: promotion }),
      w2: fc.integer({ min: 3000, max: 6000 }),
    }).map(({ at, lead, how, c1In, c2After, w2 }): RunPlan => {
      const d1 = at + Math.round(lead * c1In);
      const d2 = at + lead + c2After;
      // c1 holds until c2 has had its chance, within its lease (less a margin for the acquire itself).
      const h1 = Math.min(d2 + w2 - d1, ttl - 1000);
      return {
        ttlMs: ttl,
        clients: Array.from({ length: o.clients }, (_, i) => ({
          attempts: i === 0 ? [{ key: 'k0', delayMs: d1, waitMs: 1000, holdMs: h1, renew: false }]
            : i === 1 ? [{ key: 'k0', delayMs: d2, waitMs: w2, holdMs: 300, renew: false }] : [],
        })),
        faults: [{ kind: 'failover', at_ms: at, duration_ms: lead + c2After + w2, params: { how, cut_replication: true, lead_ms: lead } }],
      };
    });
  },
};
