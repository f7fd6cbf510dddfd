// A SAFE verdict is a promise: a run that tested nothing exits 3 and says why
// (no acquire ever succeeded, no contention), on real Redis.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { lockpick, tempStore } from './run-helpers.ts';

function results(dir: string): Record<string, any> {
  return JSON.parse(readFileSync(path.join(dir, 'results.json'), 'utf8'));
}

test('a lock that never grants, fault-free: exit 3, "no acquire succeeded"', async () => {
  const r = await lockpick(['run', '--lock', './test/fixtures/locks/never-acquires.ts', '--time', '6', '--shrink-time', '0', '--store', tempStore(), '--json']);
  assert.equal(r.code, 3, r.stderr);
  assert.match(r.stderr, /INCONCLUSIVE[^]*no acquire succeeded \(\d+ tried\)/);
  const res = results(r.summary!.dir);
  assert.equal(res.verdict, 'unknown');
  assert.equal(res.coverage.okAcquires, 0);
  assert.ok(res.coverage.acquires > 0);
  assert.ok(res.gaps.some((g: string) => /no acquire succeeded/.test(g)));
});

test('one client cannot contend: exit 3, "no contention"; the counts are in results.json', async () => {
  const r = await lockpick(['run', '--lock', 'redis-set-px-lua', '--clients', '1', '--time', '6', '--shrink-time', '0', '--store', tempStore(), '--json']);
  assert.equal(r.code, 3, r.stderr);
  assert.match(r.stderr, /no contention: no acquire met another client's hold/);
  const res = results(r.summary!.dir);
  assert.ok(res.coverage.okAcquires > 0 && res.coverage.released > 0, JSON.stringify(res.coverage));
  assert.equal(res.coverage.contended, 0);
});

test('three clients, no faults: SAFE with contention counted', async () => {
  const r = await lockpick(['run', '--lock', 'redis-set-px-lua', '--clients', '3', '--time', '8', '--shrink-time', '0', '--store', tempStore(), '--json']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /SAFE so far[^]*tested: \d+ run\(s\) \(\d+ conclusive\), \d+ acquire\(s\): \d+ ok, \d+ released, [1-9]\d* contended; no faults asked for/);
  const c = results(r.summary!.dir).coverage;
  assert.ok(c.conclusive > 0 && c.contended > 0 && c.released > 0);
});

test('a fault kind the topology lacks is refused up front: exit 2', async () => {
  const r = await lockpick(['run', '--lock', 'redis-set-px-lua', '--faults', 'failover', '--store', tempStore()]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /fault 'failover' needs a redis-sentinel topology; this lock runs on redis/);
});
