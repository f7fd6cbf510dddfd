// The lease outlived: a client stops while it holds (in its critical section, or just before its
// write, after its last look at the validity its lock reported) for longer than the lease, while
// a second client waits for the lock; the lease runs out, the second client gets the lock and
// still holds it when the first wakes. Kleppmann's GC pause, aimed: a lock that reports no
// validity leaves the first client believing it holds (a double holder), and so does one that
// reports a validity it does not keep (measured on the wrong clock, the time spent acquiring not
// counted); a careful client of an honest lock stops when its validity runs out, and a fenced
// resource rejects the late write. Leased locks only: a session lock's server keeps a paused
// client's hold while its session lives (the session-expiry-in-hold aim cuts its link instead).
import fc from 'fast-check';
import { leaseGoneMs, leaseShare, pauseFirst, type Aim } from '../aim.ts';
import type { WorkloadOptions } from '../workload-options.ts';
import { BEFORE_WRITE, CRITICAL_SECTION } from '../plan.ts';
import { allowsPoint } from '../points.ts';

/** The points inside a hold the points list allows (no list: the critical section). */
const holdPoints = (o: WorkloadOptions) => [CRITICAL_SECTION, BEFORE_WRITE].filter((p) => allowsPoint(o.points, p));

export const leaseOutlived: Aim = {
  name: 'lease-outlived',
  summary: 'a client stops while it holds, past its lease, while a second client waits; the second gets the lock and holds it when the first wakes',
  kinds: ['client-pause'],
  applies: (o) => o.clients >= 2 && o.leased !== false && o.sessionMs === undefined && holdPoints(o).length > 0,
  weight: 1,
  plan: (o) => {
    const ttl = o.ttlMs;
    const gone = leaseGoneMs(o);
    // The second client comes while the first holds and waits out its lease; it holds past the first one's waking.
    return pauseFirst(o, holdPoints(o), gone + ttl, {
      d1: leaseShare(ttl, 0, 1 / 8),
      h1: leaseShare(ttl, 1 / 16, 1 / 8),
      // Past the lease, and over while the second client still holds (it got the lock when the lease ran out).
      pause: fc.integer({ min: gone + Math.floor(ttl / 8), max: gone + Math.floor((2 * ttl) / 5) }),
      come: leaseShare(ttl, 1 / 8, 1 / 2),
      h2: leaseShare(ttl, 1 / 2, 0.7),
    });
  },
};
