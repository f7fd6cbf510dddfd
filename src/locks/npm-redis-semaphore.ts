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
import type { Mutex, RedlockMutex, Semaphore } from 'redis-semaphore';
import type { Redis } from 'ioredis';
import type { Lock, LockContext, LockRecipe, Held, AcquireOptions } from './lock.ts';
import { openRedis, whenReady, closeAll } from './redis-client.ts';
import { isDefinite, rethrowClassified } from './outcome.ts';

type AnyMutex = Mutex | RedlockMutex | Semaphore;

type Library = typeof import('redis-semaphore');

/** `build` makes the package's lock; the package loads when the first lock is made (ARCHITECTURE: client libraries load lazily). */
function make(name: string, build: (lib: Library, clients: Redis[], key: string, opts: ConstructorParameters<typeof Mutex>[2], o: AcquireOptions) => AnyMutex) {
  return async (ctx: LockContext): Promise<Lock> => {
    const lib = await import('redis-semaphore');
    if (ctx.endpoints.length === 0) throw new Error(`lock ${name}: client ${ctx.clientId} has no endpoints; check the recipe's topology`);
    const clients = await Promise.all(ctx.endpoints.map((ep) => openRedis(ctx, ep)));
    await Promise.all(clients.map((c) => whenReady(c, Math.max(1000, ctx.commandTimeoutMs))));
    return {
      name,
      async acquire(key: string, o: AcquireOptions): Promise<Held | null> {
        const state = { lostReported: false };
        const mutex = build(lib, clients, key, {
          lockTimeout: o.ttlMs,
          ...(o.waitMs > 0 ? { acquireTimeout: o.waitMs } : { acquireTimeout: ctx.commandTimeoutMs, acquireAttemptsLimit: 1 }),
          onLockLost() { state.lostReported = true; },
        }, o);
        try {
          await mutex.acquire();
          return { key, mutex, state };
        } catch (err) {
          if (err instanceof lib.TimeoutError || isDefinite(err)) return null;
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
  create: make('npm:redis-semaphore', (lib, clients, key, opts) => new lib.Mutex(clients[0]!, key, opts)),
};

export const redlockMutexRecipe: LockRecipe = {
  ...common,
  name: 'npm:redis-semaphore-redlock',
  summary: 'the npm package redis-semaphore, RedlockMutex over independent masters, used as its README shows',
  source: 'node_modules/redis-semaphore/README.md (RedlockMutex)',
  topology: { kind: 'redis', masters: 5 },
  create: make('npm:redis-semaphore-redlock', (lib, clients, key, opts) => new lib.RedlockMutex(clients, key, opts)),
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
  create: make('npm:redis-semaphore-semaphore', (lib, clients, key, opts, o) => new lib.Semaphore(clients[0]!, key, o.limit ?? 2, opts)),
};
