/**
 * redis-lua-rwlock and redis-rwlock-check-then-set — a read-write lock on one Redis node: a
 * hash of readers (<key>:readers, holder id → lease end by the server's TIME) and a writer key
 * (<key>:writer, SET PX with the holder id).
 *   read:   no writer → HSET readers <id> now+ttl          (expired readers trimmed first)
 *   write:  no writer and no live reader → SET writer <id> PX ttl
 *   release / renew: owner-checked (a reader's entry still live, the writer key still ours)
 * redis-lua-rwlock does each acquire in one script. redis-rwlock-check-then-set does the
 * check and the set as two round trips, as a client written without scripts does: a writer
 * that comes between a reader's check and its HSET (a pause at the point 'after-check') is let
 * in beside that reader, or the reader beside it.
 */
import type { Redis } from 'ioredis';
import type { AcquireOptions, Held, LockContext, LockRecipe } from './lock.ts';
import { connectSingle, retryMs, SINGLE_NODE } from './single-node.ts';
import { pollAcquire } from './retry.ts';
import { rethrowClassified } from './outcome.ts';
import { holderId } from './redis-zset-semaphore.ts';

const NOW = `local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;
// Drop the readers whose lease ended; leaves `live` the count of the others. KEYS[1] readers.
const TRIM = `local live = 0
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do if tonumber(all[i + 1]) <= now then redis.call('HDEL', KEYS[1], all[i]) else live = live + 1 end end`;
// KEYS readers, writer; ARGV id, ttl, mode. 1: granted.
const ACQUIRE = `${NOW}
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
${TRIM}
if ARGV[3] == 'shared' then
  redis.call('HSET', KEYS[1], ARGV[1], now + tonumber(ARGV[2]))
  if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
  return 1
end
if live > 0 then return 0 end
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
return 1`;
// The check half of the check-then-set acquire: 1 when the mode could go in now. KEYS readers, writer; ARGV mode.
const CHECK = `${NOW}
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
${TRIM}
if ARGV[1] == 'exclusive' and live > 0 then return 0 end
return 1`;
// KEYS readers, writer; ARGV id, ttl, op, mode. 1: still ours (released or renewed).
const OWNED = `${NOW}
if ARGV[4] == 'shared' then
  local e = redis.call('HGET', KEYS[1], ARGV[1])
  if not e or tonumber(e) <= now then redis.call('HDEL', KEYS[1], ARGV[1]) return 0 end
  if ARGV[3] == 'release' then redis.call('HDEL', KEYS[1], ARGV[1]) else
    redis.call('HSET', KEYS[1], ARGV[1], now + tonumber(ARGV[2]))
    if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end end
  return 1
end
if redis.call('GET', KEYS[2]) ~= ARGV[1] then return 0 end
if ARGV[3] == 'release' then redis.call('DEL', KEYS[2]) else redis.call('PEXPIRE', KEYS[2], ARGV[2]) end
return 1`;

const keysOf = (key: string): [string, string] => [`${key}:readers`, `${key}:writer`];

/** One attempt of the check-then-set acquire: the check, the point, then the set as a plain command. */
async function checkThenSet(r: Redis, ctx: LockContext, key: string, id: string, ttlMs: number, mode: string): Promise<true | null> {
  const [readers, writer] = keysOf(key);
  if (Number(await r.eval(CHECK, 2, readers, writer, mode)) !== 1) return null;
  await ctx.point?.('after-check');
  if (mode === 'shared') {
    const t = await r.time();
    await r.hset(readers, id, Number(t[0]) * 1000 + Math.floor(Number(t[1]) / 1000) + ttlMs);
    return true;
  }
  return (await r.set(writer, id, 'PX', ttlMs, 'NX')) === 'OK' ? true : null;
}

function make(name: string, atomic: boolean) {
  return async (ctx: LockContext) => {
    const r = await connectSingle(ctx, name);
    const owned = async (h: Held, op: 'release' | 'renew', ttlMs: number): Promise<boolean> => {
      try {
        return Number(await r.eval(OWNED, 2, ...keysOf(h.key), String(h.id), String(ttlMs), op, String(h.mode))) === 1;
      } catch (err) {
        rethrowClassified(err, `${name} ${op} ${h.key}`);
      }
    };
    return {
      name,
      async acquire(key: string, o: AcquireOptions): Promise<Held | null> {
        const id = holderId(ctx);
        const mode = o.mode ?? 'exclusive';
        const ok = await pollAcquire(ctx, o.waitMs, retryMs(ctx, name), async () => (atomic
          ? (Number(await r.eval(ACQUIRE, 2, ...keysOf(key), id, String(o.ttlMs), mode)) === 1 ? true : null)
          : checkThenSet(r, ctx, key, id, o.ttlMs, mode)));
        return ok ? { key, id, mode, ttlMs: o.ttlMs } : null;
      },
      release: async (h: Held) => ((await owned(h, 'release', Number(h.ttlMs))) ? 'released' as const : 'lost' as const),
      renew: async (h: Held, ttlMs: number) => ((await owned(h, 'renew', ttlMs)) ? 'renewed' as const : 'lost' as const),
      async close() { r.disconnect(false); },
    };
  };
}

const common = { ...SINGLE_NODE, model: 'rwlock', modes: ['exclusive', 'shared'], fencing: false, lease: true, renews: true } as const;

export const recipe: LockRecipe = {
  ...common,
  name: 'redis-lua-rwlock',
  summary: 'read-write lock: a hash of readers and a writer key, each acquire one Lua script by the server\'s TIME; owner-checked release and renew',
  source: 'the Redis read-write lock in Lua (a hash of readers, a writer key, leases)',
  create: make('redis-lua-rwlock', true),
};

export const checkThenSetRecipe: LockRecipe = {
  ...common,
  name: 'redis-rwlock-check-then-set',
  summary: 'read-write lock as redis-lua-rwlock, but the acquire checks (a script) then sets (HSET, SET NX) in two round trips: a writer can come between',
  source: 'redis-lua-rwlock with its acquire split in two, as a client written without scripts does it',
  points: ['after-check'],
  create: make('redis-rwlock-check-then-set', false),
};
