// A late release judged on a stepped clock: the stale-release plan (c1 stops inside its release
// past its lease; c2 takes the lock; c1 wakes while c2 holds; c3 waits) with c1's wall clock
// stepped back, after its acquire and before it wakes, by more than its pause, so by its own
// clock its lease still stands when it wakes. A lock whose unlock trusts its holder's clock ("not
// expired yet: the key is still mine", then a plain delete) removes c2's key and c3 gets in: a
// double holder. One whose unlock the server checks (compare-and-delete) stays safe. Two faults
// in one plan, which no random draw lines up. The step is timed (a quarter to half a lease after
// c1 comes: its acquire of the free lock is done, its pause not over), so it needs no point of its
// own and lands as well while c1 is stopped (it reads the new clock as it wakes).
import fc from 'fast-check';
import { leaseShare, type Aim } from '../aim.ts';
import type { RunPlan } from '../plan.ts';
import { staleRelease } from './stale-release.ts';

export const steppedRelease: Aim = {
  name: 'stepped-release',
  summary: "a client whose wall clock steps back while it holds stops inside its release past its lease; by its clock the lease still stands, and its late unlock frees the next holder's lock for a third client",
  kinds: ['client-pause', 'client-clock'],
  applies: (o) => staleRelease.applies(o),
  weight: 1,
  plan: (o) => {
    const ttl = o.ttlMs;
    return fc.tuple(staleRelease.plan(o), leaseShare(ttl, 1 / 4, 1 / 2), leaseShare(ttl, 1 / 4, 1 / 2)).map(([plan, after, extra]): RunPlan => {
      const pause = plan.faults[0]!.duration_ms ?? ttl;
      const d1 = plan.clients[0]!.attempts[0]!.delayMs;
      return {
        ...plan,
        faults: [...plan.faults, { kind: 'client-clock', at_ms: d1 + after, duration_ms: pause + ttl, target: 'c1', params: { delta_ms: -(pause + extra) } }],
      };
    });
  },
};
