// test-lane: beside (servers of its own; the pauses outlast the lease or session by hundreds of ms, and each search runs until it breaks the lock)
// A hold that outlived its lock is a violation on its own (docs/checking.md, "exposure"), found
// with one client, where no double holder can show: a holder paused past its lease (redis, SET
// NX PX with the Lua unlock; python-etcd3's Lock as a process client), a holder paused past its
// ZooKeeper session. The careful client told its validity stops at it and stays SAFE for the lock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lockpick, tempStore } from './run-helpers.ts';

async function run(lock: string, extra: string[]) {
  return lockpick(['run', '--lock', lock, '--faults', 'client-pause', '--seed', '1', '--shrink-time', '0', '--store', tempStore(), '--json', ...extra], 150_000);
}

/** The failure whose anomalies are only exposures: inherent, by the pause, with the words of its class. */
function exposureFailure(r: Awaited<ReturnType<typeof run>>) {
  assert.equal(r.code, 1, `exit ${r.code}\n${r.stdout}\n${r.stderr}`);
  const f = r.summary!.failures!.find((x) => x.anomalies.includes('exposure'));
  assert.ok(f, JSON.stringify(r.summary!.failures));
  assert.equal(f.nature, 'inherent', f.cause);
  assert.deepEqual(f.kinds, ['client-pause']);
  return f;
}

test('one client, SET NX PX + Lua unlock, its holder paused past its lease: UNSAFE by exposure (inherent to an unfenced lease), no contention needed', async () => {
  const r = await run('redis-set-px-lua', ['--clients', '1', '--first-failure', '--time', '30']);
  const f = exposureFailure(r);
  assert.match(f.cause, /inherent to an unfenced lease: a holder was paused past its lease/);
  assert.match(r.stderr + r.stdout, /still believed it held lock/);
});

test('python-etcd3\'s Lock as a process client, one client paused past its lease: UNSAFE by exposure', async () => {
  const r = await run('./examples/process-clients/etcd3-lock.json', ['--clients', '1', '--first-failure', '--time', '40']);
  exposureFailure(r);
});

test('a ZooKeeper session lock, one client paused past its session: UNSAFE by exposure (its session ended under it)', async () => {
  const r = await run('zk-ephemeral', ['--clients', '1', '--first-failure', '--time', '60']);
  const f = exposureFailure(r);
  assert.match(f.cause, /session/);
});
