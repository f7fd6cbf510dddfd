/**
 * redis-set-px-lua-fenced — redis-set-px-lua (the Redis source posts) plus the fencing
 * token Kleppmann ("How to do distributed locking", 2016) asks for: a number
 * that grows with every grant, checked by the storage so a stale holder's
 * write is rejected. The SET NX PX and the INCR of `<key>:fence` run in one
 * Lua script, so a grant and its token cannot be separated by a fault.
 * Caveat the runs show: the counter lives on the lock node, so a restart
 * without persistence restarts the tokens too.
 */
import type { LockContext, LockRecipe, Held, AcquireOptions } from './lock.ts';
import { retryMs, singleNodeLock, SINGLE_NODE } from './single-node.ts';
import { luaRelease, randomValue } from './set-px-lua.ts';
import { pollAcquire } from './retry.ts';

const NAME = 'redis-set-px-lua-fenced';

const ACQUIRE_WITH_TOKEN = `
if redis.call("set", KEYS[1], ARGV[1], "NX", "PX", ARGV[2]) then
    return redis.call("incr", KEYS[2])
end
return 0`;

const create = (ctx: LockContext) => singleNodeLock(ctx, NAME, (r) => ({
  async acquire(key: string, o: AcquireOptions): Promise<Held | null> {
    const value = randomValue();
    return pollAcquire(ctx, o.waitMs, retryMs(ctx, NAME), async () => {
      const token = Number(await r.eval(ACQUIRE_WITH_TOKEN, 2, key, `${key}:fence`, value, o.ttlMs));
      return token > 0 ? { key, value, token } : null;
    });
  },
  release: (h) => luaRelease(r, NAME, h),
}));

export const recipe: LockRecipe = {
  ...SINGLE_NODE,
  name: NAME,
  summary: 'redis-set-px-lua plus a fencing token (INCR <key>:fence in the same script) for the resource to check',
  source: 'the Redis source posts + Kleppmann 2016 (fencing tokens)',
  model: 'fenced-mutex',
  fencing: true,
  create,
};
