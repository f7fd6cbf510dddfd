// test-lane: beside (its servers are its own; its verdicts do not hang on fine timing)
// The ZooKeeper recipes (the Redis and ZooKeeper post, the database-lock post) on a real one-node ZooKeeper, every
// client through its own proxied link, session faults made by cutting that link.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Toxiproxy } from 'toxiproxy-node-client';
import { startEnvironment, type Environment } from '../../src/env/index.ts';
import { getRecipe } from '../../src/locks/registry.ts';
import type { Held, Lock, LockContext } from '../../src/locks/lock.ts';
import { closeLocks, contendInMemory, contextFor, sleep } from './locks-support.ts';

const SESSION_MS = 1000; // the least the server grants with tickTime 500
let env: Environment;
let tp: Toxiproxy;
const opened: Lock[] = [];

before(async () => {
  env = await startEnvironment('zookeeper', { nodes: 1 });
  tp = new Toxiproxy(env.proxyUrl);
});
after(async () => {
  await closeLocks(opened);
  await env?.down();
});

async function lockFor(name: string, clientId: string, options: Record<string, unknown> = {}, extra: Partial<LockContext> = {}): Promise<Lock> {
  const l = await getRecipe(name).create(await contextFor(env, clientId, { options: { sessionTimeoutMs: SESSION_MS, ...options }, ...extra }));
  opened.push(l);
  return l;
}

/** Cuts (disable) or restores every proxied link of one client. */
async function setLinks(clientId: string, enabled: boolean): Promise<void> {
  for (const l of env.links.filter((x) => x.from === `client:${clientId}`)) {
    const p = await tp.get(l.name);
    await p.update({ enabled, listen: p.listen, upstream: p.upstream });
  }
}

/** N clients, `rounds` each, on one key: nobody overlaps, every release is 'released'. */

for (const name of ['zk-ephemeral-sequential', 'zk-ephemeral']) {
  test(`${name}: mutual exclusion among 4 contending clients`, async () => {
    const ls = await Promise.all([0, 1, 2, 3].map((i) => lockFor(name, `mx-${name}-${i}`)));
    const grants = await contendInMemory(ls, `mx:${name}`, 5);
    if (name === 'zk-ephemeral-sequential') {
      const tokens = grants.map((g) => Number(g.token));
      assert.deepEqual(tokens, [...tokens].sort((a, b) => a - b), 'fencing tokens grow with every grant');
      assert.equal(new Set(tokens).size, tokens.length);
    }
  });

  test(`${name}: a waiter is woken by the release (watch, no polling) and times out while held`, async () => {
    const [a, b] = [await lockFor(name, `w-${name}-a`), await lockFor(name, `w-${name}-b`)];
    const key = `w:${name}`;
    const ha = await a.acquire(key, { ttlMs: 1000, waitMs: 0 });
    assert.ok(ha);
    const t0 = performance.now();
    assert.equal(await b.acquire(key, { ttlMs: 1000, waitMs: 300 }), null, 'taken while A holds');
    assert.ok(performance.now() - t0 >= 290, 'B waited its budget');
    const waiting = b.acquire(key, { ttlMs: 1000, waitMs: 5000 });
    await sleep(200);
    const released = performance.now();
    assert.equal(await a.release(ha!), 'released');
    const hb = await waiting;
    assert.ok(hb, 'B acquires after the release');
    assert.ok(performance.now() - released < 300, 'the watch woke B at once');
    assert.equal(await b.release(hb!), 'released');
  });

  test(`${name}: the lock frees when the holder's session ends (client closed)`, async () => {
    const a = await getRecipe(name).create(await contextFor(env, `dead-${name}-a`, { options: { sessionTimeoutMs: SESSION_MS } }));
    const b = await lockFor(name, `dead-${name}-b`);
    const key = `dead:${name}`;
    assert.ok(await a.acquire(key, { ttlMs: 1000, waitMs: 0 }));
    const waiting = b.acquire(key, { ttlMs: 1000, waitMs: 5000 });
    await sleep(100);
    await a.close(); // the session closes: its ephemeral node goes
    const hb = await waiting;
    assert.ok(hb, 'B acquires once the dead holder\'s node is gone');
    assert.equal(await b.release(hb!), 'released');
  });
}

test('zk-ephemeral-sequential, treat-as-loss: holder cut off past the session timeout learns it lost; another acquires', async () => {
  const name = 'zk-ephemeral-sequential';
  const a = await lockFor(name, 'cut-a');
  const b = await lockFor(name, 'cut-b');
  const key = 'cut:careful';
  const ha = await a.acquire(key, { ttlMs: 1000, waitMs: 0 });
  assert.ok(ha);
  assert.ok(a.renew, 'the careful client can be asked before it acts');
  assert.equal(await a.renew!(ha!, 1000), 'renewed', 'still held while connected');
  await setLinks('cut-a', false);
  try {
    const t0 = performance.now();
    const hb = await b.acquire(key, { ttlMs: 1000, waitMs: 6000 });
    const waited = performance.now() - t0;
    assert.ok(hb, 'B acquires once A\'s session expired');
    assert.ok(waited >= SESSION_MS * 0.8 && waited < 5000, `B waited ${waited.toFixed(0)} ms for a ${SESSION_MS} ms session to expire`);
    assert.equal(await a.renew!(ha!, 1000), 'lost', 'A saw the disconnect and no longer believes it holds');
    assert.ok(Number(hb!.token) > Number(ha!.token), 'the new holder\'s token is greater: a fenced store rejects A');
    await b.release(hb!);
  } finally {
    await setLinks('cut-a', true);
  }
  assert.equal(await a.release(ha!), 'lost', 'its node went with the expired session');
});

test('zk-ephemeral, onDisconnect=ignore: the cut-off holder still believes it holds while another acquires (double holder)', async () => {
  const name = 'zk-ephemeral';
  const a = await lockFor(name, 'ign-a', { onDisconnect: 'ignore' });
  const b = await lockFor(name, 'ign-b', { onDisconnect: 'ignore' });
  const key = 'cut:ignore';
  const ha = await a.acquire(key, { ttlMs: 1000, waitMs: 0 });
  assert.ok(ha);
  assert.equal(a.renew, undefined, 'the sloppy client never asks');
  await setLinks('ign-a', false);
  let hb: Held | null = null;
  try {
    hb = await b.acquire(key, { ttlMs: 1000, waitMs: 6000 });
    assert.ok(hb, 'B acquires after A\'s session expired, while A still holds its Held: two holders');
    // Still cut off: a whole session timeout of silence tells the client its session is gone.
    assert.equal(await a.release(ha!), 'lost', 'only at release does A find its node gone');
  } finally {
    await setLinks('ign-a', true);
  }
  assert.equal(await b.release(hb!), 'released', 'A\'s release did not touch B\'s node');
  // A's client works again with a fresh session.
  const again = await a.acquire(key, { ttlMs: 1000, waitMs: 1000 });
  assert.ok(again);
  assert.equal(await a.release(again!), 'released');
});

test('zk-ephemeral-sequential, treat-as-loss: a black-holed link (no disconnect event) is noticed by the silence', async () => {
  const a = await lockFor('zk-ephemeral-sequential', 'hole-a');
  const key = 'hole:careful';
  const ha = await a.acquire(key, { ttlMs: 1000, waitMs: 0 });
  assert.ok(ha);
  const link = env.links.find((x) => x.from === 'client:hole-a')!;
  const p = await tp.get(link.name);
  const holes = [];
  for (const stream of ['upstream', 'downstream'] as const) {
    holes.push(await p.addToxic({ name: `test-hole-${stream}`, type: 'timeout', stream, toxicity: 1, attributes: { timeout: 0 } }));
  }
  try {
    await sleep(SESSION_MS); // > 2/3 of the session timeout without a word from the server
    const t0 = performance.now();
    assert.equal(await a.renew!(ha!, 1000), 'lost');
    assert.ok(performance.now() - t0 < 100, 'known from the silence already, without another request');
  } finally {
    for (const t of holes) await t.remove();
  }
});

test('zk-ephemeral-sequential, afterWait=assume-held (the Redis and ZooKeeper post\'s own code): a waiter whose wait ends proceeds as holder', async () => {
  const name = 'zk-ephemeral-sequential';
  const a = await lockFor(name, 'seed-a');
  const b = await lockFor(name, 'seed-b', { afterWait: 'assume-held' });
  const key = 'seed:assume';
  const ha = await a.acquire(key, { ttlMs: 1000, waitMs: 0 });
  assert.ok(ha);
  const hb = await b.acquire(key, { ttlMs: 1000, waitMs: 200 });
  assert.ok(hb, 'waitForLock returned after its timeout and the caller went on: two holders');
  assert.equal(await a.release(ha!), 'released');
  assert.equal(await b.release(hb!), 'released');
});

test('zk recipes: bad options get a clear error', async () => {
  await assert.rejects(lockFor('zk-ephemeral', 'bad-1', { onDisconnect: 'maybe' }), /onDisconnect=maybe .*ignore, treat-as-loss/);
  await assert.rejects(lockFor('zk-ephemeral-sequential', 'bad-2', { sessionTimeoutMs: 10 }), /sessionTimeoutMs=10 .*1000\.\.60000/);
});
