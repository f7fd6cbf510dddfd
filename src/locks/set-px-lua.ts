/**
 * redis-set-px-lua — the Redis source posts; Redis's distlock page as
 * the distlock summary gives it:
 *   SET resource_name my_random_value NX PX 30000
 *   if redis.call("get",KEYS[1]) == ARGV[1] then return redis.call("del",KEYS[1]) else return 0 end
 * "the value must be unique across all clients" (20 random bytes here, as the
 * page suggests). The atomic compare-and-delete never removes another holder's
 * key; a 0 from the script means the key was no longer ours → 'lost'.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { LockContext, LockRecipe, Held, AcquireOptions } from './lock.ts';
import { grantOf, setNxPx, singleNodeLock, SET_NX_PX } from './single-node.ts';
import { rethrowClassified } from './outcome.ts';
import { COMPARE_AND_DELETE } from './lua.ts';

const NAME = 'redis-set-px-lua';

/** The Lua unlock, shared with the fenced variant. */
export async function luaRelease(r: Redis, recipe: string, h: Held): Promise<'released' | 'lost'> {
  try {
    const n = await r.eval(COMPARE_AND_DELETE, 1, h.key, String(h.value));
    return Number(n) === 1 ? 'released' : 'lost';
  } catch (err) {
    rethrowClassified(err, `${recipe} unlock ${h.key}`);
  }
}

export const randomValue = () => randomBytes(20).toString('hex');

const create = (ctx: LockContext) => singleNodeLock(ctx, NAME, (r) => ({
  async acquire(key: string, o: AcquireOptions): Promise<Held | null> {
    const value = randomValue();
    return grantOf(key, value, await setNxPx(r, ctx, NAME, key, value, o.ttlMs, o.waitMs));
  },
  release: (h) => luaRelease(r, NAME, h),
}));

export const recipe: LockRecipe = {
  ...SET_NX_PX,
  name: NAME,
  summary: 'SET key <random> NX PX ttl; unlock = Lua compare-and-delete (one node)',
  source: 'the Redis and ZooKeeper post, the database-lock post, the three-unlocks post (final unlock), the distlock summary (single instance)',
  model: 'mutex',
  fencing: false,
  create,
};
