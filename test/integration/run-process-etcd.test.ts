// test-lane: beside (its servers are its own; a pause past the lease is aimed with the lease lag as slack, and fencing verdicts do not hang on timing)
// Process clients on a real 3-member etcd cluster: python-etcd3's Lock (etcd3_lock.py, Debian
// python3-etcd3: a key under a lease nothing keeps alive) and Go's concurrency.Mutex through
// `etcdctl lock` (etcdctl_lock.py drives etcd-client's etcdctl: a session lease kept alive while
// held). For each: fault-free SAFE; a holder paused past its lease (the lease-outlived aim; the
// Go client's keep-alives stop with it) writes after the next holder: the resource accepts a
// stale write (UNSAFE); with the lock key's create revision as a fencing token (--fenced) the
// resource refuses that write under the same search, so SAFE for the resource.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { lockpick, markedProcesses, tempStore } from './run-helpers.ts';

const CLIENTS = [
  { name: "python-etcd3's Lock", plain: './examples/process-clients/etcd3-lock.json', fenced: './examples/process-clients/etcd3-lock-fenced.json' },
  { name: "Go's concurrency.Mutex (etcdctl lock)", plain: './examples/process-clients/etcdctl-lock.json', fenced: './examples/process-clients/etcdctl-lock-fenced.json' },
];

async function run(lock: string, extra: string[], time: string) {
  const mark = randomUUID();
  const r = await lockpick(['run', '--lock', lock, '--time', time, '--seed', '1', '--shrink-time', '0', '--store', tempStore(), '--json', ...extra], 150_000, { LOCKPICK_TEST_MARK: mark });
  assert.deepEqual(markedProcesses(mark, /python3|etcdctl/), [], `processes left behind by ${lock}`);
  return r;
}

for (const c of CLIENTS) {
  test(`${c.name}, fault-free: SAFE`, async () => {
    // A number of runs, not a time: seed 1's first 10 plans contend, however loaded the machine.
    const r = await run(c.plain, ['--runs', '10'], '90');
    assert.equal(r.code, 0, `exit ${r.code}\n${r.stdout}\n${r.stderr}`);
  });

  test(`${c.name}, its holder paused past the lease: a stale write accepted (UNSAFE)`, async () => {
    // Paused where a stale write comes from (before its write): a search that must find it, not one that may.
    const r = await run(c.plain, ['--faults', 'client-pause', '--pause-at', 'before-write', '--property', 'resource', '--first-failure'], '40');
    assert.equal(r.code, 1, `exit ${r.code}\n${r.stdout}\n${r.stderr}`);
    assert.ok(r.summary!.resource.staleWritesAccepted > 0 || r.summary!.resource.lostUpdates > 0, JSON.stringify(r.summary!.resource));
    // Broken by the pause: the minimal plan keeps it.
    assert.ok(r.summary!.minimal!.plan.faults.some((f) => f.kind === 'client-pause'), JSON.stringify(r.summary!.minimal!.plan.faults));
  });

  test(`${c.name} with the key's create revision as a fencing token: SAFE for the resource under the same search, stale steps refused`, async () => {
    const r = await run(c.fenced, ['--faults', 'client-pause', '--property', 'resource', '--runs', '10'], '90');
    assert.equal(r.code, 0, `exit ${r.code}\n${r.stdout}\n${r.stderr}`);
    // The pause did break the lock (the next client got it): fencing is what kept the resource safe.
    assert.ok(r.summary!.resource.staleStepsPrevented > 0, JSON.stringify(r.summary!.resource));
  });
}

test("client-clock on the Go client, whose recipe does not say so: each run with a step while etcdctl runs is inconclusive, naming the Go binary; never SAFE", async () => {
  const r = await run('./examples/process-clients/etcdctl-lock.json', ['--faults', 'client-clock'], '15');
  assert.equal(r.code, 3, `exit ${r.code}\n${r.stdout}\n${r.stderr}`);
  const reasons = Object.keys(r.summary!.coverage.inconclusiveReasons).join('\n');
  // Seen in this client's own tree, or first in another client's (which client runs etcdctl first is timing).
  assert.match(reasons, /fault 'client-clock' did not reach the lock: client c\d+: its (process N|recipe's program \(process N of another client\)) \(\/usr\/bin\/etcdctl\) is a Go executable/);
});

test("the fault proxy frames a process client's gRPC calls (HTTP/2): send points learned, and pauses held there", async () => {
  const r = await run(CLIENTS[0]!.fenced, ['--faults', 'client-pause', '--pause-at', 'send', '--property', 'resource'], '12');
  assert.ok(r.code === 0 || r.code === 3, `exit ${r.code}\n${r.stdout}\n${r.stderr}`);
  const learned = (JSON.parse(readFileSync(join(r.summary!.dir, 'test.json'), 'utf8')) as { points_learned: { reached: { io: Record<string, { sends: number; grantedSends?: number }> } } }).points_learned.reached.io;
  // A free lock's acquire is python-etcd3's LeaseGrant and Txn, then the fenced client's Get; its release one Txn.
  assert.equal(learned.acquire?.grantedSends, 3, JSON.stringify(learned));
  assert.equal(learned.release?.sends, 1, JSON.stringify(learned));
  const events = readFileSync(join(r.summary!.dir, 'history.jsonl'), 'utf8');
  assert.match(events, /"f":"client-pause-start".*"point":"send:(acquire|release):\d+"/);
});
