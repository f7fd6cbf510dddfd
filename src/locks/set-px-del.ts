/**
 * redis-set-px-del — the three-unlocks post, first version:
 *   tryLock: `stringRedisTemplate.opsForValue().setIfAbsent(KEY_PREFIX + name, threadId, timeoutSec, TimeUnit.SECONDS)`
 *   unlock:  `stringRedisTemplate.delete(KEY_PREFIX + name);`
 * The unlock deletes whatever is there: if this client's lock expired and another
 * client took it, the DEL removes the other holder's key (the stale unlock the
 * seed goes on to describe).
 */
import type { LockContext, LockRecipe, Held, AcquireOptions } from './lock.ts';
import { grantOf, setNxPx, singleNodeLock, SET_NX_PX } from './single-node.ts';
import { rethrowClassified } from './outcome.ts';

const NAME = 'redis-set-px-del';

const create = (ctx: LockContext) => singleNodeLock(ctx, NAME, (r) => {
  // The three-unlocks post stores the thread id; any per-client value serves, the DEL never reads it.
  const value = ctx.clientId;
  return {
    async acquire(key: string, o: AcquireOptions): Promise<Held | null> {
      return grantOf(key, undefined, await setNxPx(r, ctx, NAME, key, value, o.ttlMs, o.waitMs));
    },
    async release(h: Held) {
      try {
        await r.del(h.key);
      } catch (err) {
        rethrowClassified(err, `${NAME} DEL ${h.key}`);
      }
      return 'released';
    },
  };
});

export const recipe: LockRecipe = {
  ...SET_NX_PX,
  name: NAME,
  summary: 'SET key id NX PX ttl; unlock = plain DEL (deletes another holder\'s key after expiry)',
  source: 'the three-unlocks post (first unlock: plain DEL)',
  model: 'mutex',
  fencing: false,
  create,
};
