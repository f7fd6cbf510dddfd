// kazoo's Lock (examples/process-clients/kazoo_lock.py, Debian python3-kazoo) as a process
// client on a real 3-member ZooKeeper ensemble: fault-free SAFE; as kazoo's documentation uses it,
// a holder cut off past its session timeout (the session-expiry aim, drawn first) works on while
// the next waiter holds: a double holder; with its connection-state listener (--careful:
// SUSPENDED/LOST ends the hold, renew says lost) SAFE under the same search, and that search
// really granted the lock to another client while the careful holder was cut off.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { anomalyTypes, grantsDuringAnchoredCuts, lockpick, markedProcesses, runDirs, tempStore } from './run-helpers.ts';

const KAZOO = './examples/process-clients/kazoo-lock.json';
const CAREFUL = './examples/process-clients/kazoo-lock-careful.json';

async function run(lock: string, extra: string[], time: string, store = tempStore()) {
  const mark = randomUUID();
  const r = await lockpick(['run', '--lock', lock, '--time', time, '--seed', '1', '--shrink-time', '0', '--store', store, '--json', ...extra], 150_000, { LOCKPICK_TEST_MARK: mark });
  assert.deepEqual(markedProcesses(mark, /python3|java/), [], `processes left behind by ${lock}`);
  return r;
}

test("kazoo's Lock, fault-free: SAFE", async () => {
  // A number of runs, not a time: seed 1's first 10 plans contend, however loaded the machine.
  const r = await run(KAZOO, ['--runs', '10'], '90');
  assert.equal(r.code, 0, `exit ${r.code}\n${r.stdout}\n${r.stderr}`);
  assert.ok(r.summary!.coverage.contended > 0);
});

test("kazoo's Lock as documented, its holder cut off past its session: a double holder (UNSAFE)", async () => {
  const r = await run(KAZOO, ['--faults', 'partition', '--first-failure'], '40');
  assert.equal(r.code, 1, `exit ${r.code}\n${r.stdout}\n${r.stderr}`);
  assert.ok(anomalyTypes(r).includes('double-holder'), `anomalies: ${anomalyTypes(r)}`);
  assert.match(r.stdout, /session ended under it|in its critical section/);
});

test("kazoo's Lock with its connection-state listener (--careful): SAFE under the same search, the lock given away inside the cut", async () => {
  const store = tempStore();
  // A number of runs, not a time: 5 runs in 12 s met no contention once (exit 3). Contention
  // counts only waiters that got a definite answer, and under partitions kazoo's waiters often
  // get none (a LockTimeout, a killed request): 10 runs under load once met none; 16 runs.
  const r = await run(CAREFUL, ['--faults', 'partition', '--runs', '16'], '120', store);
  assert.equal(r.code, 0, `exit ${r.code}\n${r.stdout}\n${r.stderr}`);
  const lines = runDirs(store).flatMap((d) => readFileSync(join(d, 'history.jsonl'), 'utf8').split('\n')).filter((l) => l.trim());
  // The aimed plan played out: another client granted while c1 was cut, and c1's renew said lost.
  assert.ok(grantsDuringAnchoredCuts(lines) > 0, 'no client got the lock while another was cut in its critical section');
  assert.ok(lines.some((l) => /"type":"fail","f":"renew".*"lost":true/.test(l)), 'the careful holder never gave its hold up');
});
