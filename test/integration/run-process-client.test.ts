// test-lane: beside (its servers are its own; its verdicts do not hang on fine timing)
// Process clients (docs/process-clients.md) through `lockpick run` on a real Redis: redis-py's
// own Lock is safe fault-free and breaks under client pauses; a child's named point is where a
// pause lands; a child that breaks the protocol stops the run with exit 2 naming the cause; a
// child that dies mid-operation is an unknown outcome; no child outlives the run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { lockpick, markedProcesses, tempStore } from './run-helpers.ts';

const MISBEHAVE = '/usr/bin/python3 test/fixtures/process-clients/misbehave.py';
const REDIS_PY = "exec:/usr/bin/python3 examples/process-clients/redis_py_lock.py";

async function run(lock: string, extra: string[], time = '10') {
  const mark = randomUUID();
  const r = await lockpick(['run', '--lock', lock, '--time', time, '--shrink-time', '0', '--store', tempStore(), ...extra], 150_000, { LOCKPICK_TEST_MARK: mark });
  assert.deepEqual(markedProcesses(mark, /python3|redis-server/), [], `processes left behind by ${lock}`);
  return r;
}

test("redis-py's Lock: SAFE (or inconclusive with its reason) fault-free, a double holder under client pauses", async () => {
  const safe = await run(REDIS_PY, ['--json'], '8');
  // --json: the verdict is on stdout as JSON, the words on stderr; an inconclusive run names its gaps.
  const said = JSON.parse(safe.stdout) as { verdict: unknown; gaps: string[] };
  assert.ok((safe.code === 0 && said.verdict === true) || (safe.code === 3 && said.verdict === 'unknown' && said.gaps.length > 0 && /INCONCLUSIVE/.test(safe.stderr)), `exit ${safe.code}\n${safe.stdout}\n${safe.stderr}`);
  const paused = await run(REDIS_PY, ['--faults', 'client-pause', '--first-failure', '--json'], '40');
  assert.equal(paused.code, 1, `exit ${paused.code}\n${paused.stdout}\n${paused.stderr}`);
  assert.match(paused.stdout, /double-holder|stale-write|lost-update/);
});

test("a child's named point is where a pause lands: GET-compare-DEL broken at 'after-compare'", async () => {
  const r = await run('./test/fixtures/process-clients/get-del-point.json', ['--faults', 'client-pause', '--pause-at', 'after-compare', '--first-failure'], '40');
  assert.equal(r.code, 1, `exit ${r.code}\n${r.stdout}\n${r.stderr}`);
  assert.match(r.stdout, /points learned from a calibration run: named: after-compare/);
  assert.match(r.stdout, /at its point 'after-compare'/);
});

for (const [mode, cause] of [
  ['exit-at-start', /it exited with code 3 before answering \{"t":"start"\} with \{"t":"ready"\}/],
  ['garbage', /a line that is not a protocol message .*; the line it wrote: hello, I am not JSON/],
  ['twice', /a second answer to request \d+; the line it wrote: \{"t": "(held|busy)", "id": \d+\}/],
  ['wrong-id', /an answer to request \d+, which it was not asked; the line it wrote/],
  ['never-ready', /no \{"t":"ready"\} within 10 s of \{"t":"start"\}/],
] as const) {
  test(`a child that breaks the protocol (${mode}): exit 2 naming the cause`, async () => {
    const r = await run(`exec:${MISBEHAVE} ${mode}`, []);
    assert.equal(r.code, 2, `exit ${r.code}\n${r.stdout}\n${r.stderr}`);
    assert.match(r.stderr, /lockpick run: process client '.*misbehave\.py .*' broke the protocol \(docs\/process-clients\.md\): /);
    assert.match(r.stderr, cause);
    assert.doesNotMatch(r.stdout, /SAFE|UNSAFE/);
    if (mode === 'exit-at-start') {
      // The child's stderr is in its client's log, in the run dir.
      const dir = path.dirname(/history in (\S+history\.jsonl)/.exec(r.stdout)![1]!);
      const logs = readdirSync(path.join(dir, 'clients')).map((f) => readFileSync(path.join(dir, 'clients', f), 'utf8')).join('');
      assert.match(logs, /misbehave: cannot start/);
    }
  });
}

test('a child that dies before ready (a missing Python module): exit 2 quoting the last lines of its stderr', async () => {
  const r = await run('exec:/usr/bin/python3 test/fixtures/process-clients/missing_module.py', [], '5');
  assert.equal(r.code, 2, `exit ${r.code}\n${r.stdout}\n${r.stderr}`);
  assert.match(r.stderr, /it exited with code 1 before answering \{"t":"start"\} with \{"t":"ready"\}; the last lines of its stderr:\n {4}Traceback/);
  assert.match(r.stderr, /\n {4}ModuleNotFoundError: No module named 'lockpick_no_such_module'/);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace of lockpick');
});

test('a child that exits mid-operation: an unknown outcome (info), and a fresh child goes on', async () => {
  const r = await run(`exec:${MISBEHAVE} exit-mid-op`, ['--json']);
  assert.ok(r.summary, `no summary (exit ${r.code})\n${r.stderr}`);
  assert.notEqual(r.code, 2, r.stderr);
  const events = readFileSync(`${r.summary.dir}/history.jsonl`, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string; f: string; error?: string });
  const infos = events.filter((e) => e.type === 'info' && e.f === 'acquire');
  assert.ok(infos.some((e) => /the client process exited with code 1 during acquire\('r\d+-k\d+'\): unknown outcome/.test(e.error ?? '')), JSON.stringify(infos));
  // A client's later acquire answered: a new child took over.
  assert.ok(events.filter((e) => e.type === 'ok' && e.f === 'acquire').length > infos.length);
});

test('a child that never answers: every request an unknown outcome, so inconclusive (exit 3) with the reason, never a hang', async () => {
  const r = await run(`exec:${MISBEHAVE} mute`, [], '6');
  assert.equal(r.code, 3, `exit ${r.code}\n${r.stdout}\n${r.stderr}`);
  assert.match(r.stdout, /INCONCLUSIVE: no violation/);
  assert.match(r.stdout, /acquire\(s\)(?: in the conclusive run\(s\))?: 0 ok/);
});

test("client-clock on a runtime that reads its clock without libc: refused, exit 2, with the reason", async () => {
  const r = await lockpick(['run', '--lock', './test/fixtures/process-clients/go-binary.json', '--faults', 'client-clock', '--time', '5', '--store', tempStore()]);
  assert.equal(r.code, 2, `exit ${r.code}\n${r.stdout}\n${r.stderr}`);
  assert.match(r.stderr, /fault 'client-clock' cannot reach this lock: the lock's runtime reads its clock without libc/);
});

test('a child that exits by itself while its client holds: a crash of the lock client (client-crash, exit 1)', async () => {
  const r = await run(`exec:${MISBEHAVE} exit-after-held`, ['--first-failure'], '20');
  assert.equal(r.code, 1, `exit ${r.code}\n${r.stdout}\n${r.stderr}`);
  // The child's own end, its last stderr line and where the rest is: no stack (lockpick's, not the lock's).
  assert.match(r.stdout, /client-crash on key "r\d+-k\d+": c\d's lock process ended while holding the lock .*exited with code 0 by itself, between operations; it was not asked to \(its stderr: clients\/c\d\.log\)/);
  assert.doesNotMatch(r.stdout, /stack:\n\s+Error: the client process/);
});

test('a process client that waits inside its acquire and reports its validity from its own last request is not flagged: its sent_ms from the fault proxy leaves the wait out', async () => {
  const r = await run(`exec:${MISBEHAVE} slow-valid`, ['--clients', '1', '--json'], '6');
  assert.notEqual(r.code, 1, `exit ${r.code}\n${r.stdout}\n${r.stderr}`);
  assert.doesNotMatch(r.stdout + r.stderr, /overstated-validity/);
  const dir = (JSON.parse(r.stdout) as { dir: string }).dir;
  const oks = readFileSync(path.join(dir, 'history.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l))
    .filter((e) => e.f === 'acquire' && e.type === 'ok');
  assert.ok(oks.length >= 1, 'no acquire ok');
  // sent_ms is from the child's last bytes at the fault proxy (its SET), not from the worker's request
  // line to the child 300 ms before the grant (which would call this correct validity overstated).
  const bad = oks.filter((e) => !(typeof e.valid_ms === 'number' && e.valid_ms > 0 && typeof e.sent_ms === 'number' && e.sent_ms < 300 && e.valid_ms <= e.lease_ms - e.sent_ms + 2));
  assert.deepEqual(bad, [], JSON.stringify(bad.slice(0, 3)));
});

test('a process client that answers held when its request raised: a phantom grant under a partition, a bug of the lock', async () => {
  // One client, cut off from the server from 0 ms (disable: its SET is refused); it asks for the lock 300 ms in.
  const dir = tempStore();
  writeFileSync(path.join(dir, 'test.json'), JSON.stringify({
    description: 'an acquire invoked and answered inside a partition of its only server', lock_spec: { name: `exec:${MISBEHAVE} optimistic` }, property: 'lock',
    plan: {
      ttlMs: 800,
      clients: [{ attempts: [{ key: 'k0', delayMs: 300, waitMs: 400, holdMs: 50, renew: false }] }],
      faults: [{ kind: 'partition', at_ms: 0, duration_ms: 1500, target: 'n1' }],
    },
  }));
  const mark = randomUUID();
  const r = await lockpick(['run', '--replay', dir, '--runs', '1', '--store', tempStore(), '--json'], 120_000, { LOCKPICK_TEST_MARK: mark });
  assert.deepEqual(markedProcesses(mark, /python3|redis-server/), []);
  assert.equal(r.code, 1, `exit ${r.code}\n${r.stdout}\n${r.stderr}`);
  assert.deepEqual([...new Set(r.summary!.minimal!.anomalies.map((a) => a.type))], ['phantom-grant'], r.stderr.slice(-3000));
  assert.match(r.stderr, /phantom-grant on key "r\d+-k0": c1's acquire of lock "r\d+-k0" at line \d+ returned ok at line \d+, while every link of its client to the servers was cut \(partition from line \d+/);
});
