// The JUnit file of a whole `lockpick run` (src/report/junit.ts renderRunJUnit),
// read back by a real JUnit consumer (junit2json): stable names, a failure that
// carries everything a CI reader needs, inconclusive as an error with the gaps.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse, type TestSuites } from 'junit2json';
import { normaliseKeys, renderRunJUnit, type RunJUnit } from '../../src/report/junit.ts';
import type { AnomalyType } from '../../checkers/anomaly-kinds.ts';

const PLAN = `TTL asked 800 ms; 2 busy client(s) of 3, 4 operations at most, 1 fault(s)
  client c1: wait 10 ms, lock 'k0' (retry up to 400 ms), hold 60 ms, unlock
  client c2: wait 20 ms, lock 'k0' (retry up to 900 ms), hold 80 ms, unlock
  fault: from 30 ms: pause client c1 for 870 ms the next time it reaches 'in-critical-section'`;

function unsafe(run: number): RunJUnit {
  const key = `r${run}-k0`;
  return {
    lock: 'redis-set-px-del', property: 'both', faults: ['client-pause'], verdict: false, elapsedMs: 12_345,
    anomalies: [
      { type: 'double-holder', key, processes: [run, run + 1], lines: [5, 10], message: `process ${run + 1} acquired "${key}" while process ${run} held it` },
      { type: 'stale-write', key, processes: [run], lines: [], message: `client c1 wrote on top of "${key}"` },
    ],
    resource: { message: 'resource: 3 of 3 writes accepted, 1 update(s) lost, 1 stale write(s) accepted', lostUpdates: 1, staleWritesAccepted: 1, staleStepsPrevented: 0 },
    plan: PLAN, confirmed: true, replayCommand: `lockpick run --replay store/run-${run}`, timeline: `store/run-${run}/counterexample/timeline.html`,
    gaps: [], tested: '5 run(s) (5 conclusive)', properties: { run: `run-${run}`, seed: run },
  };
}

async function read(xml: string): Promise<TestSuites> {
  const r = await parse(xml);
  assert.ok(r && 'testsuite' in r, `junit2json read no <testsuites>:\n${xml}`);
  return r as TestSuites;
}

test('unsafe: one failure with the anomalies, the damage, the whole plan, the replay command and the timeline', async () => {
  const doc = await read(renderRunJUnit(unsafe(18)));
  assert.deepEqual([doc.tests, doc.failures, doc.errors], [1, 1, 0]);
  const suite = doc.testsuite![0]!;
  assert.equal(suite.name, 'lockpick run redis-set-px-del');
  const tc = suite.testcase![0]!;
  assert.equal(tc.name, 'property both under faults client-pause');
  assert.equal(tc.time, 12.345);
  const f = tc.failure![0]!;
  assert.equal(f.type, 'unsafe');
  assert.match(f.message!, /2 anomalies \(double-holder, stale-write\); 1 update\(s\) lost, 1 stale write\(s\) accepted/);
  const body = f.inner!;
  assert.match(body, /1\. double-holder on key "k0": process 19 acquired "k0" while process 18 held it/);
  assert.match(body, /\nresource: 3 of 3 writes accepted, 1 update\(s\) lost, 1 stale write\(s\) accepted\n  lost updates: 1, stale writes accepted: 1/);
  assert.ok(body.includes(PLAN), 'the shrunk plan, whole');
  assert.match(body, /replay: +lockpick run --replay store\/run-18/);
  assert.match(body, /timeline: store\/run-18\/counterexample\/timeline\.html/);
  assert.doesNotMatch(body + f.message, /r18-k0/);
});

test('names are the same across runs; fresh keys, ids and seeds never reach them', async () => {
  const names = async (r: RunJUnit) => {
    const s = (await read(renderRunJUnit(r))).testsuite![0]!;
    return [s.name, s.testcase![0]!.classname, s.testcase![0]!.name];
  };
  assert.deepEqual(await names(unsafe(18)), await names(unsafe(231)));
  // Fault order as typed does not matter; a replay is its own testcase.
  const a = renderRunJUnit({ ...unsafe(1), faults: ['kill', 'client-pause'] });
  const b = renderRunJUnit({ ...unsafe(2), faults: ['client-pause', 'kill'] });
  assert.deepEqual((await read(a)).testsuite![0]!.testcase![0]!.name, (await read(b)).testsuite![0]!.testcase![0]!.name);
  assert.equal((await read(renderRunJUnit({ ...unsafe(1), replay: true }))).testsuite![0]!.testcase![0]!.name, 'property both under faults client-pause (replay)');
});

test('safe: a passing testcase with a time; inconclusive: an error carrying every gap', async () => {
  const base = { lock: 'examples/my-lock.ts', property: 'lock' as const, faults: [], anomalies: [], replayCommand: 'lockpick run --replay store/x', tested: '24 run(s)' };
  const safe = await read(renderRunJUnit({ ...base, verdict: true, elapsedMs: 8000, gaps: [] }));
  const tc = safe.testsuite![0]!.testcase![0]!;
  assert.deepEqual([safe.failures, safe.errors, tc.name, tc.time, tc.failure, tc.error], [0, 0, 'property lock without faults', 8, undefined, undefined]);
  const gaps = ['no contention: no acquire met another client\'s hold on the same key', 'fault client-pause never took effect'];
  const inc = await read(renderRunJUnit({ ...base, verdict: 'unknown', elapsedMs: 3000, gaps }));
  const err = inc.testsuite![0]!.testcase![0]!.error![0]!;
  assert.deepEqual([inc.errors, inc.failures, err.type], [1, 0, 'inconclusive']);
  for (const g of gaps) assert.ok(err.inner!.includes(g), g);
  assert.equal(inc.testsuite![0]!.testcase![0]!.name, 'property lock without faults');
});

test('normaliseKeys: run keys become plan keys; other text is left alone', () => {
  assert.equal(normaliseKeys('"r18-k0" and r7-k12, not br18-k0x or orders'), '"k0" and k12, not br18-k0x or orders');
});

test('unsafe with a bug and an inherent failure: one testcase each, named by class (stable), each with its cause, anomalies, plan and replay', async () => {
  const byClass = (run: number): RunJUnit => {
    const base = unsafe(run);
    const one = (cls: string, cause: string, type: AnomalyType, dir: string) => ({
      class: cls, cause, confirmed: true, anomalies: [{ ...base.anomalies[0]!, type }], resource: base.resource, plan: PLAN,
      timeline: `${dir}/timeline.html`, replayCommand: `lockpick run --replay ${dir}`,
    });
    return { ...base, failures: [
      one('bug: stale-release · stale-release · client-pause@release', 'a bug in this lock: its release succeeded on a lock it no longer held', 'stale-release', `store/run-${run}/counterexample-2`),
      one('inherent: double-holder · lease-outlived · client-pause@holding', 'inherent to an unfenced lease: a holder was paused past its lease', 'double-holder', `store/run-${run}/counterexample`),
    ] };
  };
  const docs = [await read(renderRunJUnit(byClass(18))), await read(renderRunJUnit(byClass(40)))];
  for (const doc of docs) assert.deepEqual([doc.tests, doc.failures, doc.errors], [2, 2, 0]);
  const names = docs.map((d) => d.testsuite![0]!.testcase!.map((tc) => tc.name));
  assert.deepEqual(names[0], [
    'property both under faults client-pause: bug: stale-release · stale-release · client-pause@release',
    'property both under faults client-pause: inherent: double-holder · lease-outlived · client-pause@holding',
  ]);
  assert.deepEqual(names[1], names[0]);
  const [bug, inherent] = docs[0]!.testsuite![0]!.testcase!;
  assert.match(bug!.failure![0]!.message!, /^UNSAFE: 1 anomaly \(stale-release\).*: a bug in this lock: its release succeeded on a lock it no longer held$/);
  assert.match(bug!.failure![0]!.inner!, /^a bug in this lock[\s\S]*minimal schedule[\s\S]*replay: {3}lockpick run --replay store\/run-18\/counterexample-2/);
  assert.match(inherent!.failure![0]!.inner!, /^inherent to an unfenced lease[\s\S]*double-holder[\s\S]*replay: {3}lockpick run --replay store\/run-18\/counterexample\n/);
});

test('unsafe with one failure classed by cause: the single testcase keeps its name, and its cause leads the message and body', async () => {
  const cause = 'inherent to an unfenced lease: a holder was paused past its lease';
  const doc = await read(renderRunJUnit({ ...unsafe(18), failures: [{ class: 'inherent: double-holder · lease-outlived · client-pause@holding', cause, confirmed: true, anomalies: [], replayCommand: 'x' }] }));
  const tc = doc.testsuite![0]!.testcase![0]!;
  assert.deepEqual([doc.tests, tc.name], [1, 'property both under faults client-pause']);
  assert.match(tc.failure![0]!.message!, new RegExp(`^UNSAFE: 2 anomalies .*: ${cause}$`));
  assert.ok(tc.failure![0]!.inner!.startsWith(`${cause}\n\nUNSAFE`));
});

test('fault-space coverage: its line in the testcase\'s text (SAFE, INCONCLUSIVE, UNSAFE) and a property', () => {
  const line = 'coverage: 3 of 4 cells (75 %); never hit: client-pause@send:release:1/waiting';
  const base = { lock: 'l', property: 'lock' as const, faults: ['client-pause'], anomalies: [], replayCommand: 'lockpick run --replay store/x', tested: '24 run(s)', coverageLine: line, properties: { coverage: '3 of 4 cells (75 %)' } };
  for (const verdict of [true, 'unknown', false] as const) {
    const xml = renderRunJUnit({ ...base, verdict, elapsedMs: 1000, gaps: verdict === 'unknown' ? ['fault-space coverage 3 of 4 cells (75 %) is below --min-coverage 90 %; never hit: client-pause@send:release:1/waiting'] : [] });
    assert.ok(xml.includes(line), `${String(verdict)}: the coverage line`);
    assert.match(xml, /<property name="coverage" value="3 of 4 cells \(75 %\)"\/>/);
  }
});
