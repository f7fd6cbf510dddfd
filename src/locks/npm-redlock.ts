/**
 * npm:redlock — the `redlock` package (5.0.0-beta.2, the README's ioredis
 * usage), unpatched:
 *   const redlock = new Redlock([redisA, redisB, redisC], { driftFactor, retryCount, retryDelay, retryJitter, ... });
 *   let lock = await redlock.acquire(["a"], 5000);  …  lock = await lock.extend(5000);  …  await lock.release();
 * One ioredis client per master (ctx.endpoints), configured as every lockpick
 * client is (command timeout, no offline queue: see redis-client.ts); that is
 * client configuration, not a change to the library.
 * Mapping: acquire's ExecutionError ("unable to achieve a quorum during its
 * retry window") → null; extend's ExecutionError → 'lost'; a release that a
 * quorum answered "not ours" (ResourceLockedError votes) → 'lost'; any other
 * error → thrown (outcome unknown). Note what the library does NOT do: it
 * does not compare the elapsed time with the TTL before returning a lock
 * (lock.expiration may already be past); Held.expiresAtWallMs records it, and
 * like most callers this adapter does not look at it.
 */
import type RedlockT from '../../node_modules/redlock/dist/index.js';
import type { ExecutionError as ExecutionErrorT, ResourceLockedError as ResourceLockedErrorT, Lock as RedlockLock } from '../../node_modules/redlock/dist/index.js';
import type { Lock, LockContext, LockRecipe, Held, AcquireOptions } from './lock.ts';
import { openRedis, whenReady, closeAll } from './redis-client.ts';
import { numberOption } from './options.ts';

/** The package, loaded when the first lock is made (ARCHITECTURE: client libraries load lazily). */
interface RedlockLib { Redlock: typeof RedlockT; ExecutionError: typeof ExecutionErrorT; ResourceLockedError: typeof ResourceLockedErrorT }

async function loadRedlock(): Promise<RedlockLib> {
  // @ts-expect-error -- redlock 5 beta's package "exports" has no "types" condition, so nodenext finds no types; they are imported above
  const m = await import('redlock') as { default: typeof RedlockT; ExecutionError: typeof ExecutionErrorT; ResourceLockedError: typeof ResourceLockedErrorT };
  return { Redlock: m.default, ExecutionError: m.ExecutionError, ResourceLockedError: m.ResourceLockedError };
}

const NAME = 'npm:redlock';

/** True when the last attempt of a failed release was refused as "not ours" by a quorum. */
async function refusedByQuorum(err: InstanceType<typeof ExecutionErrorT>, ResourceLockedError: typeof ResourceLockedErrorT): Promise<boolean> {
  const last = err.attempts[err.attempts.length - 1];
  if (!last) return false;
  const stats = await last;
  const refused = [...stats.votesAgainst.values()].filter((e) => e instanceof ResourceLockedError).length;
  return refused >= stats.quorumSize;
}

async function create(ctx: LockContext): Promise<Lock> {
  if (ctx.endpoints.length === 0) throw new Error(`lock ${NAME}: client ${ctx.clientId} has no endpoints; give it independent masters (topology redis, masters 5)`);
  const retryDelay = numberOption(ctx, NAME, 'retryDelay', 100);
  const { Redlock, ExecutionError, ResourceLockedError } = await loadRedlock();
  const clients = await Promise.all(ctx.endpoints.map((ep) => openRedis(ctx, ep)));
  await Promise.all(clients.map((c) => whenReady(c, Math.max(1000, ctx.commandTimeoutMs))));
  const redlock = new Redlock(clients, {
    driftFactor: 0.01,
    retryCount: numberOption(ctx, NAME, 'retryCount', 3),  // used by release and extend
    retryDelay,
    retryJitter: numberOption(ctx, NAME, 'retryJitter', 100),
    automaticExtensionThreshold: 500,
  });
  return {
    name: NAME,
    async acquire(key: string, o: AcquireOptions): Promise<Held | null> {
      try {
        const lock = await redlock.acquire([key], o.ttlMs, { retryCount: Math.floor(o.waitMs / Math.max(1, retryDelay)) });
        return { key, lock, expiresAtWallMs: lock.expiration };
      } catch (err) {
        if (err instanceof ExecutionError) return null;
        throw err;
      }
    },
    async release(h: Held) {
      try {
        await (h.lock as RedlockLock).release();
        return 'released';
      } catch (err) {
        if (err instanceof ExecutionError && (await refusedByQuorum(err, ResourceLockedError))) return 'lost';
        throw err;
      }
    },
    async renew(h: Held, ttlMs: number) {
      try {
        h.lock = await (h.lock as RedlockLock).extend(ttlMs);
        h.expiresAtWallMs = (h.lock as RedlockLock).expiration;
        return 'renewed';
      } catch (err) {
        if (err instanceof ExecutionError) return 'lost';
        throw err;
      }
    },
    async close() { await closeAll(clients); },
  };
}

export const recipe: LockRecipe = {
  name: NAME,
  summary: 'the npm package redlock@5.0.0-beta.2 (ioredis), used as its README shows, unpatched',
  source: 'node_modules/redlock/README.md; Redlock as the distlock summary gives it',
  topology: { kind: 'redis', masters: 5 },
  renews: true,
  model: 'mutex',
  fencing: false,
  optionsHelp: {
    retryDelay: 'Redlock setting retryDelay (default 100 ms); acquire retries waitMs/retryDelay times',
    retryJitter: 'Redlock setting retryJitter (default 100 ms)',
    retryCount: 'Redlock setting retryCount for release/extend (default 3)',
  },
  optionValues: { retryDelay: 'number', retryJitter: 'number', retryCount: 'number' },
  create,
};
