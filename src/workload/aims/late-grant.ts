// A late grant: the client stops inside its own acquire, after a server answered it and before
// the acquire returns (just after its k-th reply came in), for longer than the lease; a second
// client comes meanwhile and gets the lock once the lease ran out. When the first client's
// acquire returns it must know the grant is stale: a lock that reports its validity must count
// the time spent acquiring (Redlock's TTL − elapsed − drift), and a lock that reports none
// hands out a hold the server already dropped. Drawn where the lock is leased and its client's
// replies are points (src/runner/io-points.ts), k among those the calibration run reached.
import { leaseGoneMs, leaseShare, pauseFirst, type Aim } from '../aim.ts';
import type { WorkloadOptions } from '../workload-options.ts';
import { ioPointName, parseIoPoint } from '../plan.ts';

/** The learned reply points of an acquire ('reply:acquire:k'); with replies not learned ('reply': any), its first. */
function replyPoints(o: WorkloadOptions): string[] {
  // The first client acquires a free lock: only the replies a granted acquire got (calibration's
  // grantedAcquireReplies) are sure to come; a reply only a waiting acquire gets never fires.
  const granted = o.grantedAcquireReplies ?? Infinity;
  const learned = (o.points ?? []).filter((p) => { const io = parseIoPoint(p); return io?.kind === 'reply' && io.op === 'acquire' && io.n <= granted; });
  return learned.length || !o.points?.includes('reply') ? learned : [ioPointName('reply', 'acquire', 1)];
}

export const lateGrant: Aim = {
  name: 'late-grant',
  summary: "a client stops inside its acquire, after a server's answer and before it returns, past the lease; a second client gets the lock meanwhile",
  kinds: ['client-pause'],
  // Lease locks only: a session lock's server keeps a paused client's hold while the session lives.
  applies: (o) => o.clients >= 2 && o.sessionMs === undefined && replyPoints(o).length > 0,
  weight: 1,
  plan: (o) => {
    const ttl = o.ttlMs;
    const gone = leaseGoneMs(o);
    return pauseFirst(o, replyPoints(o), gone + ttl, {
      d1: leaseShare(ttl, 0, 1 / 8),
      pause: leaseShare(ttl, 1 / 4, 1 / 2).map((late) => gone + late),   // past the lease
      h1: leaseShare(ttl, 1 / 4, 1 / 2),
      come: leaseShare(ttl, 1 / 8, 1 / 2),
      h2: leaseShare(ttl, 1 / 2, 0.7),
    });
  },
};
