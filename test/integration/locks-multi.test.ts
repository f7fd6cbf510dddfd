// test-lane: beside (servers of its own on free ports; its verdicts hang on counts and on pauses or kills far longer than a lease, not on fine timing)
// Recipes over 5 independent masters (Redlock, and the npm libraries) on real
// redis-servers, some of them paused (SIGSTOP) where the test says so.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Redis } from 'ioredis';
import { startEnvironment, type Environment } from '../../src/env/index.ts';
import { getRecipe } from '../../src/locks/registry.ts';
import type { Lock, LockContext } from '../../src/locks/lock.ts';
import { admin, closeLocks, contend, contextFor, locksFor, sleep, step } from './locks-support.ts';

let env: Environment;
let counter: Redis;
let n1: Redis;
const opened: Lock[] = [];

before(async () => {
  env = await startEnvironment('redis', { masters: 5, resource: true });
  counter = admin(env, 'resource');
  n1 = admin(env, 'n1');
});
after(async () => {
  for (const n of env?.nodes ?? []) await n.resume().catch(() => {});
  await closeLocks(opened);
  counter?.disconnect();
  n1?.disconnect();
  await env?.down();
});

async function locks(name: string, n: number, tag: string, extra: Partial<LockContext> = {}) {
  const ls = await locksFor(env, getRecipe(name), Array.from({ length: n }, (_, i) => `${tag}-c${i}`), extra);
  opened.push(...ls);
  return ls;
}

async function withPaused<T>(ids: string[], fn: () => Promise<T>): Promise<T> {
  for (const id of ids) await env.node(id).pause();
  try {
    return await fn();
  } finally {
    for (const id of ids) await env.node(id).resume();
  }
}

for (const name of ['redlock', 'npm:redlock', 'npm:redis-semaphore-redlock']) {
  test(`${name}: mutual exclusion among 3 contending clients, no update lost`, async () => {
    const ls = await locks(name, 3, `mx-${name.replace(':', '_')}`);
    await contend(ls, `mx:${name}`, counter, 4);
  });
}

for (const name of ['redlock', 'npm:redlock', 'npm:redis-semaphore-redlock']) {
  test(`${name}: acquires with a majority while 2 of 5 masters are paused, not with 3`, async () => {
    const [a] = await locks(name, 1, `maj-${name.replace(':', '_')}`, { commandTimeoutMs: 300 });
    const key = `maj:${name}`;
    const h = await withPaused(['n4', 'n5'], () => a!.acquire(key, { ttlMs: 5000, waitMs: 2000 }));
    assert.ok(h, 'three of five masters are a majority');
    assert.equal(await a!.release(h!), 'released');
    const none = await withPaused(['n3', 'n4', 'n5'], () => a!.acquire(`${key}:2`, { ttlMs: 5000, waitMs: 500 }));
    assert.equal(none, null, 'two of five are not');
  });
}

test('redlock: validity = TTL − elapsed − drift, on the monotonic clock when asked', async () => {
  const [a] = await locks('redlock', 1, 'valid', { options: { clock: 'monotonic' } });
  const before = performance.now();
  const h = await a!.acquire('valid:k', { ttlMs: 2000, waitMs: 0 });
  const afterwards = performance.now();
  assert.ok(h);
  // The attempt started at t0 in [before, afterwards]: validUntil = t0 + 2000 − (20 + 2).
  const v = h!.validUntilMs!;
  assert.ok(v >= before + 1978 - 0.01 && v <= afterwards + 1978 + 0.01, `validUntil ${(v - before).toFixed(1)} ms after the start, acquire took ${(afterwards - before).toFixed(1)} ms`);
  assert.equal(await a!.release(h!), 'released');
});

test('redlock: a pause before the validity check is caught (antirez): no lock, and unlocked everywhere', async () => {
  const recipe = getRecipe('redlock');
  const a = await recipe.create(await contextFor(env, 'vpause', {
    options: { clock: 'monotonic' },
    point: async (p) => { if (p === 'before-validity-check') await sleep(400); },
  }));
  opened.push(a);
  assert.equal(await a.acquire('vpause:k', { ttlMs: 300, waitMs: 0 }), null);
  assert.equal(await n1.exists('vpause:k'), 0, 'released on every node after the failed attempt');
});

test('redlock and npm:redlock: release after expiry and re-acquisition → lost, the new holder keeps it', async () => {
  for (const name of ['redlock', 'npm:redlock']) {
    const [a, b] = await locks(name, 2, `stale-${name.replace(':', '_')}`);
    const key = `stale:${name}`;
    const ha = await a!.acquire(key, { ttlMs: 300, waitMs: 0 });
    assert.ok(ha);
    await sleep(400);
    const hb = await b!.acquire(key, { ttlMs: 10_000, waitMs: 0 });
    assert.ok(hb);
    assert.equal(await a!.release(ha!), 'lost', name);
    assert.equal(await n1.exists(key), 1, `${name}: B's key survives`);
    assert.equal(await b!.release(hb!), 'released');
  }
});

test('npm:redlock: extend keeps the lock; extend after expiry → lost', async () => {
  const [a] = await step('create the client', locks('npm:redlock', 1, 'extend'));
  const lock = a!;
  // A lease of seconds, so a slow machine cannot let it run out before the extend.
  const h = await step('acquire', lock.acquire('extend:k', { ttlMs: 3000, waitMs: 0 }));
  assert.ok(h);
  assert.equal(await step('extend', lock.renew!(h!, 8000)), 'renewed');
  // Redlock extends on a majority: a master that answered late may keep the old lease (seen on a busy machine).
  const masters = ['n1', 'n2', 'n3', 'n4', 'n5'].map((id) => admin(env, id));
  try {
    const left = await step('PTTL on the masters', Promise.all(masters.map((m) => m.pttl('extend:k'))));
    assert.ok(left.filter((ms) => ms > 5000).length >= 3, `PTTL ${left.join(', ')} ms on the five masters after extending to 8000 ms`);
  } finally {
    for (const m of masters) m.disconnect();
  }
  assert.equal(await step('release', lock.release(h!)), 'released');
  const h2 = await step('acquire a short lease', lock.acquire('extend:k2', { ttlMs: 200, waitMs: 0 }));
  assert.ok(h2);
  await sleep(300);
  assert.equal(await step('extend after expiry', lock.renew!(h2!, 5000)), 'lost');
});

test('npm:redis-semaphore (Mutex): acquire/release/contend on one node; a lost refresh → release lost', async () => {
  const ls = await locks('npm:redis-semaphore', 3, 'sem');
  await contend(ls, 'sem:mx', counter, 4);
  const [a, b] = ls;
  // The library's own retry loop: B times out while A holds.
  const ha = await a!.acquire('sem:k', { ttlMs: 500, waitMs: 0 });
  assert.ok(ha);
  assert.equal(await b!.acquire('sem:k', { ttlMs: 500, waitMs: 200 }), null);
  // Take the key away; the refresh timer (every 400 ms) notices and calls onLockLost.
  await n1.del('mutex:sem:k');
  const hb = await b!.acquire('sem:k', { ttlMs: 5000, waitMs: 0 });
  assert.ok(hb);
  await sleep(600);
  assert.equal(await a!.release(ha!), 'lost');
  assert.equal(await n1.exists('mutex:sem:k'), 1, "the library's Lua release left B's key");
  assert.equal(await b!.release(hb!), 'released');
});

test('redlock-fenced: tokens strictly increase across clients, also while two masters are down', async () => {
  const ls = await locks('redlock-fenced', 3, 'rfence');
  const tokens: number[] = [];
  const round = async (n: number) => {
    for (let i = 0; i < n; i++) {
      const l = ls[i % 3]!;
      const h = await l.acquire('rfence:k', { ttlMs: 2000, waitMs: 1500 });
      assert.ok(h, `acquire ${i}`);
      assert.equal(typeof h!.token, 'number');
      tokens.push(h!.token as number);
      assert.equal(await l.release(h!), 'released');
    }
  };
  await round(4);
  // A different majority (n3..n5) still reads the largest token through the node it shares with the last one.
  await withPaused(['n1', 'n2'], () => round(3));
  await round(2);
  for (let i = 1; i < tokens.length; i++) assert.ok(tokens[i]! > tokens[i - 1]!, `tokens ${tokens.join(',')}`);
});
