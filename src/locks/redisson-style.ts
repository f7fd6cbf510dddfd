/**
 * redisson-style — the lock the three-unlocks post points to for what
 * SET NX lacks (不可重入 / 不可重试 / 超时释放: not reentrant, no retry, expiry
 * while still working): Redisson's RLock, rebuilt from its Lua scripts
 * (RedissonLock 3.x: tryLockInnerAsync, unlockInnerAsync, renewExpirationAsync):
 *   lock:   if exists(key)==0 or hexists(key, owner)==1 then hincrby(key, owner, 1);
 *           pexpire(key, lease); return nil end; return pttl(key)
 *   unlock: if hexists(key, owner)==0 then return nil end; counter = hincrby(key, owner, -1);
 *           if counter > 0 then pexpire(key, lease); return 0 else del(key);
 *           publish(channel, 0); return 1 end
 *   renew:  if hexists(key, owner)==1 then pexpire(key, lease); return 1 end; return 0
 * - reentrant: the hash maps owner id (UUID:client, like Redisson's
 *   UUID:threadId) to a hold count;
 * - watchdog: while held, a timer renews the lease every lease/3 (the TTL given
 *   to acquire plays lockWatchdogTimeout). It is a timer in the client process:
 *   when the process is paused the watchdog stops too, the lease runs out, and
 *   another client takes the lock while the paused one still believes it holds;
 *   it stops for good after a failed renewal, as Redisson's does;
 * - waiting: subscribe to redisson_lock__channel:{key}, retry on each unlock
 *   message, or after the holder's remaining pttl; no polling.
 * unlock answered nil (IllegalMonitorStateException in Redisson) → 'lost'.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Lock, LockContext, LockRecipe, Held, AcquireOptions } from './lock.ts';
import { connectSingle } from './single-node.ts';
import { openRedis, whenReady } from './redis-client.ts';
import { isDefinite, rethrowClassified } from './outcome.ts';

const NAME = 'redisson-style';

const LOCK = `
if (redis.call('exists', KEYS[1]) == 0) or (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then
    redis.call('hincrby', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return nil
end
return redis.call('pttl', KEYS[1])`;

const UNLOCK = `
if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then
    return nil
end
local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1)
if (counter > 0) then
    redis.call('pexpire', KEYS[1], ARGV[2])
    return 0
else
    redis.call('del', KEYS[1])
    redis.call('publish', KEYS[2], ARGV[1])
    return 1
end`;

const RENEW = `
if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then
    redis.call('pexpire', KEYS[1], ARGV[1])
    return 1
end
return 0`;

const channelOf = (key: string) => `redisson_lock__channel:{${key}}`;

/** Unlock messages per channel: a counting latch, so a message that arrives between a try and the wait is not missed. */
class UnlockLatch {
  private permits = 0;
  private waiter: (() => void) | undefined;
  signal(): void {
    this.permits++;
    this.waiter?.();
  }
  /** Resolves on an unlock message or after `ms`. */
  wait(ms: number): Promise<void> {
    if (this.permits > 0) { this.permits--; return Promise.resolve(); }
    return new Promise((resolve) => {
      const t = setTimeout(done, ms);
      const self = this;
      function done() { clearTimeout(t); self.waiter = undefined; if (self.permits > 0) self.permits--; resolve(); }
      this.waiter = done;
    });
  }
}

type Renewal = { holds: number; timer?: NodeJS.Timeout };

async function create(ctx: LockContext): Promise<Lock> {
  const r = await connectSingle(ctx, NAME);
  const owner = `${randomUUID()}:${ctx.clientId}`;
  const renewals = new Map<string, Renewal>();
  const latches = new Map<string, UnlockLatch>();
  let sub: Redis | undefined;

  function startWatchdog(key: string, leaseMs: number): void {
    const entry = renewals.get(key);
    if (entry) { entry.holds++; return; }
    const e: Renewal = { holds: 1 };
    renewals.set(key, e);
    const tick = () => {
      e.timer = setTimeout(async () => {
        // Renewal failed or the lock is gone: stop, as Redisson's watchdog does.
        const ok = await r.eval(RENEW, 1, key, leaseMs, owner).then((n) => Number(n) === 1, () => false);
        if (ok && renewals.get(key) === e) tick();
        else if (renewals.get(key) === e) e.timer = undefined;
      }, Math.max(1, Math.floor(leaseMs / 3)));
    };
    tick();
  }

  function dropHold(key: string): void {
    const e = renewals.get(key);
    if (!e) return;
    if (--e.holds > 0) return;
    clearTimeout(e.timer);
    renewals.delete(key);
  }

  async function subscribe(key: string): Promise<UnlockLatch> {
    if (!sub) {
      sub = await openRedis(ctx, ctx.endpoints[0]!);
      sub.on('message', (channel: string) => latches.get(channel)?.signal());
      await whenReady(sub, Math.max(1000, ctx.commandTimeoutMs));
    }
    const latch = new UnlockLatch();
    latches.set(channelOf(key), latch);
    await sub.subscribe(channelOf(key));
    return latch;
  }

  async function unsubscribe(key: string): Promise<void> {
    latches.delete(channelOf(key));
    await sub?.unsubscribe(channelOf(key)).catch(() => {});
  }

  /** null = acquired (Redisson's convention), else the holder's remaining pttl. */
  const tryLock = async (key: string, leaseMs: number): Promise<number | null> => {
    const ttl = await r.eval(LOCK, 1, key, leaseMs, owner);
    return ttl === null ? null : Number(ttl);
  };

  return {
    name: NAME,
    async acquire(key: string, o: AcquireOptions): Promise<Held | null> {
      const start = ctx.clock.monoMs();
      const left = () => o.waitMs - (ctx.clock.monoMs() - start);
      const won = (): Held => { startWatchdog(key, o.ttlMs); return { key, owner, leaseMs: o.ttlMs }; };
      // A lock script that certainly did not run leaves us without the lock (null);
      // one that may have run makes the outcome unknown (throw).
      const attempt = async (): Promise<number | null | 'not-run'> => {
        try {
          return await tryLock(key, o.ttlMs);
        } catch (err) {
          if (isDefinite(err)) return 'not-run';
          throw err;
        }
      };
      let ttl = await attempt();
      if (ttl === 'not-run') return null;
      if (ttl === null) return won();
      if (left() <= 0) return null;
      let latch: UnlockLatch;
      try {
        latch = await subscribe(key);
      } catch {
        // The last try said taken; without notifications Redisson gives up too.
        await unsubscribe(key);
        return null;
      }
      try {
        for (;;) {
          ttl = await attempt();
          if (ttl === 'not-run') return null;
          if (ttl === null) return won();
          const remaining = left();
          if (remaining <= 0) return null;
          await latch.wait(ttl >= 0 && ttl < remaining ? ttl : remaining);
        }
      } finally {
        await unsubscribe(key);
      }
    },
    async release(h: Held) {
      try {
        const res = await r.eval(UNLOCK, 2, h.key, channelOf(h.key), 0, Number(h.leaseMs), owner);
        return res === null ? 'lost' : 'released';
      } catch (err) {
        rethrowClassified(err, `${NAME} unlock ${h.key}`);
      } finally {
        // Redisson cancels this hold's renewal whatever the unlock answered.
        dropHold(h.key);
      }
    },
    async close() {
      for (const e of renewals.values()) clearTimeout(e.timer);
      renewals.clear();
      r.disconnect(false);
      sub?.disconnect(false);
    },
  };
}

export const recipe: LockRecipe = {
  name: NAME,
  summary: 'Redisson-style reentrant hash lock: Lua for every step, watchdog renewal every TTL/3, pub/sub wake-up on unlock',
  keepsAlive: true,   // its watchdog renews the lease while held
  source: 'the three-unlocks post (引入工具Redisson: bring in Redisson); Redisson RedissonLock Lua scripts',
  topology: { kind: 'redis', masters: 1 },
  model: 'reentrant-mutex',
  fencing: false,
  optionValues: {},   // no --lock-opt: any name is refused
  create,
};
