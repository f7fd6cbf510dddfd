/**
 * redis-zset-semaphore — the counting semaphore most Redis write-ups give (a sorted set of
 * holders scored by when they came, trimmed by age), as a client runs it:
 *   MULTI
 *     ZREMRANGEBYSCORE sem -inf (now − ttl)     -- drop holders older than the lease, by MY clock
 *     ZADD sem now <id>                         -- my own timestamp
 *     ZRANK sem <id>
 *   EXEC
 *   rank < N → held; else ZREM sem <id> and try again.
 *   release: ZREM sem <id>; renew: ZADD sem XX now <id>.
 * `now` is the client's wall clock, so every client's clock decides every other's lease: one
 * whose clock runs ahead by more than the lease trims the live holders away and walks in
 * (`--faults client-clock`); one whose clock runs behind is trimmed while it still works.
 * redis-lua-semaphore is the fix (the server's TIME, an owner-checked release).
 */
import { randomBytes } from 'node:crypto';
import type { AcquireOptions, Held, LockContext, LockRecipe } from './lock.ts';
import { connectSingle, retryMs, SINGLE_NODE } from './single-node.ts';
import { pollAcquire } from './retry.ts';
import { rethrowClassified } from './outcome.ts';

const NAME = 'redis-zset-semaphore';
/** The permits of the registry's Redis semaphores: 2, so the default 3 clients are N + 1 at the door. */
export const SEMAPHORE_LIMIT = 2;

/** What the registry's one-node Redis semaphores declare alike: N permits, one a hold, leased, renewable. */
export const REDIS_SEMAPHORE = { ...SINGLE_NODE, model: 'semaphore', semaphore: { limit: SEMAPHORE_LIMIT }, fencing: false, lease: true, renews: true } as const;

/** A semaphore holder's id: the client and a fresh random part (one client holds one permit per acquire). */
export const holderId = (ctx: LockContext) => `${ctx.clientId}:${randomBytes(8).toString('hex')}`;

async function create(ctx: LockContext) {
  const r = await connectSingle(ctx, NAME);
  return {
    name: NAME,
    async acquire(key: string, o: AcquireOptions): Promise<Held | null> {
      const limit = o.limit ?? SEMAPHORE_LIMIT;
      const id = holderId(ctx);
      return pollAcquire(ctx, o.waitMs, retryMs(ctx, NAME), async () => {
        const now = ctx.clock.wallMs();
        const res = await r.multi().zremrangebyscore(key, '-inf', `(${now - o.ttlMs}`).zadd(key, now, id).zrank(key, id).exec();
        const rank = res?.[2]?.[1];
        if (typeof rank === 'number' && rank < limit) return { key, id };
        await r.zrem(key, id);
        return null;
      });
    },
    async release(h: Held): Promise<'released' | 'lost'> {
      try {
        return Number(await r.zrem(h.key, String(h.id))) === 1 ? 'released' : 'lost';
      } catch (err) {
        rethrowClassified(err, `${NAME} release ${h.key}`);
      }
    },
    async renew(h: Held): Promise<'renewed' | 'lost'> {
      try {
        // XX: only a member still there is moved to now (CH counts it); gone, the permit is lost.
        return Number(await r.zadd(h.key, 'XX', 'CH', ctx.clock.wallMs(), String(h.id))) === 1 ? 'renewed' : 'lost';
      } catch (err) {
        rethrowClassified(err, `${NAME} renew ${h.key}`);
      }
    },
    async close() { r.disconnect(false); },
  };
}

export const recipe: LockRecipe = {
  ...REDIS_SEMAPHORE,
  name: NAME,
  summary: `counting semaphore (N=${SEMAPHORE_LIMIT}): a sorted set trimmed by the client's clock (ZREMRANGEBYSCORE, ZADD now, ZRANK < N); trusts every client's wall clock`,
  source: 'the common Redis sorted-set semaphore (ZADD with the client timestamp, ZREMRANGEBYSCORE, ZRANK)',
  create,
};
