/**
 * npm:redis-semaphore and npm:redis-semaphore-redlock — the `redis-semaphore`
 * package's Mutex and RedlockMutex, used as its README shows, unpatched:
 *   const mutex = new Mutex(redisClient, 'lockingResource', { onLockLost(err) { … } })
 *   await mutex.acquire()  …  await mutex.release()
 * (RedlockMutex takes an array of clients on independent nodes). Options map
 * from acquire: lockTimeout = ttlMs, acquireTimeout = waitMs (waitMs 0 →
 * acquireAttemptsLimit 1, the README's "optional lock"); auto-refresh stays at
 * its default (every lockTimeout·0.8, a timer: it stops when the process is
 * paused). Mapping: TimeoutError from acquire → null; a loss the refresh timer
 * reported through onLockLost (mutex.isAcquired false) → release 'lost'.
 * The library's release ignores whether the key was still ours, so a release
 * after an unnoticed expiry reports 'released', exactly what its caller sees.
 */
import { Mutex, RedlockMutex, Semaphore, TimeoutError } from 'redis-semaphore';
import type { Redis } from 'ioredis';
import type { Lock, LockContext, LockRecipe, Held, AcquireOptions } from './lock.ts';
import { openRedis, whenReady, closeAll } from './redis-client.ts';
import { isDefinite, rethrowClassified } from './outcome.ts';

type AnyMutex = Mutex | RedlockMutex | Semaphore;

function make(name: string, build: (clients: Redis[], key: string, opts: ConstructorParameters<typeof Mutex>[2], o: AcquireOptions) => AnyMutex) {
  return async (ctx: LockContext): Promise<Lock> => {
    if (ctx.endpoints.length === 0) throw new Error(`lock ${name}: client ${ctx.clientId} has no endpoints; check the recipe's topology`);
    const clients = ctx.endpoints.map((ep) => openRedis(ctx, ep));
    await Promise.all(clients.map((c) => whenReady(c, Math.max(1000, ctx.commandTimeoutMs))));
    return {
      name,
      async acquire(key: string, o: AcquireOptions): Promise<Held | null> {
        const state = { lostReported: false };
        const mutex = build(clients, key, {
          lockTimeout: o.ttlMs,
          ...(o.waitMs > 0 ? { acquireTimeout: o.waitMs } : { acquireTimeout: ctx.commandTimeoutMs, acquireAttemptsLimit: 1 }),
          onLockLost() { state.lostReported = true; },
        }, o);
        try {
          await mutex.acquire();
          return { key, mutex, state };
        } catch (err) {
          if (err instanceof TimeoutError || isDefinite(err)) return null;
          throw err;
        }
      },
      async release(h: Held) {
        const mutex = h.mutex as AnyMutex;
        const lost = !mutex.isAcquired;
        try {
          await mutex.release();
        } catch (err) {
          rethrowClassified(err, `${name} release ${h.key}`);
        }
        return lost ? 'lost' : 'released';
      },
      async close() { await closeAll(clients); },
    };
  };
}

const common = { fencing: false, model: 'mutex', optionValues: {} } as const;   // no --lock-opt: any name is refused

export const mutexRecipe: LockRecipe = {
  ...common,
  name: 'npm:redis-semaphore',
  summary: 'the npm package redis-semaphore, Mutex (SET NX PX, Lua release, auto-refresh), used as its README shows',
  keepsAlive: true,   // its auto-refresh timer extends the lease while held
  source: 'node_modules/redis-semaphore/README.md (Mutex)',
  topology: { kind: 'redis', masters: 1 },
  create: make('npm:redis-semaphore', (clients, key, opts) => new Mutex(clients[0]!, key, opts)),
};

export const redlockMutexRecipe: LockRecipe = {
  ...common,
  name: 'npm:redis-semaphore-redlock',
  summary: 'the npm package redis-semaphore, RedlockMutex over independent masters, used as its README shows',
  source: 'node_modules/redis-semaphore/README.md (RedlockMutex)',
  topology: { kind: 'redis', masters: 5 },
  create: make('npm:redis-semaphore-redlock', (clients, key, opts) => new RedlockMutex(clients, key, opts)),
};

/**
 * npm:redis-semaphore-semaphore — its Semaphore, as the README shows it
 * (`new Semaphore(redisClient, 'lockingResource', 5)`, acquire, release), with N = 2. Its
 * acquire script trims and counts by the `now` the client sends (Date.now()): every client's
 * wall clock decides every other's lease, the README's "node time difference" caveat.
 */
export const semaphoreRecipe: LockRecipe = {
  ...common,
  model: 'semaphore',
  semaphore: { limit: 2 },
  name: 'npm:redis-semaphore-semaphore',
  summary: 'the npm package redis-semaphore, Semaphore (a sorted set trimmed by the client\'s Date.now(), auto-refresh), used as its README shows',
  keepsAlive: true,
  source: 'node_modules/redis-semaphore/README.md (Semaphore)',
  topology: { kind: 'redis', masters: 1 },
  create: make('npm:redis-semaphore-semaphore', (clients, key, opts, o) => new Semaphore(clients[0]!, key, o.limit ?? 2, opts)),
};
