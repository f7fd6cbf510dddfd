// `lockpick run` end to end on five independent Redis masters (issue 5): Redlock
// breaks under a client pause longer than the lease, under Kleppmann's scenario
// (partial partitions plus a forward clock jump on one master) and under a
// master restarted without persistence; the delayed restart keeps it safe, and
// so does a fault-free run with 8 clients; redlock-fenced keeps the resource
// right under the same pause (its stored plan replayed). The fixed schedules are the
// scenarios/<name>/test.json files, run with `lockpick run --replay`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lockpick, tempStore } from './run-helpers.ts';
import { assertDoubleHolder, assertSafe, replayScenario } from './run-scenarios.ts';

test("redlock + a client pause between its validity check and its write (Kleppmann's GC pause): the stale write goes through (found by search)", async () => {
  // The careful client stops when Redlock's reported validity runs out, so a pause anywhere before
  // its last look is harmless; one after it is what no client-side check covers.
  const r = await lockpick(['run', '--lock', 'redlock', '--faults', 'client-pause', '--pause-at', 'before-write',
    '--clients', '3', '--first-failure', '--time', '30', '--shrink-time', '3', '--store', tempStore(), '--json'], 60_000);
  assert.equal(r.code, 1, r.stderr);
  assert.ok(r.summary!.resource.staleWritesAccepted > 0, 'no fencing in redlock: the stale write goes through');
  assert.ok(r.summary!.minimal!.plan.faults.every((f) => f.kind === 'client-pause' && f.params?.point === 'before-write'));
});

test('redlock + a client pause in its critical section longer than its validity: the careful client stops, SAFE', async () => {
  const r = await lockpick(['run', '--lock', 'redlock', '--faults', 'client-pause', '--pause-at', 'in-critical-section',
    '--clients', '3', '--first-failure', '--time', '8', '--store', tempStore(), '--json'], 60_000);
  assertSafe(r);
  assert.ok(r.summary!.coverage.faultsApplied['client-pause']! > 0);
});

test("redlock + Kleppmann's scenario (partial partitions, clock jump on one master): double holder", async () => {
  const r = await replayScenario('redlock-kleppmann');
  assertDoubleHolder(r);
  assert.match(r.stderr, /jump node n3's wall clock by 20000 ms/);
});

test('redlock + one master restarted without persistence: double holder', async () => {
  assertDoubleHolder(await replayScenario('redlock-restart'));
});

test('redlock + the same restart delayed beyond the TTL: safe, and the second client still gets the lock', async () => {
  const r = await replayScenario('redlock-restart-delayed');
  assertSafe(r);
  // Not vacuous: both clients held the lock in turn (c1 twice: once more after everything healed).
  assert.match(r.stderr, /resource: 3 of 3 writes accepted, no update lost/);
});

test('redlock, no faults, 8 clients: safe', async () => {
  // A number of runs, not a time: 15 s under the load of the lanes beside once made only 90 operations.
  const r = await lockpick(['run', '--lock', 'redlock', '--clients', '8', '--first-failure', '--runs', '12', '--time', '60', '--store', tempStore(), '--json'], 120_000);
  assertSafe(r);
  assert.ok(r.summary!.ops >= 100, `only ${r.summary!.ops} operations`);
});

test('redlock-fenced + a client pause between its validity check and its write: the fenced resource accepts no stale write', async () => {
  // The plan of redlock-pause (the stale write above) on redlock-fenced: a replay, since SAFE is no detection.
  const r = await replayScenario('redlock-fenced-pause');
  assert.equal(r.code, 0, r.stderr);
  const s = r.summary!;
  assert.equal(s.resource.staleWritesAccepted, 0);
  assert.equal(s.resource.lostUpdates, 0);
  // The pause bit: the paused client came back after another had written, and its token was refused.
  assert.ok(s.resource.staleStepsPrevented > 0, 'fencing never rejected a stale step');
});
