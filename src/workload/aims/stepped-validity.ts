// A validity measured across a clock step: c1's wall clock steps back while its acquire runs
// (just before one of its sends, or just after a reply: between the two readings a lock takes to
// learn how long acquiring took), then c1 works on until the validity its lock reported runs
// out, while c2 waits for the lock. A lock that measures that time on the wall clock reports the
// step as validity it does not have: c1 still believes it holds after its lease ran out and c2
// took the lock (a double holder). One that measures on a monotonic clock reports the truth and
// its careful client stops in time. Random clock faults land at random times and never inside
// an acquire (a few ms wide); this one anchors at the points an acquire of a free lock reaches
// (learned), or a recipe's own points. Leased locks that report a validity (learned: valid_ms
// in the calibration run) only: a hold past the lease breaks any lock that reports none.
import fc from 'fast-check';
import { firstThenSecond, leaseGoneMs, leaseShare, type Aim } from '../aim.ts';
import type { WorkloadOptions } from '../workload-options.ts';
import { WORKER_POINTS, type RunPlan } from '../plan.ts';
import { freeAcquirePoint } from '../../../nemesis/points.ts';
import { expandIoPoints, ioPointsOf, namedPointsOf } from '../points.ts';

/** An acquire's I/O points that an acquire of a free lock reaches (all learned ones when the counts are unknown), and the recipe's own points. */
export function acquirePoints(o: WorkloadOptions): string[] {
  const io = expandIoPoints(ioPointsOf(o.points)).filter((p) => freeAcquirePoint(p, { sends: o.grantedAcquireSends, replies: o.grantedAcquireReplies }));
  return [...io, ...namedPointsOf(o.points ?? []).filter((p) => !WORKER_POINTS.includes(p))];
}

export const steppedValidity: Aim = {
  name: 'stepped-validity',
  summary: "a client's wall clock steps back inside its acquire; it works until the validity its lock reported runs out while a second client waits: a validity measured on the wall clock outlasts the lease",
  kinds: ['client-clock'],
  applies: (o) => o.clients >= 2 && o.leased !== false && o.sessionMs === undefined && o.reportsValidity === true && !o.keepsAlive && acquirePoints(o).length > 0,
  plan: (o) => {
    const ttl = o.ttlMs;
    return fc.record({
      point: fc.constantFrom(...acquirePoints(o)),
      d1: leaseShare(ttl, 0, 1 / 8),
      // Back by more than c2 takes to get the lock once the lease ran out (a poll or two).
      back: leaseShare(ttl, 1 / 2, 2),
      come: leaseShare(ttl, 1 / 8, 1 / 2),
      h2: leaseShare(ttl, 1 / 2, 0.7),
    }).map(({ point, d1, back, come, h2 }): RunPlan => firstThenSecond(o,
      // c1 would work past whatever validity it was told (at most the lease plus the step): its validity ends its hold.
      { d1, w1: ttl, h1: ttl + back + Math.floor(ttl / 4), come, w2: leaseGoneMs(o) + ttl, h2 },
      // The step lasts past c1's hold, so nothing it measures is undone by the heal.
      [{ kind: 'client-clock', at_ms: 0, duration_ms: 2 * ttl + back, target: 'c1', params: { delta_ms: -back, point } }]));
  },
};
