// test-lane: beside
// Semaphores and read-write locks on real servers, each verdict by a fixed number of runs (or the
// first failure), not by a time: the sorted-set Redis semaphore breaks under client-clock (a
// client ahead trims the live holders) and its Lua fix holds under the same search; kazoo's and
// Curator's semaphores and read-write locks (process clients, a 3-member ZooKeeper ensemble) are
// SAFE fault-free and, as documented (no connection-state listener), let one holder too many in
// when a holder is cut off past its session.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { anomalyTypes, lockpick, markedProcesses, tempStore, type CliResult } from './run-helpers.ts';
import { buildJavaClients, JAVA_DIR } from './java-helpers.ts';

before(buildJavaClients);

async function run(lock: string, extra: string[]): Promise<CliResult> {
  const mark = randomUUID();
  const r = await lockpick(['run', '--lock', lock, '--time', '240', '--seed', '1', '--shrink-time', '0', '--store', tempStore(), '--json', ...extra], 300_000, { LOCKPICK_TEST_MARK: mark });
  assert.deepEqual(markedProcesses(mark, /python3|java|redis-server/), [], `processes left behind by ${lock}`);
  return r;
}

const said = (r: CliResult) => `exit ${r.code}\n${r.stdout}\n${r.stderr}`;

/** Fault-free, a few runs: SAFE and contended (a SAFE is a promise: exit 0 only when a waiter met a full lock). */
async function safe(lock: string): Promise<void> {
  const r = await run(lock, ['--runs', '6']);
  assert.equal(r.code, 0, said(r));
  assert.ok(r.summary!.coverage.contended > 0, said(r));
}

/**
 * Under partitions, to the first failure: UNSAFE, with more holders at once than the lock allows,
 * or a holder that acted on its hold after its session had ended under it (an exposure).
 */
async function brokenByPartition(lock: string, anomalies: RegExp): Promise<void> {
  const r = await run(lock, ['--faults', 'partition', '--first-failure']);
  assert.equal(r.code, 1, said(r));
  assert.ok(anomalyTypes(r).some((t) => anomalies.test(t)), `anomalies: ${anomalyTypes(r)}`);
  // The failure's class (stdout) or its cause as printed (stderr): a run the search breaks without the session aim is "not classified", its cause still "in its critical section".
  assert.match(`${r.stdout}\n${r.stderr}`, /session ended under it|in its critical section/, said(r));
}

test('the sorted-set Redis semaphore under client-clock: a client ahead trims the live holders, one holder too many (UNSAFE)', async () => {
  const r = await run('redis-zset-semaphore', ['--faults', 'client-clock', '--first-failure']);
  assert.equal(r.code, 1, said(r));
  assert.ok(anomalyTypes(r).includes('over-admission'), `anomalies: ${anomalyTypes(r)}`);
  assert.match(r.stdout, /a bug in this lock/, said(r));
});

test('its Lua fix (server TIME, owner-checked release) under the same search: SAFE, the clocks moved and the semaphore contended', async () => {
  const r = await run('redis-lua-semaphore', ['--faults', 'client-clock', '--runs', '6']);
  assert.equal(r.code, 0, said(r));
  assert.ok(r.summary!.coverage.contended > 0, said(r));
  assert.ok((r.summary!.coverage.faultsApplied['client-clock'] ?? 0) > 0, said(r));
});

test("kazoo's Semaphore: SAFE fault-free; a holder cut off past its session, a third holder of two permits (UNSAFE)", async () => {
  await safe('./examples/process-clients/kazoo-semaphore.json');
  await brokenByPartition('./examples/process-clients/kazoo-semaphore.json', /^(over-admission|exposure)$/);
});

test("kazoo's ReadLock/WriteLock: SAFE fault-free; a writer cut off past its session beside the next (UNSAFE)", async () => {
  await safe('./examples/process-clients/kazoo-rwlock.json');
  await brokenByPartition('./examples/process-clients/kazoo-rwlock.json', /^(writer-beside-writer|writer-beside-reader|exposure)$/);
});

test("Curator's InterProcessSemaphoreV2: SAFE fault-free; a holder cut off past its session, a third holder of two leases (UNSAFE)", async () => {
  await safe(`./${JAVA_DIR}/curator-semaphore.json`);
  await brokenByPartition(`./${JAVA_DIR}/curator-semaphore.json`, /^(over-admission|exposure)$/);
});

test("Curator's InterProcessReadWriteLock: SAFE fault-free; a writer cut off past its session beside the next (UNSAFE)", async () => {
  await safe(`./${JAVA_DIR}/curator-rwlock.json`);
  await brokenByPartition(`./${JAVA_DIR}/curator-rwlock.json`, /^(writer-beside-writer|writer-beside-reader|exposure)$/);
});
