// test-lane: beside (its servers are its own; its verdicts do not hang on fine timing)
// `lockpick run` leaves a junit.xml in every run directory (and at --junit PATH),
// safe, unsafe or inconclusive, and a real JUnit consumer (junit2json) reads it:
// names stable across runs, a failure with everything CI needs, testcase times.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse, type TestCase, type TestSuites } from 'junit2json';
import { lockpick, tempStore } from './run-helpers.ts';

async function junitOf(file: string, cases = 1): Promise<{ suite: string; tc: TestCase; all: TestCase[]; doc: TestSuites }> {
  const doc = (await parse(readFileSync(file, 'utf8'))) as TestSuites;
  assert.equal(doc.testsuite?.length, 1, file);
  const s = doc.testsuite![0]!;
  assert.equal(s.testcase?.length, cases, file);
  return { suite: s.name!, tc: s.testcase![0]!, all: s.testcase!, doc };
}

const UNSAFE = ['run', '--lock', 'redis-set-px-del', '--faults', 'client-pause', '--pause-at', 'in-critical-section', '--first-failure', '--time', '60', '--shrink-time', '3', '--json'];

// A pause in the critical section past the lease breaks this lock twice over: the lease outlived
// (inherent) and its plain DEL freeing the next holder's lock (its bug): one testcase each.
test('two unsafe runs: the same names, a failure with anomalies, damage, the whole plan, replay and timeline', async () => {
  const names: string[][] = [];
  for (let i = 0; i < 2; i++) {
    const store = tempStore();
    const extra = path.join(store, 'ci-junit.xml');
    const r = await lockpick([...UNSAFE, '--store', store, '--junit', extra], 200_000);
    assert.equal(r.code, 1, r.stderr);
    const s = r.summary!;
    assert.equal(s.junit, path.join(s.dir, 'junit.xml'));
    const own = readFileSync(s.junit, 'utf8');
    assert.equal(readFileSync(extra, 'utf8'), own, '--junit PATH holds the run\'s JUnit');
    assert.equal(readFileSync(path.join(s.dir, 'counterexample', 'junit.xml'), 'utf8'), own);
    const n = s.failures!.length;
    const { suite, tc, doc, all } = await junitOf(s.junit, n > 1 ? n : 1);
    assert.deepEqual([doc.tests, doc.failures, doc.errors], [Math.max(1, n), Math.max(1, n), 0]);
    names.push([suite, tc.classname!, tc.name!]);
    if (n > 1) assert.deepEqual(all.map((c) => c.name), s.failures!.map((f) => `property both under faults client-pause: ${f.class}`));
    assert.ok(typeof tc.time === 'number' && tc.time > 0 && Math.abs(tc.time * 1000 - s.elapsedMs) < 5, `time ${tc.time} vs ${s.elapsedMs} ms`);
    const f = tc.failure![0]!;
    assert.equal(f.type, 'unsafe');
    assert.match(f.message!, /^UNSAFE: \d+ anomal(y|ies) \((double-holder|stale-release|stale-write|lost-update)/);
    const body = f.inner!;
    assert.match(body, /anomalies:\n {2}1\. /);
    assert.match(body, /lost updates: \d+, stale writes accepted: \d+/);
    assert.match(body, /minimal schedule.*:\nTTL asked 800 ms;[\s\S]*fault: from \d+ ms: pause client c\d/);
    assert.ok(body.includes(`replay:   lockpick run --replay ${s.dir}`), body);
    assert.ok(body.includes(`timeline: ${path.join(s.failures![0]!.counterexample, 'timeline.html')}`), body);
    assert.doesNotMatch(own, /r\d+-k\d/, 'a run key name reached the JUnit');
  }
  // The first case is the lock's bug, named by its class (its stale DEL while the pause held it).
  assert.deepEqual(names[0]!.slice(0, 2), ['lockpick run redis-set-px-del', 'lockpick run redis-set-px-del']);
  assert.match(names[0]![2]!, /^property both under faults client-pause(: bug: .*stale-release.*)?$/);
  assert.deepEqual(names[1], names[0]);
});

test('a safe run and an inconclusive run each leave a junit.xml: a pass, and an error carrying the gaps', async () => {
  const safe = await lockpick(['run', '--lock', 'redis-set-px-lua', '--clients', '3', '--first-failure', '--time', '8', '--json', '--store', tempStore()], 120_000);
  assert.equal(safe.code, 0, safe.stderr);
  const a = await junitOf(safe.summary!.junit);
  assert.deepEqual([a.suite, a.tc.name, a.doc.failures, a.doc.errors, a.tc.failure, a.tc.error], ['lockpick run redis-set-px-lua', 'property both without faults', 0, 0, undefined, undefined]);
  assert.ok(a.tc.time! > 0);

  const inc = await lockpick(['run', '--lock', 'redis-set-px-lua', '--clients', '1', '--first-failure', '--time', '3', '--json', '--store', tempStore()], 120_000);
  assert.equal(inc.code, 3, inc.stderr);
  const b = await junitOf(inc.summary!.junit);
  assert.equal(b.tc.name, 'property both without faults');
  const err = b.tc.error![0]!;
  assert.equal(err.type, 'inconclusive');
  assert.match(err.message!, /^INCONCLUSIVE: no contention/);
  for (const g of inc.summary!.gaps) assert.ok(err.inner!.includes(g), g);
});

test('--junit into a directory that does not exist: exit 2 before any server starts', async () => {
  const r = await lockpick(['run', '--lock', 'redis-set-px-lua', '--junit', '/nonexistent-dir/junit.xml', '--store', tempStore()], 30_000);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--junit \/nonexistent-dir\/junit\.xml: the directory \/nonexistent-dir cannot be written: no such file or directory \(ENOENT\)\n  fix: create it/);
});
