// test-lane: beside (its servers are its own; its verdicts do not hang on fine timing)
// --env external on PostgreSQL: a server started here by hand (lockpick's own recipe for one,
// but no lockpick run owns it) stands for the user's database. The session-kill search ends the
// holder's session there with pg_terminate_backend and finds the double holder, while a session
// of the user's own that was open all along survives it; server faults are refused up front.
import { tempDir } from '../support/temp-dir.ts';
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { freePort } from '../../src/env/ports.ts';
import { createPostgresNode, POSTGRES_CREDENTIALS } from '../../src/env/postgres.ts';
import { anomalyTypes, lockpick, tempStore } from './run-helpers.ts';

const root = tempDir('external-postgres-');
const port = await freePort();
const server = await createPostgresNode({ id: 'u1', root, port });   // started, and ready
after(async () => { await server.stop(); });
const { user, password, database } = POSTGRES_CREDENTIALS;
const endpoints = `postgres=${user}:${password}@127.0.0.1:${port}/${database}`;

test("external PostgreSQL: session-kill breaks pg-advisory-session there (exit 1); the user's own session survives", async () => {
  const own = new pg.Client({ host: '127.0.0.1', port, user, password, database });
  await own.connect();
  try {
    const pid = (await own.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
    const r = await lockpick(['run', '--lock', 'pg-advisory-session', '--env', 'external', '--endpoints', endpoints, '--faults', 'session-kill',
      '--seed', '1', '--first-failure', '--time', '30', '--shrink-time', '0', '--store', tempStore(), '--json'], 120_000);
    assert.equal(r.code, 1, r.stderr);
    assert.ok(anomalyTypes(r).includes('double-holder'), `anomalies: ${anomalyTypes(r)}`);
    assert.match(r.stderr, /faults applied: session-kill \d/);
    assert.equal((await own.query('SELECT pg_backend_pid() AS pid')).rows[0].pid, pid, 'the same session answers after the run');
  } finally {
    await own.end();
  }
});

test('external PostgreSQL: a server fault is refused up front (exit 2 naming what the environment lacks)', async () => {
  const r = await lockpick(['run', '--lock', 'pg-advisory-session', '--env', 'external', '--endpoints', endpoints, '--faults', 'kill', '--store', tempStore()], 30_000);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /external/);
});
