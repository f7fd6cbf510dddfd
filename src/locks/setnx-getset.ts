/**
 * redis-setnx-getset and redis-setnx-getset-check — the Redis and ZooKeeper post
 * and the Jedis-cluster post: the lock value is the holder's expiry time by
 * ITS OWN wall clock, and expiry is judged by the wall clock of whoever looks.
 * The Redis and ZooKeeper post:
 *   long ret = resource.setnx(redisKey, expireAt);            // expireAt = now + EXPIRE
 *   String oldExpireAt = resource.get(redisKey);
 *   if (oldExpireAt != null && Long.parseLong(oldExpireAt) < now) {
 *       oldExpireAt = resource.getSet(redisKey, expireAt);
 *       if (Long.parseLong(oldExpireAt) < now) { flag = true; break; } }
 *   unlock: resource.del(redisKey);
 * The Jedis-cluster post's unlock compares first (get-compare-del, not atomic):
 *   String remoteValue = jedisCluster.get(key);
 *   if (time == oldTime) { jedisCluster.del(key); }
 * Departures, both to keep the recipe runnable: `now` is re-read on every
 * attempt (the first post reads it once, so its wait never ends), and a GETSET that
 * returns nil wins (the Jedis-cluster post; the first would throw on parseLong(null)).
 * A client whose clock runs ahead declares a live lock expired: double holder.
 */
import type { Redis } from 'ioredis';
import type { LockContext, LockRecipe, Held, AcquireOptions } from './lock.ts';
import { retryMs, singleNodeLock, SINGLE_NODE } from './single-node.ts';
import { pollAcquire } from './retry.ts';
import { rethrowClassified } from './outcome.ts';

async function tryOnce(r: Redis, ctx: LockContext, key: string, ttlMs: number): Promise<Held | null> {
  const now = ctx.clock.wallMs();
  const expireAt = String(now + ttlMs);
  if ((await r.setnx(key, expireAt)) === 1) return { key, value: expireAt };
  const old = await r.get(key);
  if (old === null || !(Number(old) < now)) return null;   // freed meanwhile (retry SETNX) or not expired
  const prev = await r.getset(key, expireAt);
  return prev === null || Number(prev) < now ? { key, value: expireAt } : null;
}

function make(name: string, checkBeforeDelete: boolean) {
  return (ctx: LockContext) => singleNodeLock(ctx, name, (r) => ({
    acquire: (key: string, o: AcquireOptions) => pollAcquire(ctx, o.waitMs, retryMs(ctx, name), () => tryOnce(r, ctx, key, o.ttlMs)),
    async release(h: Held) {
      try {
        if (checkBeforeDelete) {
          if ((await r.get(h.key)) !== h.value) return 'lost';
          await ctx.point?.('after-compare');
        }
        await r.del(h.key);
      } catch (err) {
        rethrowClassified(err, `${name} release ${h.key}`);
      }
      return 'released';
    },
  }));
}

const common = { ...SINGLE_NODE, model: 'mutex', fencing: false } as const;

export const recipe: LockRecipe = {
  ...common,
  name: 'redis-setnx-getset',
  summary: 'SETNX key <expiry by client clock>; GET, GETSET when expired; unlock = plain DEL',
  source: 'the Redis and ZooKeeper post (RedisKeyLock), the Jedis-cluster post (acquire)',
  create: make('redis-setnx-getset', false),
};

export const checkRecipe: LockRecipe = {
  ...common,
  name: 'redis-setnx-getset-check',
  summary: 'as redis-setnx-getset; unlock = GET, compare own timestamp, DEL (not atomic)',
  source: 'the Jedis-cluster post (getDistibuteLock / releaseLock)',
  points: ['after-compare'],
  create: make('redis-setnx-getset-check', true),
};
