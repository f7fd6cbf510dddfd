// test-lane: beside (servers of its own on free ports; its search runs until a pause breaks the GET-DEL lock, its stored plans pause past the lease by hundreds of ms)
// I/O points for every client library a lock may use (src/runner/io-points.ts), on real servers:
// ioredis, node-redis 4 and 5 (npm `redis`, `redis5` = redis@5) and mysql2 each count one send per
// command however they hand it to the socket (node-redis writes a command with a Buffer argument
// in three write() calls, a MULTI in one call per command), so 'send:release:2' is the DEL of a
// GET-then-DEL release for all of them. Then a user lock on node-redis 4 with no declared point:
// a GET-compare-DEL unlock is caught by a pause between the GET and the DEL, and the same lock
// with an EVAL unlock stays SAFE under a stored plan that, at the DEL, breaks the GET-DEL lock. Both searches are restricted to the I/O
// points (--pause-at send,reply), as in run-io-pause.test.ts: a pause in the critical section
// longer than the lease breaks every lease lock, which would hide what these points add.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Redis } from 'ioredis';
import { createClient as createClient4 } from 'redis';
import { createClient as createClient5 } from 'redis5';
import mysql from 'mysql2/promise';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { anomalyTypes, lockpick, tempStore } from './run-helpers.ts';
import { replayReleasePause } from './run-scenarios.ts';
import { installIoPoints } from '../../src/runner/io-points.ts';
import { startEnvironment, type Environment } from '../../src/env/index.ts';
import type { Endpoint } from '../../src/env/types.ts';

// The point question: at 'send:release:2' the test reads the server directly (not through the
// proxy the client uses, so that read is not counted) to see what the client has done so far.
let atPoint: () => Promise<void> = async () => {};
const asked: string[] = [];
const io = installIoPoints(async (name) => { asked.push(name); await atPoint(); });

let redisEnv: Environment;
before(async () => { redisEnv = await startEnvironment('redis'); });
after(async () => { io.disarm(); await redisEnv?.down(); });

/** The calls a GET-then-DEL lock makes, with Buffer keys and values, and a MULTI. */
interface RedisLike {
  set(k: Buffer, v: Buffer): Promise<unknown>;
  get(k: Buffer): Promise<unknown>;
  del(k: Buffer): Promise<unknown>;
  getDelMulti(k: string): Promise<unknown>;
  close(): Promise<void>;
}

const CLIENTS: Record<string, (ep: Endpoint) => Promise<RedisLike>> = {
  ioredis: async (ep) => {
    const r = new Redis({ host: ep.host, port: ep.port, lazyConnect: true, maxRetriesPerRequest: 0 });
    await r.connect();
    return {
      set: (k, v) => r.set(k, v, 'PX', 5000, 'NX'), get: (k) => r.get(k), del: (k) => r.del(k),
      getDelMulti: (k) => r.multi().get(k).del(k).exec(), close: async () => { r.disconnect(); },
    };
  },
  ...Object.fromEntries(([['node-redis 4', createClient4], ['node-redis 5', createClient5]] as const).map(([name, create]) => [name, async (ep: Endpoint) => {
    const r = (create as (o: object) => unknown)({ socket: { host: ep.host, port: ep.port, reconnectStrategy: false } }) as {
      set(k: Buffer, v: Buffer, o: object): Promise<unknown>; get(k: Buffer): Promise<unknown>; del(k: Buffer): Promise<unknown>;
      multi(): { get(k: string): { del(k: string): { exec(): Promise<unknown> } } }; connect(): Promise<unknown>; disconnect(): Promise<unknown>;
    };
    await r.connect();
    return {
      set: (k: Buffer, v: Buffer) => r.set(k, v, { NX: true, PX: 5000 }), get: (k: Buffer) => r.get(k), del: (k: Buffer) => r.del(k),
      getDelMulti: (k: string) => r.multi().get(k).del(k).exec(), close: async () => { await r.disconnect(); },
    };
  }])),
};

for (const [name, open] of Object.entries(CLIENTS)) {
  test(`${name}: one send per command, Buffer arguments and a MULTI included; send:release:2 is the DEL`, async () => {
    const [ep] = await redisEnv.clientEndpoints('c1');
    const direct = new Redis({ port: redisEnv.node('n1').port, lazyConnect: true });
    await direct.connect();
    const c = await open(ep!);
    const key = Buffer.from(`${name}-lock`);
    try {
      io.arm([ep!.port], ['send:release:2']);
      io.operation('acquire');
      await c.set(key, Buffer.from('me'));
      assert.deepEqual(io.counts(), { sends: 1, replies: 1 }, 'SET with Buffer key and value: one command');
      let seen: string | null = 'not asked';
      atPoint = async () => { seen = await direct.get(key); };
      asked.length = 0;
      io.operation('release');
      assert.equal(String(await c.get(key)), 'me');
      await c.del(key);
      assert.deepEqual(io.counts(), { sends: 2, replies: 2 }, 'GET and DEL');
      assert.deepEqual(asked, ['send:release:2']);
      assert.equal(seen, 'me', 'paused just before the DEL: the GET was answered, the key still there');
      assert.equal(await direct.exists(key), 0);
      io.operation('release');
      await direct.set(`${name}-m`, 'x');
      await c.getDelMulti(`${name}-m`);
      assert.equal(io.counts().sends, 1, 'a MULTI written at once is one send');
      assert.deepEqual(io.takeReached(), { acquire: { sends: 1, replies: 1 }, release: { sends: 2, replies: 2 } });
    } finally {
      atPoint = async () => {};
      io.operation(undefined);
      io.disarm();
      await c.close();
      direct.disconnect();
    }
  });
}

test('mysql2 (MariaDB locks): one send per statement, send:release:2 is the DELETE after the SELECT', async () => {
  const env = await startEnvironment('mariadb');
  const [ep] = await env.clientEndpoints('c1');
  const login = { user: ep!.user, password: ep!.password, database: ep!.database };
  const direct = await mysql.createConnection({ host: '127.0.0.1', port: env.node('n1').port, ...login });
  const c = await mysql.createConnection({ host: ep!.host, port: ep!.port, ...login });
  try {
    await direct.query('CREATE TABLE locks (name VARCHAR(64) PRIMARY KEY, owner VARCHAR(64))');
    io.arm([ep!.port], ['send:release:2']);
    io.operation('acquire');
    await c.query('INSERT INTO locks VALUES (?, ?)', ['k', 'me']);
    assert.deepEqual(io.counts(), { sends: 1, replies: 1 });
    let seen = -1;
    atPoint = async () => { seen = ((await direct.query('SELECT owner FROM locks WHERE name = ?', ['k']))[0] as unknown[]).length; };
    asked.length = 0;
    io.operation('release');
    const [rows] = await c.query('SELECT owner FROM locks WHERE name = ?', ['k']);
    assert.equal((rows as { owner: string }[])[0]!.owner, 'me');
    await c.query('DELETE FROM locks WHERE name = ?', ['k']);
    assert.deepEqual(io.counts(), { sends: 2, replies: 2 });
    assert.deepEqual(asked, ['send:release:2']);
    assert.equal(seen, 1, 'paused just before the DELETE: the row still there');
  } finally {
    atPoint = async () => {};
    io.operation(undefined);
    io.disarm();
    await c.end().catch(() => {});
    await direct.end().catch(() => {});
    await env.down();
  }
});

// Time to detection, seeds 1-5 (2026-11-26, shrink-time 0): 3.3-12.8 s, median 7.8 s, each paused at
// send:release:2; the budget is about three times the worst.
// Before each command only: a pause between a reply and the acquire's return (a late grant) breaks any lease lock.
const search = ['--faults', 'client-pause', '--pause-at', 'send', '--clients', '3', '--json'];

test('a node-redis 4 lock with no declared point: GET-compare-DEL caught by a pause between the GET and the DEL', async () => {
  const r = await lockpick(['run', '--lock', './test/fixtures/locks/node-redis-get-del.ts', ...search, '--store', tempStore(),
    '--first-failure', '--time', '40', '--shrink-time', '4', '--seed', '3'], 150_000);
  assert.equal(r.code, 1, r.stderr.slice(-3000));
  // Learned from the calibration run: the release is two commands (a GET and a DEL).
  assert.match(r.stderr, /points learned from a calibration run: acquire sends 1\.\.\d.*, release sends 1\.\.2\b/);
  const s = r.summary!;
  const types = [...anomalyTypes(r), ...(s.firstAnomalies as { type: string }[]).map((a) => a.type)];
  assert.ok(types.includes('stale-release'), `anomalies: ${types}`);
  // Between the GET and the DEL: before the 2nd command, or after the 1st reply (before the compare).
  const points = s.minimal!.plan.faults.map((f) => String(f.params?.point));
  assert.ok(points.some((p) => p === 'send:release:2'), `paused between GET and DEL: ${points}`);
});

test('the same node-redis 4 lock with an EVAL unlock: SAFE where the GET-DEL lock breaks (a pause before its release command, past the lease)', async () => {
  // A stored plan, not a search (SAFE is no detection): c1 paused just before a command of its
  // release past its lease while c2 takes the lock (replayReleasePause). It bites: on the GET-DEL
  // lock, paused before its DEL (send:release:2), it is a stale unlock.
  const broken = await replayReleasePause('test/fixtures/locks/node-redis-get-del.ts', 'send:release:2');
  assert.equal(broken.code, 1, broken.stderr.slice(-3000));
  assert.ok(anomalyTypes(broken).includes('stale-release'), `anomalies: ${anomalyTypes(broken)}`);
  const r = await replayReleasePause('test/fixtures/locks/node-redis-lua.ts', 'send:release:1');
  assert.equal(r.code, 0, r.stderr.slice(-3000));
  assert.equal(r.summary!.verdict, true);
  assert.equal(r.summary!.coverage.faultsApplied['client-pause'], 1, 'c1 reached its release command and was paused there');
  assert.ok(r.summary!.coverage.contended > 0);
});

test('a node-redis 4 lock with a 250 ms command timeout, paused 800 ms just after its SET reply came: the reply is read before the timeout fires (SAFE, no crash)', async () => {
  // On waking, libuv fires the timers that ran out during a stop before it reads the sockets:
  // the lock's timeout disconnected, and the held reply, delivered to the destroyed socket, made
  // node-redis's parser throw (the client crashed, the run inconclusive). See late-timers.ts.
  const dir = tempStore();
  const lock = 'test/fixtures/locks/node-redis-timeout.ts';
  writeFileSync(path.join(dir, 'test.json'), JSON.stringify({
    description: "c1 paused just after its SET's reply arrived, past its command timeout; c2 asks meanwhile", lock, lock_spec: { path: lock }, property: 'both',
    plan: {
      ttlMs: 2000,
      clients: [{ attempts: [{ key: 'k0', delayMs: 0, waitMs: 1000, holdMs: 300, renew: false }] }, { attempts: [{ key: 'k0', delayMs: 400, waitMs: 2500, holdMs: 100, renew: false }] }],
      faults: [{ kind: 'client-pause', at_ms: 0, duration_ms: 800, target: 'c1', params: { point: 'reply:acquire:1' } }],
    },
  }));
  const r = await lockpick(['run', '--replay', dir, '--runs', '1', '--store', tempStore(), '--json'], 90_000);
  assert.equal(r.code, 0, r.stderr.slice(-3000));
  assert.equal(r.summary!.coverage.faultsApplied['client-pause'], 1);
  const c1 = readFileSync(path.join(r.summary!.dir, 'history.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string; f: string; process: unknown })
    .filter((e) => e.process === 0 && e.f === 'acquire');
  assert.deepEqual(c1.map((e) => e.type), ['invoke', 'ok'], 'the reply that came before the pause granted the lock');
});
