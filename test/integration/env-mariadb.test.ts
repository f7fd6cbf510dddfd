// test-lane: beside (its servers are its own; its verdicts do not hang on fine timing)
// The `mariadb` topology: one real mariadbd, reached with mysql2 through the proxy.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import mysql from 'mysql2/promise';
import { startEnvironment, MARIADB_DATABASE, type Environment } from '../../src/env/index.ts';

let env: Environment;

before(async () => {
  const t0 = performance.now();
  env = await startEnvironment('mariadb');
  const ms = performance.now() - t0;
  console.log(`mariadb up in ${ms.toFixed(0)} ms`);
});

after(async () => {
  await env?.down();
});

test('mysql2 creates a unique-key lock table and inserts through the proxied link', async () => {
  const [ep] = await env.clientEndpoints('c1');
  assert.notEqual(ep!.port, env.node('n1').port);
  // The endpoint carries the login a lock needs (LockContext.endpoints), nothing guessed by the lock.
  assert.deepEqual({ user: ep!.user, password: ep!.password, database: ep!.database }, { user: 'root', password: '', database: MARIADB_DATABASE });
  const c = await mysql.createConnection({ host: ep!.host, port: ep!.port, user: ep!.user, database: ep!.database });
  try {
    await c.query('CREATE TABLE locks (name VARCHAR(64) PRIMARY KEY, owner VARCHAR(64))');
    await c.query('INSERT INTO locks VALUES (?, ?)', ['k', 'c1']);
    await assert.rejects(c.query('INSERT INTO locks VALUES (?, ?)', ['k', 'c2']), /Duplicate entry/);
  } finally {
    await c.end();
  }
});

test('the clock shim moves the server wall clock (NOW())', async () => {
  const n1 = env.node('n1');
  const c = await mysql.createConnection({ host: '127.0.0.1', port: n1.port, user: 'root' });
  try {
    await n1.setClockOffsetMs(3_600_000);
    const [rows] = await c.query('SELECT UNIX_TIMESTAMP(NOW(6)) AS t');
    const skew = Number((rows as { t: string }[])[0]!.t) * 1000 - Date.now();
    assert.ok(Math.abs(skew - 3_600_000) < 5000, `server clock should be 1 h ahead, skew ${skew.toFixed(0)} ms`);
  } finally {
    await n1.setClockOffsetMs(0);
    await c.end();
  }
});
