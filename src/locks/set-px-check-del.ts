/**
 * redis-set-px-check-del — the three-unlocks post, second version:
 *   String id = stringRedisTemplate.opsForValue().get(KEY_PREFIX + name);
 *   if (threadId.equals(id)) { stringRedisTemplate.delete(KEY_PREFIX + name); }
 * GET, compare, DEL are three steps: a pause after the compare (the runner can
 * land one at point 'after-compare') lets the lock expire and be re-acquired,
 * and the DEL then removes the new holder's key.
 */
import { randomUUID } from 'node:crypto';
import type { LockContext, LockRecipe, Held, AcquireOptions } from './lock.ts';
import { grantOf, setNxPx, singleNodeLock, SET_NX_PX } from './single-node.ts';
import { rethrowClassified } from './outcome.ts';

const NAME = 'redis-set-px-check-del';

const create = (ctx: LockContext) => singleNodeLock(ctx, NAME, (r) => {
  // ID_PREFIX = UUID.randomUUID() + "-", then + thread id: one value per client.
  const value = `${randomUUID()}-${ctx.clientId}`;
  return {
    async acquire(key: string, o: AcquireOptions): Promise<Held | null> {
      return grantOf(key, value, await setNxPx(r, ctx, NAME, key, value, o.ttlMs, o.waitMs));
    },
    async release(h: Held) {
      try {
        const id = await r.get(h.key);
        if (id !== h.value) return 'lost';
        await ctx.point?.('after-compare');
        await r.del(h.key);
      } catch (err) {
        rethrowClassified(err, `${NAME} release ${h.key}`);
      }
      return 'released';
    },
  };
});

export const recipe: LockRecipe = {
  ...SET_NX_PX,
  name: NAME,
  summary: 'SET key id NX PX ttl; unlock = GET, compare, DEL (not atomic: a pause after the compare deletes another holder\'s key)',
  source: 'the three-unlocks post (second unlock: GET, compare, DEL)',
  model: 'mutex',
  fencing: false,
  points: ['after-compare'],
  create,
};
