// test-lane: beside (its servers are its own; its verdicts do not hang on fine timing)
// The one-node Redis recipes on a real redis-server, through the fault proxy
// (no faults injected here: the runner's tests do that).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Redis } from 'ioredis';
import { startEnvironment, type Environment } from '../../src/env/index.ts';
import { getRecipe, loadUserLock } from '../../src/locks/registry.ts';
import type { Lock } from '../../src/locks/lock.ts';
import { admin, closeLocks, contend, contextFor, locksFor, realClock, sleep } from './locks-support.ts';

let env: Environment;
let db: Redis;
let counter: Redis;
const opened: Lock[] = [];

before(async () => {
  env = await startEnvironment('redis', { masters: 1, resource: true });
  db = admin(env, 'n1');
  counter = admin(env, 'resource');
});
after(async () => {
  await closeLocks(opened);
  db?.disconnect();
  counter?.disconnect();
  await env?.down();
});

async function locks(name: string, n: number, tag: string) {
  const ls = await locksFor(env, getRecipe(name), Array.from({ length: n }, (_, i) => `${tag}-c${i}`));
  opened.push(...ls);
  return ls;
}

const SINGLE = ['redis-setnx-getset', 'redis-setnx-getset-check', 'redis-set-px-del', 'redis-set-px-check-del', 'redis-set-px-lua', 'redis-set-px-lua-fenced', 'redisson-style'];
const PLAIN_DEL = new Set(['redis-setnx-getset', 'redis-set-px-del']);

for (const name of SINGLE) {
  test(`${name}: mutual exclusion among 4 contending clients, no update lost`, async () => {
    const ls = await locks(name, 4, `mx-${name}`);
    const { acquired } = await contend(ls, `mx:${name}`, counter, 5);
    assert.equal(acquired, 20);
  });

  test(`${name}: the TTL frees a lock whose holder never releases`, async () => {
    const [a, b] = await locks(name, 2, `ttl-${name}`);
    const key = `ttl:${name}`;
    const ha = await a!.acquire(key, { ttlMs: 400, waitMs: 0 });
    assert.ok(ha);
    if (name === 'redisson-style') await a!.close(); // its watchdog would keep the lease alive
    assert.equal(await b!.acquire(key, { ttlMs: 400, waitMs: 0 }), null, 'taken while A holds');
    const t0 = performance.now();
    const hb = await b!.acquire(key, { ttlMs: 5000, waitMs: 3000 });
    const waited = performance.now() - t0;
    assert.ok(hb, 'acquired after the TTL');
    assert.ok(waited > 200 && waited < 2000, `waited ${waited.toFixed(0)} ms for a 400 ms TTL`);
    assert.equal(await b!.release(hb!), 'released');
  });

  test(`${name}: release after the lock expired and another client took it`, async () => {
    const [a, b, c] = await locks(name, 3, `stale-${name}`);
    const key = `stale:${name}`;
    const ha = await a!.acquire(key, { ttlMs: 300, waitMs: 0 });
    assert.ok(ha);
    if (name === 'redisson-style') await db.del(key); // stands in for a paused client's lapsed watchdog
    const hb = await b!.acquire(key, { ttlMs: 10_000, waitMs: 2000 });
    assert.ok(hb, 'B takes the expired lock');
    const outcome = await a!.release(ha!);
    if (PLAIN_DEL.has(name)) {
      // The bug the source posts describe: A's DEL removed B's key; C walks in while B holds.
      assert.equal(outcome, 'released');
      assert.equal(await db.exists(key), 0, "A's plain DEL deleted B's lock");
      const hc = await c!.acquire(key, { ttlMs: 10_000, waitMs: 0 });
      assert.ok(hc, 'C acquires while B still believes it holds: double holder');
      await c!.release(hc!);
    } else {
      assert.equal(outcome, 'lost', 'the server said the lock was no longer ours');
      assert.equal(await db.exists(key), 1, "B's lock survives A's release");
      assert.equal(await c!.acquire(key, { ttlMs: 1000, waitMs: 0 }), null);
      assert.equal(await b!.release(hb!), 'released');
    }
  });
}

for (const name of ['redis-set-px-check-del', 'redis-setnx-getset-check']) {
  test(`${name}: a pause between compare and delete deletes the next holder's lock`, async () => {
    const key = `cmp:${name}`;
    const recipe = getRecipe(name);
    let b: Lock | undefined;
    let hb: unknown;
    const a = await recipe.create(await contextFor(env, `cmp-${name}-a`, {
      // The schedule's pause at 'after-compare': the lease runs out, B acquires.
      point: async (p) => {
        if (p !== 'after-compare') return;
        hb = await b!.acquire(key, { ttlMs: 10_000, waitMs: 2000 });
      },
    }));
    b = await recipe.create(await contextFor(env, `cmp-${name}-b`));
    opened.push(a, b);
    const ha = await a.acquire(key, { ttlMs: 300, waitMs: 0 });
    assert.ok(ha);
    assert.equal(await a.release(ha!), 'released', 'A passed the compare before its lease ran out');
    assert.ok(hb, 'B acquired during the pause');
    assert.equal(await db.exists(key), 0, "A's DEL removed B's lock: stale unlock");
  });
}

test('redis-setnx-getset: a client whose clock runs ahead takes a live lock (double holder)', async () => {
  const recipe = getRecipe('redis-setnx-getset');
  const key = 'skew:setnx';
  const a = await recipe.create(await contextFor(env, 'skew-a'));
  const ahead = { wallMs: () => Date.now() + 10_000, monoMs: realClock.monoMs };
  const b = await recipe.create(await contextFor(env, 'skew-b', { clock: ahead }));
  opened.push(a, b);
  const ha = await a.acquire(key, { ttlMs: 5000, waitMs: 0 });
  assert.ok(ha);
  const hb = await b.acquire(key, { ttlMs: 5000, waitMs: 0 });
  assert.ok(hb, 'B judged A\'s 5 s lease expired by its own clock');
  await b.release(hb!);
});

test('--lock-opt validity=reported (the SET PX recipes): the validity counted from before the SET, less the drift; a grant already over is given back', async () => {
  for (const name of ['redis-set-px-del', 'redis-set-px-check-del', 'redis-set-px-lua']) {
    const recipe = getRecipe(name);
    assert.equal(recipe.clockDriftMs?.(800, undefined), 0, 'without it the lock allows no drift');
    assert.equal(recipe.clockDriftMs?.(800, { validity: 'reported' }), 10);
    const [plain] = await locksFor(env, recipe, [`v0-${name}`]);
    const [a] = await locksFor(env, recipe, [`v1-${name}`], { options: { validity: 'reported' } });
    opened.push(plain!, a!);
    const hp = await plain!.acquire(`v0:${name}`, { ttlMs: 800, waitMs: 0 });
    assert.ok(hp && hp.validUntilMs === undefined, 'no validity unless asked for');
    const before = realClock.monoMs();
    const h = await a!.acquire(`v1:${name}`, { ttlMs: 800, waitMs: 0 });
    const after = realClock.monoMs();
    assert.ok(h?.validUntilMs !== undefined && h.validUntilMs >= before + 790 && h.validUntilMs <= after + 790, `${name}: valid until ${h?.validUntilMs} for a SET sent in [${before}, ${after}]`);
    assert.equal(await db.exists(`v1:${name}`), 1, 'a grant in time keeps its key');
    // The client's clock moves on by more than the TTL between the SET and its reply (as under a pause):
    // the grant is already over, so it is not handed out, and the key is given back at once.
    let reads = 0;
    const late = { ...realClock, monoMs: () => realClock.monoMs() + (reads++ >= 2 ? 1000 : 0) };
    const [b] = await locksFor(env, recipe, [`v2-${name}`], { options: { validity: 'reported' }, clock: late });
    opened.push(b!);
    assert.equal(await b!.acquire(`v2:${name}`, { ttlMs: 800, waitMs: 0 }), null);
    assert.equal(await db.exists(`v2:${name}`), 0, `${name}: the late grant's key was deleted`);
  }
});

test('redis-set-px-lua-fenced: tokens strictly increase across clients', async () => {
  const ls = await locks('redis-set-px-lua-fenced', 3, 'fence');
  const tokens: number[] = [];
  for (let i = 0; i < 9; i++) {
    const l = ls[i % 3]!;
    const h = await l.acquire('fence:k', { ttlMs: 2000, waitMs: 1000 });
    assert.ok(h);
    assert.equal(typeof h!.token, 'number');
    tokens.push(h!.token as number);
    assert.equal(await l.release(h!), 'released');
  }
  for (let i = 1; i < tokens.length; i++) assert.ok(tokens[i]! > tokens[i - 1]!, `tokens ${tokens.join(',')}`);
});

test('redisson-style: reentrant holds are counted; the lock frees at zero', async () => {
  const [a, b] = await locks('redisson-style', 2, 'reent');
  const key = 'reent:k';
  const h1 = await a!.acquire(key, { ttlMs: 3000, waitMs: 0 });
  const h2 = await a!.acquire(key, { ttlMs: 3000, waitMs: 0 });
  assert.ok(h1 && h2, 'the holder re-enters');
  const owner = String(h1!.owner);
  assert.equal(await db.hget(key, owner), '2');
  assert.equal(await b!.acquire(key, { ttlMs: 3000, waitMs: 0 }), null);
  assert.equal(await a!.release(h2!), 'released');
  assert.equal(await db.hget(key, owner), '1');
  assert.equal(await b!.acquire(key, { ttlMs: 3000, waitMs: 0 }), null, 'still held once');
  assert.equal(await a!.release(h1!), 'released');
  assert.equal(await db.exists(key), 0);
});

test('redisson-style: the watchdog keeps the lease past its TTL; a waiter wakes on the unlock message', async () => {
  const [a, b] = await locks('redisson-style', 2, 'dog');
  const key = 'dog:k';
  const ha = await a!.acquire(key, { ttlMs: 3000, waitMs: 0 });
  assert.ok(ha);
  await sleep(4000); // past the 3 s lease: only renewals keep it
  const pttl = await db.pttl(key);
  assert.ok(pttl > 1000, `renewed every TTL/3 (pttl ${pttl})`);
  const waiting = (async () => {
    const h = await b!.acquire(key, { ttlMs: 3000, waitMs: 10_000 });
    return { h, at: performance.now() };
  })();
  await sleep(300);
  assert.equal(await a!.release(ha!), 'released');
  const releasedAt = performance.now();
  const { h, at } = await waiting;
  assert.ok(h, 'the waiter got the lock');
  // Woken by the PUBLISH, not by the remaining pttl (~2.7 s) running out.
  assert.ok(at - releasedAt < 500, `woke ${(at - releasedAt).toFixed(0)} ms after the unlock`);
  assert.equal(await b!.release(h!), 'released');
});

test('examples/my-lock.ts (a user lock loaded by path): mutual exclusion, stale release → lost', async () => {
  const recipe = await loadUserLock('examples/my-lock.ts');
  const ls = await locksFor(env, recipe, ['user-a', 'user-b', 'user-c']);
  opened.push(...ls);
  await contend(ls, 'user:mx', counter, 4);
  const [a, b] = ls;
  const ha = await a!.acquire('user:stale', { ttlMs: 300, waitMs: 0 });
  const hb = await b!.acquire('user:stale', { ttlMs: 10_000, waitMs: 2000 });
  assert.ok(ha && hb);
  assert.equal(await a!.release(ha!), 'lost');
  assert.equal(await b!.release(hb!), 'released');
});
