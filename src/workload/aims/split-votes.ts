// Split the votes: the servers are split into two sides, each a bare majority or a bare minority
// (sized by the topology's quorum, floor(n/2) + 1), overlapping or not, and two clients, one on
// each side, contend for the lock during the cut. A correct quorum lock lets at most one of them
// in (any two majorities share a server, and a minority wins nothing); one that counts its
// quorum wrongly, counts unanswered votes, or keeps state on one side only lets both in. A random
// partition rarely puts two clients on different sides at the moment both acquire. Where the
// servers talk to each other (replication, an ensemble's quorum, Sentinel), their links across
// the sides are cut too, so this is also the classic split with a client in each half.
import fc from 'fast-check';
import { leaseShare, type Aim } from '../aim.ts';
import type { WorkloadOptions } from '../workload-options.ts';
import type { Attempt, RunPlan } from '../plan.ts';
import { grudgeText, type Grudge } from '../../../nemesis/grudge.ts';

const serversOf = (o: WorkloadOptions) => o.servers ?? o.nodes;

export const splitVotes: Aim = {
  name: 'split-votes',
  summary: 'two clients on the two sides of a split of the servers (each side a bare majority or minority), both acquiring during the cut',
  kinds: ['partition'],
  applies: (o) => serversOf(o).length >= 3 && o.clients >= 2,
  plan: (o) => {
    const servers = serversOf(o);
    const n = servers.length;
    const quorum = Math.floor(n / 2) + 1;
    const ttl = o.ttlMs;
    const side = fc.constantFrom(quorum - 1, quorum);
    return fc.record({
      order: fc.shuffledSubarray(servers, { minLength: n, maxLength: n }),
      a: side, b: side,
      blackhole: fc.boolean(),
      d: fc.tuple(leaseShare(ttl, 0, 1 / 8), leaseShare(ttl, 0, 1 / 8)),
      h: fc.tuple(leaseShare(ttl, 1 / 4, 1 / 2), leaseShare(ttl, 1 / 4, 1 / 2)),
      w: fc.tuple(leaseShare(ttl, 1 / 2, 2), leaseShare(ttl, 1 / 2, 2)),
    }).map(({ order, a, b, blackhole, d, h, w }): RunPlan => {
      const sideA = order.slice(0, a), sideB = order.slice(n - b);
      const g: Grudge = new Map();
      const cut = (x: string, ys: string[]) => { if (ys.length) g.set(x, new Set([...(g.get(x) ?? []), ...ys])); };
      cut('c1', servers.filter((s) => !sideA.includes(s)));
      cut('c2', servers.filter((s) => !sideB.includes(s)));
      if (o.peerLinks) for (const x of sideA.filter((s) => !sideB.includes(s))) cut(x, sideB.filter((s) => !sideA.includes(s)));
      // A session lock's careful client checks its session all through its hold (as in every plan).
      const attempt = (i: 0 | 1): Attempt => ({ key: 'k0', delayMs: d[i], waitMs: w[i], holdMs: h[i], renew: o.renew === true && o.sessionMs !== undefined });
      const horizon = Math.max(d[0] + w[0] + h[0], d[1] + w[1] + h[1]) + ttl;
      return {
        ttlMs: ttl,
        clients: Array.from({ length: o.clients }, (_, i) => ({ attempts: i < 2 ? [attempt(i as 0 | 1)] : [] })),
        faults: [{ kind: 'partition', at_ms: 0, duration_ms: horizon, target: 'grudge',
          params: { grudge: grudgeText(g), shape: 'halves', ...(blackhole ? { mode: 'blackhole' } : {}) } }],
      };
    });
  },
};

