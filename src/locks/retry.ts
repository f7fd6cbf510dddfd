// The polling loop most Redis recipes use while the lock is taken: try, and if
// the wait budget (measured on the monotonic clock) allows, sleep and try again.
import type { LockContext } from './lock.ts';
import { isDefinite } from './outcome.ts';

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Calls `attempt` until it returns a value or `waitMs` is spent. An attempt whose
 * command certainly did not happen counts as a miss; any other error is thrown
 * (the acquire's outcome is unknown).
 */
export async function pollAcquire<T>(ctx: LockContext, waitMs: number, retryMs: number, attempt: () => Promise<T | null>): Promise<T | null> {
  const start = ctx.clock.monoMs();
  for (;;) {
    try {
      const got = await attempt();
      if (got !== null) return got;
    } catch (err) {
      if (!isDefinite(err)) throw err;
    }
    const left = waitMs - (ctx.clock.monoMs() - start);
    if (left <= 0) return null;
    await sleep(Math.min(retryMs, left));
  }
}
