// test-lane: beside (its servers are its own; its verdicts do not hang on fine timing)
// The MySQL recipes (the database-lock post) on a real MariaDB, every client through its own
// proxied link; an admin connection straight to the server looks at tables and
// kills sessions.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import mysql, { type Connection, type RowDataPacket } from 'mysql2/promise';
import { startEnvironment, MARIADB_DATABASE, type Environment } from '../../src/env/index.ts';
import { getRecipe } from '../../src/locks/registry.ts';
import type { Held, Lock } from '../../src/locks/lock.ts';
import { closeLocks, contendInMemory, contextFor, sleep } from './locks-support.ts';

let env: Environment;
let admin: Connection;
const opened: Lock[] = [];

before(async () => {
  env = await startEnvironment('mariadb');
  admin = await mysql.createConnection({ host: '127.0.0.1', port: env.node('n1').port, user: 'root', database: MARIADB_DATABASE });
});
after(async () => {
  await closeLocks(opened);
  await admin?.end();
  await env?.down();
});

async function lockFor(name: string, clientId: string, options: Record<string, unknown> = {}): Promise<Lock> {
  const l = await getRecipe(name).create(await contextFor(env, clientId, { options: { retryMs: 50, ...options } }));
  opened.push(l);
  return l;
}

async function rows(sql: string, params: unknown[] = []): Promise<RowDataPacket[]> {
  return (await admin.query<RowDataPacket[]>(sql, params))[0];
}


for (const name of ['mysql-unique-key', 'mysql-for-update', 'mysql-get-lock']) {
  test(`${name}: mutual exclusion among 4 contending clients`, async () => {
    const ls = await Promise.all([0, 1, 2, 3].map((i) => lockFor(name, `mx-${name}-${i}`)));
    await contendInMemory(ls, `mx:${name}`, 4);
  });

  test(`${name}: taken while held (waiter times out), free after release`, async () => {
    const [a, b] = [await lockFor(name, `rel-${name}-a`), await lockFor(name, `rel-${name}-b`)];
    const key = `rel:${name}`;
    const ha = await a.acquire(key, { ttlMs: 1000, waitMs: 0 });
    assert.ok(ha);
    const t0 = performance.now();
    assert.equal(await b.acquire(key, { ttlMs: 1000, waitMs: 300 }), null, 'taken while A holds');
    const waited = performance.now() - t0;
    assert.ok(waited >= 250 && waited < 1500, `B waited ${waited.toFixed(0)} ms of a 300 ms budget`);
    assert.equal(await a.release(ha!), 'released');
    const hb = await b.acquire(key, { ttlMs: 1000, waitMs: 0 });
    assert.ok(hb, 'free after the release');
    assert.equal(await b.release(hb!), 'released');
  });
}

test('mysql-unique-key: reentrant by owner, released at count 0; a foreign release is "lost" and deletes nothing', async () => {
  const [a, b] = [await lockFor('mysql-unique-key', 're-a'), await lockFor('mysql-unique-key', 're-b')];
  const key = 're:unique';
  const h1 = await a.acquire(key, { ttlMs: 1000, waitMs: 0 });
  const h2 = await a.acquire(key, { ttlMs: 1000, waitMs: 0 });
  assert.ok(h1 && h2, 'the owner re-enters');
  assert.deepEqual((await rows('SELECT count, thName FROM test_lock WHERE id = ?', [key])).map((r) => [r.count, r.thName]), [[2, 're-a']]);
  assert.equal(await b.release({ key }), 'lost', 'B never held it');
  assert.equal(await a.release(h2!), 'released');
  assert.equal(await b.acquire(key, { ttlMs: 1000, waitMs: 0 }), null, 'still held at count 1');
  assert.equal(await a.release(h1!), 'released');
  assert.equal((await rows('SELECT * FROM test_lock WHERE id = ?', [key])).length, 0, 'row deleted at count 0');
});

test('mysql-unique-key: a holder that dies without unlocking blocks the lock forever (no expiry)', async () => {
  const a = await getRecipe('mysql-unique-key').create(await contextFor(env, 'crash-a', { options: { retryMs: 50 } }));
  const b = await lockFor('mysql-unique-key', 'crash-b');
  const key = 'crash:unique';
  assert.ok(await a.acquire(key, { ttlMs: 500, waitMs: 0 }));
  await a.close(); // the connection is destroyed: the client is gone, its row is not
  assert.equal(await b.acquire(key, { ttlMs: 500, waitMs: 1500 }), null, 'still taken 1.5 s after the holder died (its "ttl" was 500 ms)');
  assert.deepEqual((await rows('SELECT thName FROM test_lock WHERE id = ?', [key])).map((r) => r.thName), ['crash-a']);
});

for (const name of ['mysql-for-update', 'mysql-get-lock']) {
  test(`${name}: the server ends the holder's session (KILL): a waiter gets the lock while the holder still believes it holds`, async () => {
    const [a, b] = [await lockFor(name, `kill-${name}-a`), await lockFor(name, `kill-${name}-b`)];
    const key = `kill:${name}`;
    const ha = await a.acquire(key, { ttlMs: 1000, waitMs: 0 });
    assert.ok(ha);
    const waiting = b.acquire(key, { ttlMs: 1000, waitMs: 5000 });
    await sleep(200);
    await admin.query(`KILL ${Number(ha!.session)}`);
    const hb = await waiting;
    assert.ok(hb, 'B acquires: two clients believe they hold');
    assert.equal(await a.release(ha!), 'lost', 'A learns only at unlock that its session was gone');
    assert.equal(await b.release(hb!), 'released');
  });

  test(`${name}: a silent holder past wait_timeout loses the lock to a waiter`, async () => {
    const [a, b] = [await lockFor(name, `idle-${name}-a`, { waitTimeoutS: 1 }), await lockFor(name, `idle-${name}-b`)];
    const key = `idle:${name}`;
    const ha: Held | null = await a.acquire(key, { ttlMs: 1000, waitMs: 0 });
    assert.ok(ha);
    const t0 = performance.now();
    const hb = await b.acquire(key, { ttlMs: 1000, waitMs: 5000 });
    const waited = performance.now() - t0;
    assert.ok(hb, 'the server dropped A\'s idle session and its lock');
    assert.ok(waited >= 900 && waited < 4500, `freed after ${waited.toFixed(0)} ms for wait_timeout = 1 s`);
    assert.equal(await a.release(ha!), 'lost');
    assert.equal(await b.release(hb!), 'released');
  });
}

test('mysql recipes: bad options get a clear error', async () => {
  await assert.rejects(lockFor('mysql-for-update', 'bad-1', { waitTimeoutS: 0.5 }), /waitTimeoutS=0\.5 .*whole number of seconds/);
  await assert.rejects(lockFor('mysql-unique-key', 'bad-2', { retryMs: 'soon' }), /retryMs=soon/);
});
