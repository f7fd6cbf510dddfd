// A stale unlock that lets a third client in (the three-unlocks post's GET-compare-DEL, a
// plain DEL after a pause): c1 holds briefly, then stops inside its release
// (after its compare, or just before a command goes out) for longer than what
// is left of its lease; the lease runs out, c2 takes the lock; c1 wakes while
// c2 holds and its DEL removes c2's key; c3, waiting all along, takes the lock
// while c2 still holds: a double holder. Three events that must line up in
// time, where a random plan rarely holds c2 long enough or keeps c3 waiting.
// In half the plans c3 comes just after c1 wakes instead: an unlock that deletes
// more than the holder's key (a queue's entries with it) leaves no waiter to take
// over, and only a client that comes after it finds the lock free.
// A lock whose unlock checks and deletes atomically (a Lua script) stays safe
// under the same plans.
import fc from 'fast-check';
import { leaseGoneMs, leaseShare, type Aim } from '../aim.ts';
import type { WorkloadOptions } from '../workload-options.ts';
import { BEFORE_WRITE, CRITICAL_SECTION, parseIoPoint, type Attempt, type RunPlan } from '../plan.ts';
import { expandIoPoints, ioPointsOf, namedPointsOf } from '../points.ts';

/**
 * Where c1 can stop inside its release: the recipe's own points and, with I/O points, before each
 * command of its release: those a calibration run saw a release send (a one-command release has
 * only 'send:release:1'), or the first three when the points were not learned.
 */
function releasePoints(o: WorkloadOptions): string[] {
  const named = namedPointsOf(o.points ?? []).filter((p) => p !== CRITICAL_SECTION && p !== BEFORE_WRITE);
  const io = expandIoPoints(ioPointsOf(o.points)).filter((p) => {
    const io = parseIoPoint(p);
    return io?.kind === 'send' && io.op === 'release';
  });
  return [...named, ...io];
}

export const staleRelease: Aim = {
  name: 'stale-release',
  summary: "a client stops inside its release until its lease has run out and the next holder holds; its late delete frees that holder's lock for a third client",
  kinds: ['client-pause'],
  // Lease locks only: a session lock (ZooKeeper) keeps a paused client's hold while its session lives.
  applies: (o) => o.clients >= 3 && o.sessionMs === undefined && releasePoints(o).length > 0,
  // Half the client-pause plans stay uniformly random: a pause in the critical section is what breaks most locks.
  weight: 1,
  plan: (o) => {
    const ttl = o.ttlMs;
    const gone = leaseGoneMs(o);
    // A lock that keeps its lease alive renews it about every third of a lease, so c1's lease
    // runs out between two thirds of a lease and a whole one (plus the servers' lag) into its
    // pause: the next holder then holds that much longer, to be still holding when c1 wakes
    // (such a lock keeps c2's lease alive too; any other keeps each hold within its own lease).
    const spread = o.keepsAlive ? Math.floor(ttl / 3) + (o.leaseLagMs ?? 0) : 0;
    const hold = fc.integer({ min: Math.floor(ttl / 2) + spread, max: Math.floor(0.7 * ttl) + spread });
    return fc.record({
      point: fc.constantFrom(...releasePoints(o)),
      d1: fc.integer({ min: 0, max: Math.floor(ttl / 8) }),
      h1: fc.integer({ min: 0, max: Math.floor(ttl / 4) }),
      // How far past c1's lease it wakes: after the next holder's acquire (a 50 ms poll), inside its hold.
      late: fc.integer({ min: Math.floor(ttl / 8), max: Math.floor((3 * ttl) / 8) }),
      // c2 and c3 come while c1 holds and wait past its lease; whichever gets the lock first holds past c1's waking.
      come: fc.tuple(fc.integer({ min: Math.floor(ttl / 4), max: Math.floor((3 * ttl) / 4) }), fc.integer({ min: Math.floor(ttl / 4), max: Math.floor((3 * ttl) / 4) })),
      holds: fc.tuple(hold, hold),
      // Or c3 comes this long after c1 wakes (c1 wakes about a lease plus `late` after it locked), inside c2's hold.
      after: fc.option(leaseShare(ttl, 1 / 16, 1 / 8), { freq: 2 }),
    }).map(({ point, d1, h1, late, come, holds, after }): RunPlan => {
      const a1: Attempt = { key: 'k0', delayMs: d1, waitMs: ttl, holdMs: h1, renew: false };
      const waiter = (i: 0 | 1): Attempt => ({ key: 'k0', delayMs: d1 + come[i], waitMs: gone + ttl, holdMs: holds[i], renew: false });
      const comer: Attempt = { key: 'k0', delayMs: d1 + gone + late + (after ?? 0), waitMs: ttl, holdMs: holds[1], renew: false };
      const attempts = [[a1], [waiter(0)], [after === null ? waiter(1) : comer]];
      return {
        ttlMs: ttl,
        clients: Array.from({ length: o.clients }, (_, i) => ({ attempts: attempts[i] ?? [] })),
        // From the start, the first time c1 reaches the point (its release): asleep past its lease by `late`.
        faults: [{ kind: 'client-pause', at_ms: 0, duration_ms: gone - h1 + late, target: 'c1', params: { point } }],
      };
    });
  },
};
