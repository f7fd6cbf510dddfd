// test-lane: beside (servers of its own on free ports; its verdicts hang on counts and on pauses or kills far longer than a lease, not on fine timing)
// Liveness as a result of `lockpick run`, on a real MariaDB: a mysql-unique-key
// holder that dies (client-kill) keeps its row forever, so the lock is
// unavailable to everyone else: a liveness violation in words (exit 1 with
// --property liveness), while the lock stays safe (no exit 1 with --property
// lock). Without faults the same lock raises no liveness alarm (7 s of search: exit 0 needs contention).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { lockpick, tempStore } from './run-helpers.ts';
import { replayPlanAs } from './run-scenarios.ts';

const results = (dir: string) => JSON.parse(readFileSync(path.join(dir, 'results.json'), 'utf8'));

test('mysql-unique-key, a holder killed in its critical section: liveness violation, exit 1', async () => {
  const r = await lockpick(['run', '--lock', 'mysql-unique-key', '--faults', 'client-kill', '--property', 'liveness', '--first-failure', '--time', '40',
    '--shrink-time', '4', '--store', tempStore(), '--json'], 120_000);
  assert.equal(r.code, 1, `exit ${r.code}\n${r.stderr}`);
  const anomalies = (r.summary!.minimal!.anomalies as { type: string; message: string }[]);
  const live = anomalies.filter((a) => a.type === 'liveness');
  assert.ok(live.length > 0, JSON.stringify(anomalies));
  assert.match(live[0]!.message, /was unavailable for [\d.]+ s \(bound \d+ ms\) after process \d+ \(client c\d\) died while holding it at line \d+: \d+ acquire\(s\) by \d client\(s\) failed/);
  assert.match(live[0]!.message, /nothing on the server expires/);
  // Safety and liveness apart: the lock itself had no double holder.
  assert.ok(!anomalies.some((a) => a.type === 'double-holder' || a.type === 'nonlinearizable'), JSON.stringify(anomalies));
  const res = results(r.summary!.dir);
  assert.equal(res.liveness.checked, true);
  assert.ok(res.liveness.violations >= 1 && res.liveness.longest_unavailable_ms > 0, JSON.stringify(res.liveness));
  assert.equal(res.lock_violations, 0);
  assert.match(r.stderr, /liveness: \d+ run\(s\) with a lock unavailable past the bound/);
  // The timeline draws the stuck interval on the lock's lane: a band from the death to the last failed acquire, in words.
  const html = readFileSync(path.join(r.summary!.dir, 'counterexample', 'timeline.html'), 'utf8');
  const band = html.match(/<rect [^>]*data-a="([\d.]+)" data-b="([\d.]+)" class="stuck an-\d+"/);
  assert.ok(band && Number(band[2]) - Number(band[1]) > 1000, 'a stuck interval of over a second is drawn');
  assert.match(html, /k0 stuck [\d.]+ (ms|s) after c\d was gone: nobody could acquire it/);
});

test('the same with --property lock: not unsafe (liveness measured, not judged)', async () => {
  // The stored plan of such a failure (scenarios/mysql-unique-key-holder-crash), judged by the lock's history only.
  const r = await replayPlanAs('mysql-unique-key-holder-crash', 'mysql-unique-key', { runs: 1, property: 'lock' });
  // SAFE when the coverage gates are met; 3 (e.g. no contention in the runs) is no safety verdict either way.
  assert.ok(r.code === 0 || r.code === 3, `exit ${r.code}\n${r.stderr}`);
  assert.equal(r.summary!.lockViolations, 0);
  const res = results(r.summary!.dir);
  assert.equal(res.liveness.checked, false);
  assert.equal(res.lock_violations, 0, 'a replay\'s results.json counts lock violations as a search\'s does');
  assert.ok(res.coverage.faultsApplied['client-kill'] > 0, 'the holder was killed');
  // The lock was stuck past the bound (measured), and that alone makes no exit 1 here.
  assert.ok(res.liveness.violations >= 1, JSON.stringify(res.liveness));
});

test('mysql-unique-key without faults, --property liveness: no false liveness alarm', async () => {
  const r = await lockpick(['run', '--lock', 'mysql-unique-key', '--property', 'liveness', '--first-failure', '--time', '7',
    '--shrink-time', '0', '--store', tempStore(), '--json'], 90_000);
  assert.equal(r.code, 0, `exit ${r.code}\n${r.stderr}`);
  const res = results(r.summary!.dir);
  assert.equal(res.liveness.violations, 0, JSON.stringify(res.liveness));
});
