// Shared by the locks*.test.ts files: lock contexts on a real environment,
// admin access to a node (direct, not through the proxy), and a contention run.
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import type { Environment } from '../../src/env/index.ts';
import type { Clock, Held, Lock, LockContext, LockRecipe } from '../../src/locks/lock.ts';

export const realClock: Clock = { wallMs: () => Date.now(), monoMs: () => performance.now() };

export async function contextFor(env: Environment, clientId: string, extra: Partial<LockContext> = {}): Promise<LockContext> {
  return { clientId, endpoints: await env.clientEndpoints(clientId), clock: realClock, commandTimeoutMs: 1000, ...extra };
}

/** Creates one lock per client id; remembers them for closeLocks. */
export async function locksFor(env: Environment, recipe: LockRecipe, ids: string[], extra: Partial<LockContext> = {}): Promise<Lock[]> {
  return Promise.all(ids.map(async (id) => recipe.create(await contextFor(env, id, extra))));
}

export async function closeLocks(locks: Lock[]): Promise<void> {
  await Promise.all(locks.map((l) => l.close()));
}

/** A direct connection to a node, for looking at and meddling with keys. */
export function admin(env: Environment, nodeId = 'n1'): Redis {
  return new Redis({ host: '127.0.0.1', port: env.node(nodeId).port, maxRetriesPerRequest: 1 });
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Awaits one step of a test, failing with its name if it takes longer than
 * `ms`: a hang then says where it hung instead of eating the suite's time.
 */
export async function step<T>(name: string, p: Promise<T>, ms = 10_000): Promise<T> {
  let t: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => { t = setTimeout(() => reject(new Error(`step '${name}' did not finish within ${ms} ms`)), ms); });
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(t);
  }
}

/**
 * `locks.length` clients each acquire `rounds` times on one key, hold a few ms
 * doing a read-modify-write on a counter (on `counter`'s node), release.
 * Asserts nobody overlapped, every release said 'released', and no update was lost.
 */
export async function contend(locks: Lock[], key: string, counter: Redis, rounds: number, ttlMs = 3000): Promise<{ acquired: number }> {
  let inside = 0;
  let maxInside = 0;
  let acquired = 0;
  const counterKey = `${key}:counter`;
  await counter.del(counterKey);
  await Promise.all(locks.map(async (lock) => {
    for (let i = 0; i < rounds; i++) {
      const h = await lock.acquire(key, { ttlMs, waitMs: 10_000 });
      assert.ok(h, `${lock.name}: acquire within 10 s under light contention`);
      inside++;
      maxInside = Math.max(maxInside, inside);
      acquired++;
      const v = Number(await counter.get(counterKey) ?? 0);
      await sleep(2);
      await counter.set(counterKey, v + 1);
      inside--;
      assert.equal(await lock.release(h), 'released', `${lock.name}: release of a live hold`);
    }
  }));
  assert.equal(maxInside, 1, `${locks[0]?.name}: two clients inside the critical section at once`);
  assert.equal(Number(await counter.get(counterKey)), acquired, 'read-modify-write under the lock lost an update');
  return { acquired };
}

/**
 * Sentinel names primaries by their real address; a client must still go
 * through its own proxied link to that node (the topology's addressMap).
 */
export async function sentinelContext(env: Environment, clientId: string, extra: Partial<LockContext> = {}): Promise<LockContext> {
  const endpoints = await env.clientEndpoints(clientId);
  const { sentinelTopology } = await import('../../src/env/topology-sentinel.ts');
  return {
    ...(await contextFor(env, clientId)),
    ...(await sentinelTopology.clientExtras!(env, clientId, endpoints)),
    ...extra,
  };
}

/**
 * N clients, `rounds` each, on one key, counting in memory: nobody overlaps and
 * every release is 'released'. Returns every grant (for token checks).
 */
export async function contendInMemory(locks: Lock[], key: string, rounds: number): Promise<Held[]> {
  let inside = 0;
  let maxInside = 0;
  let counter = 0;
  const grants: Held[] = [];
  await Promise.all(locks.map(async (lock) => {
    for (let i = 0; i < rounds; i++) {
      const h = await lock.acquire(key, { ttlMs: 1000, waitMs: 10_000 });
      assert.ok(h, `${lock.name}: acquire within 10 s under light contention`);
      grants.push(h);
      inside++;
      maxInside = Math.max(maxInside, inside);
      const v = counter;
      await sleep(3);
      counter = v + 1;
      inside--;
      assert.equal(await lock.release(h), 'released', `${lock.name}: release of a live hold`);
    }
  }));
  assert.equal(maxInside, 1, `${locks[0]?.name}: two clients inside the critical section at once`);
  assert.equal(counter, locks.length * rounds, 'read-modify-write under the lock lost an update');
  return grants;
}
