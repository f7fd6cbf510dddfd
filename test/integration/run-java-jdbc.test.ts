// test-lane: beside (its servers are its own; its verdicts do not hang on fine timing)
// The database-lock post's MySQL unique-key lock in Java over JDBC (examples/process-clients/java/
// JdbcUniqueKeyLock.java, docs/process-clients.md) through `lockpick run` on a real MariaDB,
// compiled once by the example's own build.sh: SAFE fault-free; a killed holder keeps the row
// forever (liveness); the post's expiry remedy frees it (SAFE) but lets a paused holder lose its
// row, and a jump of a client's wall clock, which reaches the JVM through the clock shim, lets it
// sweep a live holder's row (UNSAFE); with a fencing token (not in the post) the resource stays
// whole under pauses (SAFE for the resource).
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertFaultFreeSafe, buildJavaClients, runJava, said } from './java-helpers.ts';

const JDBC = 'jdbc-unique-key.json';
const JDBC_EXPIRE = 'jdbc-unique-key-expire.json';
const JDBC_FENCED = 'jdbc-unique-key-fenced.json';

before(buildJavaClients);

test("the database-lock post's unique-key lock over JDBC: SAFE fault-free; a killed holder's row blocks the lock forever (liveness)", async () => {
  await assertFaultFreeSafe(JDBC);
  const killed = await runJava(JDBC, ['--faults', 'client-kill', '--property', 'liveness', '--first-failure'], '40');
  assert.equal(killed.code, 1, said(killed));
  assert.match(killed.stdout, /liveness on key .*died while holding it.*nothing on the server expires this lock's hold/);
});

test("the post's remedy, expiring old rows: a killed holder no longer blocks the lock (SAFE for liveness)", async () => {
  const r = await runJava(JDBC_EXPIRE, ['--faults', 'client-kill', '--property', 'liveness'], '15');
  assert.equal(r.code, 0, said(r));
  assert.match(r.stdout, /faults applied: client-kill [1-9]/);
});

test('the expiring lock under client pauses: a holder past its TTL loses its row, and its unlock deletes the next holder\'s', async () => {
  const r = await runJava(JDBC_EXPIRE, ['--faults', 'client-pause', '--first-failure'], '40');
  assert.equal(r.code, 1, said(r));
  assert.match(r.stdout, /double-holder on key/);
});

test("client-clock reaches the JVM through the clock shim: a client whose clock jumps sweeps a live holder's row", async () => {
  const r = await runJava(JDBC_EXPIRE, ['--faults', 'client-clock', '--first-failure'], '40');
  assert.equal(r.code, 1, said(r));
  assert.match(r.stdout, /double-holder on key .*\n\s+cause: c\d \(process \d+\) had its clock moved/);
});

test('with a fencing token (the row\'s AUTO_INCREMENT, not in the post): the paused holder\'s writes are refused, SAFE for the resource', async () => {
  const r = await runJava(JDBC_FENCED, ['--faults', 'client-pause', '--property', 'resource'], '25');
  assert.equal(r.code, 0, said(r));
  // The lock itself still breaks; fencing is what keeps the resource whole.
  assert.match(r.stdout, /accepted 0 stale write\(s\) and rejected [1-9]\d* stale step\(s\) by fencing/);
});
