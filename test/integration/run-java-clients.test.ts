// test-lane: beside (its servers are its own; its verdicts do not hang on fine timing)
// The Java process clients (examples/process-clients/java/, docs/process-clients.md) through
// `lockpick run` on real servers, compiled once by the example's own build.sh. Apache Curator's
// InterProcessMutex on a ZooKeeper ensemble: SAFE fault-free; its holder cut off past its
// session works on (UNSAFE); with a ConnectionStateListener that gives the hold up on SUSPENDED
// or LOST it stays SAFE under the same search. Seed 001's MySQL unique-key lock over JDBC on
// MariaDB: SAFE fault-free; a killed holder keeps the row forever (liveness); the seed's
// expiry remedy frees it (SAFE) but lets a paused holder's unlock delete the next holder's row,
// and a jump of a client's wall clock, which reaches the JVM through the clock shim, lets it
// sweep a live holder's row (UNSAFE).
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { lockpick, markedProcesses, repoRoot, tempStore } from './run-helpers.ts';

const DIR = 'examples/process-clients/java';
const CURATOR = `./${DIR}/curator-lock.json`;
const CURATOR_LISTENER = `./${DIR}/curator-lock-listener.json`;
const JDBC = `./${DIR}/jdbc-unique-key.json`;
const JDBC_EXPIRE = `./${DIR}/jdbc-unique-key-expire.json`;

before(() => {
  // Idempotent: compiles only when a source is newer than the last build.
  execFileSync('/bin/sh', [path.join(repoRoot, DIR, 'build.sh')], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 120_000 });
});

async function run(lock: string, extra: string[], time: string) {
  const mark = randomUUID();
  const r = await lockpick(['run', '--lock', lock, '--time', time, '--seed', '1', '--shrink-time', '0', '--store', tempStore(), ...extra], 180_000, { LOCKPICK_TEST_MARK: mark });
  // The JVMs, and the servers (ZooKeeper is a JVM too), are gone with the run.
  assert.deepEqual(markedProcesses(mark, /java|mariadbd|mysqld/), [], `processes left behind by ${lock}`);
  return r;
}

const said = (r: { code: number | null; stdout: string; stderr: string }) => `exit ${r.code}\n${r.stdout}\n${r.stderr}`;

test("Curator's InterProcessMutex: SAFE fault-free (or inconclusive with its reason, never a violation)", async () => {
  const r = await run(CURATOR, [], '8');
  assert.ok(r.code === 0 || (r.code === 3 && /INCONCLUSIVE/.test(r.stdout)), said(r));
  assert.match(r.stdout, /acquire\(s\): [1-9]\d* ok/);
});

test("Curator's InterProcessMutex as documented: a holder cut off past its session works on, a double holder", async () => {
  const r = await run(CURATOR, ['--faults', 'partition', '--first-failure'], '40');
  assert.equal(r.code, 1, said(r));
  assert.match(r.stdout, /double-holder on key/);
  assert.match(r.stdout, /inherent to an unfenced session lock: the holder's session ended under it \(partition/);
});

test('Curator with a ConnectionStateListener (SUSPENDED or LOST: the hold is lost): SAFE under the same search', async () => {
  const r = await run(CURATOR_LISTENER, ['--faults', 'partition'], '25');
  // Exit 0 is the coverage promise: partitions took effect and an acquire met another's hold.
  assert.equal(r.code, 0, said(r));
  assert.match(r.stdout, /faults applied: partition [1-9]/);
});

test("seed 001's unique-key lock over JDBC: SAFE fault-free; a killed holder's row blocks the lock forever (liveness)", async () => {
  const safe = await run(JDBC, [], '8');
  assert.ok(safe.code === 0 || (safe.code === 3 && /INCONCLUSIVE/.test(safe.stdout)), said(safe));
  assert.match(safe.stdout, /acquire\(s\): [1-9]\d* ok/);
  const killed = await run(JDBC, ['--faults', 'client-kill', '--property', 'liveness', '--first-failure'], '40');
  assert.equal(killed.code, 1, said(killed));
  assert.match(killed.stdout, /liveness on key .*died while holding it.*nothing on the server expires this lock's hold/);
});

test("the seed's remedy, expiring old rows: a killed holder no longer blocks the lock (SAFE for liveness)", async () => {
  const r = await run(JDBC_EXPIRE, ['--faults', 'client-kill', '--property', 'liveness'], '20');
  assert.equal(r.code, 0, said(r));
  assert.match(r.stdout, /faults applied: client-kill [1-9]/);
});

test('the expiring lock under client pauses: a holder past its TTL loses its row, and its unlock deletes the next holder\'s', async () => {
  const r = await run(JDBC_EXPIRE, ['--faults', 'client-pause', '--first-failure'], '40');
  assert.equal(r.code, 1, said(r));
  assert.match(r.stdout, /double-holder on key/);
});

test("client-clock reaches the JVM through the clock shim: a client whose clock jumps sweeps a live holder's row", async () => {
  const r = await run(JDBC_EXPIRE, ['--faults', 'client-clock', '--first-failure'], '40');
  assert.equal(r.code, 1, said(r));
  assert.match(r.stdout, /double-holder on key .*\n\s+cause: c\d \(process \d+\) had its clock moved/);
});
