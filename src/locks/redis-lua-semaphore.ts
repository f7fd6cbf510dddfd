/**
 * redis-lua-semaphore — the sorted-set semaphore fixed: one script does the trim, the count and
 * the add by the server's clock (TIME), so no client's clock decides another's lease; release
 * and renew are owner-checked in a script too (a permit past its lease is lost, not released).
 *   acquire: now = TIME; ZREMRANGEBYSCORE sem -inf (now − ttl); ZCARD sem < N → ZADD sem now <id>
 *   release: ZSCORE sem <id> > now − ttl → ZREM → released; else ZREM → lost
 *   renew:   the same check, then ZADD sem XX now <id>
 */
import type { AcquireOptions, Held, LockContext, LockRecipe } from './lock.ts';
import { connectSingle, retryMs } from './single-node.ts';
import { pollAcquire } from './retry.ts';
import { rethrowClassified } from './outcome.ts';
import { holderId, REDIS_SEMAPHORE, SEMAPHORE_LIMIT } from './redis-zset-semaphore.ts';

const NAME = 'redis-lua-semaphore';

// The server's time in ms (TIME is allowed in scripts since Redis 5: effects are replicated).
const NOW = `local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;
// KEYS[1] sem; ARGV id, limit, ttl
const ACQUIRE = `${NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. (now - tonumber(ARGV[3])))
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1`;
// KEYS[1] sem; ARGV id, ttl, op ('release' | 'renew'): 1 while the permit's lease stands, else 0 (and it goes)
const OWNED = `${NOW}
local s = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not s or tonumber(s) <= now - tonumber(ARGV[2]) then redis.call('ZREM', KEYS[1], ARGV[1]) return 0 end
if ARGV[3] == 'release' then redis.call('ZREM', KEYS[1], ARGV[1]) else
  redis.call('ZADD', KEYS[1], 'XX', now, ARGV[1]) redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 1`;

async function create(ctx: LockContext) {
  const r = await connectSingle(ctx, NAME);
  const owned = async (h: Held, op: 'release' | 'renew'): Promise<boolean> => {
    try {
      return Number(await r.eval(OWNED, 1, h.key, String(h.id), String(h.ttlMs), op)) === 1;
    } catch (err) {
      rethrowClassified(err, `${NAME} ${op} ${h.key}`);
    }
  };
  return {
    name: NAME,
    async acquire(key: string, o: AcquireOptions): Promise<Held | null> {
      const id = holderId(ctx);
      const ok = await pollAcquire(ctx, o.waitMs, retryMs(ctx, NAME), async () =>
        (Number(await r.eval(ACQUIRE, 1, key, id, String(o.limit ?? SEMAPHORE_LIMIT), String(o.ttlMs))) === 1 ? true : null));
      return ok ? { key, id, ttlMs: o.ttlMs } : null;
    },
    release: async (h: Held) => ((await owned(h, 'release')) ? 'released' as const : 'lost' as const),
    renew: async (h: Held) => ((await owned(h, 'renew')) ? 'renewed' as const : 'lost' as const),
    async close() { r.disconnect(false); },
  };
}

export const recipe: LockRecipe = {
  ...REDIS_SEMAPHORE,
  name: NAME,
  summary: `counting semaphore (N=${SEMAPHORE_LIMIT}): one Lua script trims, counts and adds by the server's TIME; owner-checked release and renew`,
  source: 'the sorted-set Redis semaphore with the clock bug fixed: server time in one script',
  create,
};
