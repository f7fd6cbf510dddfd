// A torn acquire: the servers split under a client in the middle of its acquire (just after its
// k-th reply came in, among the replies a calibration run saw an acquire get), so what it does
// next (more votes, writing a fencing token back, confirming its grant) reaches only a minority;
// a second client, on the majority side, acquires once the first one's keys there have run out.
// A quorum lock that finishes an acquire on fewer servers than its quorum (a token written back
// to a minority, votes counted from a side it no longer reaches) hands the second client the
// same state again; a correct one gives the first client nothing it can use. A random partition
// almost never falls between two round trips of one acquire.
import fc from 'fast-check';
import { firstThenSecond, leaseShare, type Aim } from '../aim.ts';
import type { WorkloadOptions } from '../workload-options.ts';
import { parseIoPoint, type RunPlan } from '../plan.ts';
import { grudgeText, type Grudge } from '../../../nemesis/grudge.ts';

const serversOf = (o: WorkloadOptions) => o.servers ?? o.nodes;

/**
 * The acquire's learned reply points that every acquire of a free lock reaches (the calibration's
 * grantedAcquireReplies): a guessed k, or a reply only a waiting acquire gets, may never come.
 */
function acquireReplies(o: WorkloadOptions): string[] {
  const reached = o.grantedAcquireReplies ?? 0;
  return (o.points ?? []).filter((p) => { const io = parseIoPoint(p); return io?.kind === 'reply' && io.op === 'acquire' && io.n <= reached; });
}

export const tornAcquire: Aim = {
  name: 'torn-acquire',
  summary: 'the servers split under a client in the middle of its acquire (after its k-th reply); a second client acquires on the majority side',
  kinds: ['partition'],
  // Quorum systems whose acquire makes several round trips the hooks see.
  applies: (o) => serversOf(o).length >= 3 && o.clients >= 2 && acquireReplies(o).length >= 2,
  weight: 1,
  plan: (o) => {
    const servers = serversOf(o);
    const n = servers.length;
    const quorum = Math.floor(n / 2) + 1;
    const ttl = o.ttlMs;
    return fc.record({
      point: fc.constantFrom(...acquireReplies(o)),
      order: fc.shuffledSubarray(servers, { minLength: n, maxLength: n }),
      // The majority side the first client loses (at least a quorum, never every server).
      lost: fc.integer({ min: quorum, max: n - 1 }),
      mode: fc.constantFrom<Record<string, string>>({}, { mode: 'blackhole' }, { mode: 'drop-replies' }),
      d1: leaseShare(ttl, 0, 1 / 8),
      h1: leaseShare(ttl, 1 / 4, 1 / 2),
      come: leaseShare(ttl, 1 / 8, 1 / 2),
      h2: leaseShare(ttl, 1 / 4, 1 / 2),
    }).map(({ point, order, lost, mode, d1, h1, come, h2 }): RunPlan => {
      const majority = order.slice(0, lost), minority = order.slice(lost);
      const g: Grudge = new Map([['c1', new Set(majority)], ['c2', new Set(minority)]]);
      if (o.peerLinks) for (const x of minority) g.set(x, new Set(majority));
      // The second client waits out the first one's leases on the majority side.
      return firstThenSecond(o, { d1, w1: ttl, h1, come, w2: 3 * ttl, h2 }, [{ kind: 'partition', at_ms: 0, duration_ms: d1 + come + 3 * ttl + h2 + ttl,
        target: 'grudge', params: { grudge: grudgeText(g), shape: 'halves', ...mode }, anchor: { client: 'c1', point } }]);
    });
  },
};
