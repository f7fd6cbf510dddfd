// A semaphore's door: the aims draw their plans for one holder (c1) and one client who comes
// after it (c2), which is the whole crowd for a mutex. A semaphore of N permits lets c2 in beside
// c1 by design, so what breaks it needs N + 1 clients at the door at once: here N − 1 more
// clients take a permit each from the start and hold it through the whole plan, so c1 takes the
// last one and c2 finds the semaphore full, as a mutex's waiter finds the lock held. A fault on
// c1 that lets c2 in then shows as N + 1 holders. Plain data: the fillers shrink away like any
// other client's attempts.
import type { Attempt, RunPlan } from './plan.ts';
import { planHorizonMs } from './plan.ts';
import type { WorkloadOptions } from './workload-options.ts';

/** The plan with N − 1 clients holding a permit each all through it (idle clients only); unchanged for any other lock, or too few clients. */
export function crowded(o: WorkloadOptions, plan: RunPlan): RunPlan {
  const n = o.semaphore?.limit ?? 1;
  const idle = plan.clients.map((c, i) => (i >= 2 && c.attempts.length === 0 ? i : -1)).filter((i) => i >= 0);
  if (n < 2 || idle.length < n - 1) return plan;
  const span = planHorizonMs(plan);
  const keys = [...new Set(plan.clients.flatMap((c) => c.attempts.map((a) => a.key)))];
  // A leased lock's filler keeps its permit by renewing (or its own keep-alive); with neither it holds inside the lease.
  const renew = o.renew === true && !o.keepsAlive;
  const holdMs = o.leased === false || renew || o.keepsAlive ? span : Math.floor(o.ttlMs * 0.8);
  const filler: Attempt = { key: keys[0] ?? 'k0', delayMs: 0, waitMs: o.ttlMs, holdMs, renew };
  const fill = new Set(idle.slice(0, n - 1));
  return { ...plan, clients: plan.clients.map((c, i) => (fill.has(i) ? { attempts: [filler] } : c)) };
}

/**
 * A random plan with every busy client's first attempt at the door at time 0: with as many clients
 * as a semaphore has permits and one more, one of them waits (a random plan's spread-out delays
 * rarely bring N + 1 together). Its holds stay the plan's own.
 */
export function atTheDoor(plan: RunPlan): RunPlan {
  return { ...plan, clients: plan.clients.map((c) => ({ attempts: c.attempts.map((a, i) => (i === 0 ? { ...a, delayMs: 0 } : a)) })) };
}
