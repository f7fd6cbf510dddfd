// The aims (./aim.ts): one file each in ./aims/, one line here.
import { kindsFilling, type Aim } from './aim.ts';
import type { WorkloadOptions } from './workload-options.ts';
import { leaseClockJump, leaseRestart } from './aims/lease-forgotten.ts';
import { redlockClock, redlockRestart } from './aims/redlock-split.ts';
import { lateGrant } from './aims/late-grant.ts';
import { sentinelFailover } from './aims/sentinel-failover.ts';
import { splitVotes } from './aims/split-votes.ts';
import { staleRelease } from './aims/stale-release.ts';
import { tornAcquire } from './aims/torn-acquire.ts';
import { interleavedAcquire } from './aims/interleaved-acquire.ts';
import { leaseOutlived } from './aims/lease-outlived.ts';
import { sessionExpiry } from './aims/session-expiry.ts';
import { skewedClock } from './aims/skewed-clock.ts';
import { holderVanished } from './aims/holder-vanished.ts';
import { keepaliveLapse } from './aims/keepalive-lapse.ts';
import { waiterLapse } from './aims/waiter-lapse.ts';
import { steppedValidity } from './aims/stepped-validity.ts';
import { steppedRelease } from './aims/stepped-release.ts';

export const AIMS: readonly Aim[] = [
  redlockRestart,
  redlockClock,
  sentinelFailover,
  staleRelease,
  sessionExpiry,
  leaseClockJump,
  leaseRestart,
  splitVotes,
  lateGrant,
  tornAcquire,
  interleavedAcquire,
  leaseOutlived,
  skewedClock,
  holderVanished,
  keepaliveLapse,
  waiterLapse,
  steppedValidity,
  steppedRelease,
];

/** The aims whose kinds were all asked for (each slot filled) and whose topology fits. */
export function aimsFor(o: WorkloadOptions): Aim[] {
  return AIMS.filter((a) => a.kinds.every((k) => kindsFilling(k, o.faults).length > 0) && a.applies(o));
}
