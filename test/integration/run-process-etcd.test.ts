// Process clients on a real 3-member etcd cluster. python-etcd3's Lock
// (examples/process-clients/etcd3_lock.py, Debian python3-etcd3): a key under a lease nothing
// keeps alive; fault-free SAFE; a holder paused past its lease (the lease-outlived aim) writes
// after the next holder: the resource accepts a stale write (UNSAFE); with the key's create
// revision as a fencing token (--fenced) the resource refuses that write under the same search.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { lockpick, markedProcesses, tempStore } from './run-helpers.ts';

const ETCD3 = './examples/process-clients/etcd3-lock.json';
const ETCD3_FENCED = './examples/process-clients/etcd3-lock-fenced.json';

async function run(lock: string, extra: string[], time: string) {
  const mark = randomUUID();
  const r = await lockpick(['run', '--lock', lock, '--time', time, '--seed', '1', '--shrink-time', '0', '--store', tempStore(), '--json', ...extra], 150_000, { LOCKPICK_TEST_MARK: mark });
  assert.deepEqual(markedProcesses(mark, /python3|etcdctl|etcd /), [], `processes left behind by ${lock}`);
  return r;
}

test("python-etcd3's Lock, fault-free: SAFE", async () => {
  const r = await run(ETCD3, [], '25');
  assert.equal(r.code, 0, `exit ${r.code}\n${r.stdout}\n${r.stderr}`);
});

test("python-etcd3's Lock, its holder paused past the lease: a stale write accepted (UNSAFE)", async () => {
  const r = await run(ETCD3, ['--faults', 'client-pause', '--property', 'resource', '--first-failure'], '40');
  assert.equal(r.code, 1, `exit ${r.code}\n${r.stdout}\n${r.stderr}`);
  assert.ok(r.summary!.resource.staleWritesAccepted > 0 || r.summary!.resource.lostUpdates > 0, JSON.stringify(r.summary!.resource));
  // Broken by the pause: the minimal plan keeps it.
  assert.ok(r.summary!.minimal!.plan.faults.some((f) => f.kind === 'client-pause'), JSON.stringify(r.summary!.minimal!.plan.faults));
});

test("python-etcd3's Lock with the key's create revision as a fencing token: SAFE for the resource under the same search, stale steps refused", async () => {
  const r = await run(ETCD3_FENCED, ['--faults', 'client-pause', '--property', 'resource'], '30');
  assert.equal(r.code, 0, `exit ${r.code}\n${r.stdout}\n${r.stderr}`);
  // The pause did break the lock (the next client got it), and fencing is what kept the resource safe.
  assert.ok(r.summary!.resource.staleStepsPrevented > 0, JSON.stringify(r.summary!.resource));
});
