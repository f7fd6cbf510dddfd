// test-lane: beside (its servers are its own; its verdicts do not hang on fine timing)
// redis-sentinel on a real primary + 2 replicas + 3 sentinels, every link proxied.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Redis } from 'ioredis';
import { startEnvironment, type Environment } from '../../src/env/index.ts';
import { getRecipe } from '../../src/locks/registry.ts';
import type { Lock, LockContext } from '../../src/locks/lock.ts';
import { admin, closeLocks, contend, sentinelContext, sleep } from './locks-support.ts';

let env: Environment;
let counter: Redis;
const opened: Lock[] = [];
const recipe = getRecipe('redis-sentinel');

before(async () => {
  env = await startEnvironment('redis-sentinel', { resource: true });
  counter = admin(env, 'resource');
});
after(async () => {
  for (const n of env?.nodes ?? []) await n.resume().catch(() => {});
  await closeLocks(opened);
  counter?.disconnect();
  await env?.down();
});

async function lock(id: string, extra: Partial<LockContext> = {}): Promise<Lock> {
  const l = await recipe.create(await sentinelContext(env, id, extra));
  opened.push(l);
  return l;
}

test('redis-sentinel: mutual exclusion among 3 clients on the primary Sentinel names', async () => {
  const ls = await Promise.all(['mx-a', 'mx-b', 'mx-c'].map((id) => lock(id)));
  await contend(ls, 'sent:mx', counter, 4);
  const n1 = admin(env, 'n1');
  try {
    assert.equal(await n1.get('sent:mx'), null, 'released on the primary');
    assert.match(await n1.info('replication'), /role:master/);
  } finally {
    n1.disconnect();
  }
});

test('redis-sentinel: stale release → lost; wait=1 reports the replica count and holds', async () => {
  const a = await lock('st-a', { options: { wait: '1' } });
  const b = await lock('st-b');
  const ha = await a.acquire('sent:stale', { ttlMs: 300, waitMs: 0 });
  assert.ok(ha);
  assert.ok(Number(ha!.replicas) >= 1, `WAIT 1 answered ${String(ha!.replicas)}`);
  const hb = await b.acquire('sent:stale', { ttlMs: 10_000, waitMs: 2000 });
  assert.ok(hb);
  assert.equal(await a.release(ha!), 'lost');
  assert.equal(await b.release(hb!), 'released');
});

test('redis-sentinel: after the primary is paused and a replica promoted, the client locks on the new primary', async () => {
  const a = await lock('fo-a');
  await env.node('n1').pause();
  try {
    let h = null;
    const deadline = performance.now() + 20_000;
    while (!h && performance.now() < deadline) {
      h = await a.acquire('sent:fo', { ttlMs: 10_000, waitMs: 0 }).catch(() => null);
      if (!h) await sleep(200);
    }
    assert.ok(h, 'acquired through the promoted replica within 20 s');
    const roles = await Promise.all(['n2', 'n3'].map(async (id) => {
      const r = admin(env, id);
      try { return { id, master: /role:master/.test(await r.info('replication')), has: (await r.exists('sent:fo')) === 1 }; } finally { r.disconnect(); }
    }));
    const promoted = roles.find((x) => x.master);
    assert.ok(promoted, 'one replica was promoted');
    assert.ok(promoted!.has, `the lock key is on the new primary ${promoted!.id}`);
  } finally {
    await env.node('n1').resume();
  }
});
