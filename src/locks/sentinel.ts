/**
 * redis-sentinel — the single-instance recipe of the Redis source posts (SET key
 * <random> NX PX ttl, Lua compare-and-delete unlock) run against the primary
 * that Redis Sentinel names, through ioredis' sentinel support. The Redis and ZooKeeper post:
 * 如果是redis普通主从，那redis主从异步复制，如果主节点挂了，key还没同步到从节点，
 * 此时从节点切换为主节点，别人就会拿到锁 — with async replication a failover that
 * happens before the key reached the replica hands the lock to someone else.
 * Option wait=1 sends `WAIT 1 <waitTimeoutMs>` after a successful SET. The
 * recipe's choice (the common one): the lock is held once the primary said OK,
 * whatever WAIT answers; WAIT only narrows the window (the replica count is kept
 * in Held.replicas so a report can show it), it cannot close it: the key can
 * still be lost if the primary fails before WAIT returns, and WAIT gives no
 * rollback when it times out.
 */
import type { Lock, LockContext, LockRecipe, Held, AcquireOptions } from './lock.ts';
import { openSentinelRedis, whenReady } from './redis-client.ts';
import { setNxPx, RETRY_HELP } from './single-node.ts';
import { luaRelease, randomValue } from './set-px-lua.ts';
import { numberOption } from './options.ts';

const NAME = 'redis-sentinel';

async function create(ctx: LockContext): Promise<Lock> {
  const wait = numberOption(ctx, NAME, 'wait', 0);
  const waitTimeoutMs = numberOption(ctx, NAME, 'waitTimeoutMs', Math.max(1, Math.floor(ctx.commandTimeoutMs / 2)));
  const r = await openSentinelRedis(ctx);
  await whenReady(r, Math.max(2000, ctx.commandTimeoutMs));
  return {
    name: NAME,
    async acquire(key: string, o: AcquireOptions): Promise<Held | null> {
      const value = randomValue();
      if (!(await setNxPx(r, ctx, NAME, key, value, o.ttlMs, o.waitMs))) return null;
      if (wait <= 0) return { key, value };
      // The SET is done; if WAIT's reply is lost the client still holds the lock
      // by this recipe's rule, so a WAIT error is not an acquire error.
      const replicas = await r.call('WAIT', String(wait), String(waitTimeoutMs)).then(Number, () => undefined);
      return { key, value, replicas };
    },
    release: (h) => luaRelease(r, NAME, h),
    async close() { r.disconnect(false); },
  };
}

export const recipe: LockRecipe = {
  name: NAME,
  summary: 'SET NX PX + Lua unlock on the primary Sentinel names; optional WAIT 1 after the SET (held whatever WAIT says)',
  source: 'the Redis and ZooKeeper post (主从异步复制: asynchronous replication), the database-lock post, the distlock summary; antirez/Kleppmann 2016 on failover',
  topology: { kind: 'redis-sentinel' },
  model: 'mutex',
  fencing: false,
  optionsHelp: {
    ...RETRY_HELP,
    wait: 'N > 0: send WAIT N <waitTimeoutMs> after the SET (default 0 = no WAIT)',
    waitTimeoutMs: 'WAIT timeout (default half the command timeout)',
  },
  optionValues: { retryMs: 'number', wait: 'number', waitTimeoutMs: 'number' },
  create,
};
