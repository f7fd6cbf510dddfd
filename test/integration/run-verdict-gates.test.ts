// test-lane: beside (its servers are its own; its verdicts do not hang on fine timing)
// A SAFE verdict is a promise: a run that tested nothing exits 3 and says why
// (no acquire ever succeeded, no contention), on real Redis.
import { tempDir } from '../support/temp-dir.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { lockpick, markedProcesses, runDirs, tempStore } from './run-helpers.ts';

function results(dir: string): Record<string, any> {
  return JSON.parse(readFileSync(path.join(dir, 'results.json'), 'utf8'));
}

test('a lock that never grants, fault-free: exit 3, "no acquire succeeded"', async () => {
  const r = await lockpick(['run', '--lock', './test/fixtures/locks/never-acquires.ts', '--first-failure', '--time', '6', '--shrink-time', '0', '--store', tempStore(), '--json']);
  assert.equal(r.code, 3, r.stderr);
  assert.match(r.stderr, /INCONCLUSIVE[^]*no acquire succeeded \(\d+ tried\)/);
  const res = results(r.summary!.dir);
  assert.equal(res.verdict, 'unknown');
  assert.equal(res.coverage.okAcquires, 0);
  assert.ok(res.coverage.acquires > 0);
  assert.ok(res.gaps.some((g: string) => /no acquire succeeded/.test(g)));
});

test('one client cannot contend: exit 3, "no contention"; the counts are in results.json', async () => {
  const r = await lockpick(['run', '--lock', 'redis-set-px-lua', '--clients', '1', '--first-failure', '--time', '6', '--shrink-time', '0', '--store', tempStore(), '--json']);
  assert.equal(r.code, 3, r.stderr);
  assert.match(r.stderr, /no contention: no acquire met another client's hold/);
  const res = results(r.summary!.dir);
  assert.ok(res.coverage.okAcquires > 0 && res.coverage.released > 0, JSON.stringify(res.coverage));
  assert.equal(res.coverage.contended, 0);
});

test('three clients, no faults: SAFE with contention counted', async () => {
  const r = await lockpick(['run', '--lock', 'redis-set-px-lua', '--clients', '3', '--first-failure', '--time', '8', '--shrink-time', '0', '--store', tempStore(), '--json']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /SAFE so far[^]*tested: \d+ run\(s\) \(\d+ conclusive\), \d+ acquire\(s\)(?: in the conclusive run\(s\))?: \d+ ok, \d+ released, [1-9]\d* contended; no faults asked for/);
  const c = results(r.summary!.dir).coverage;
  assert.ok(c.conclusive > 0 && c.contended > 0 && c.released > 0);
});

test('a fault kind the topology lacks is refused up front: exit 2', async () => {
  const r = await lockpick(['run', '--lock', 'redis-set-px-lua', '--faults', 'failover', '--store', tempStore()]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /fault 'failover' needs a redis-sentinel topology; this lock runs on redis/);
});

test('a full disk while recording: exit 3 naming ENOSPC, the history parses, nothing left running', async (t) => {
  if (process.getuid?.() !== 0) return t.skip('mounting a tmpfs needs root');
  const mnt = tempDir('lockpick-full-');
  const mount = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=24k', 'tmpfs', mnt], { encoding: 'utf8' });
  if (mount.status !== 0) return t.skip(`cannot mount a tmpfs here: ${mount.stderr.trim()}`);
  try {
    // A mark in this run's environment, inherited by its workers: the lane beside runs other lockpicks of this checkout.
    const mark = `full-disk-${process.pid}-${Date.now()}`;
    const r = await lockpick(['run', '--lock', 'redis-set-px-lua', '--clients', '3', '--first-failure', '--time', '120', '--shrink-time', '0', '--store', mnt], 150_000, { LOCKPICK_TEST_MARK: mark });
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /history\.jsonl: no space left on device \(ENOSPC\) after \d+ events; the run is inconclusive/);
    const [dir] = runDirs(mnt);
    const lines = readFileSync(path.join(dir!, 'history.jsonl'), 'utf8').split('\n');
    assert.equal(lines.pop(), '', 'the file ends with a whole line');
    for (const l of lines) JSON.parse(l);
    assert.ok(lines.length > 20);
    // This run's workers only (other lockpicks may be running on the machine, of this checkout too).
    const workers = () => markedProcesses(mark, /runner\/worker\.[jt]s/).join('\n');
    for (let i = 0; i < 30 && workers() !== ''; i++) await new Promise((res) => setTimeout(res, 100));
    assert.equal(workers(), '', 'no client worker outlives lockpick');
  } finally {
    spawnSync('umount', [mnt]);
  }
});

test("a client worker that crashes outside an operation on the lock's own error is a client-crash: unsafe, never safe", async () => {
  const r = await lockpick(['run', '--lock', './test/fixtures/locks/crash-after-acquire.ts', '--runs', '3', '--first-failure', '--time', '30', '--shrink-time', '0', '--store', tempStore(), '--json']);
  assert.equal(r.code, 1, r.stderr);
  const first = r.summary!.firstAnomalies as { type: string; crash?: { during: string; stack: string } }[];
  // Each client that acquired crashed: client-crash only (a dead process is never a double holder).
  assert.ok(first.length > 0 && first.every((a) => a.type === 'client-crash'), first.map((a) => a.type).join(', '));
  assert.equal(first[0]!.crash!.during, 'holding');
  assert.match(first[0]!.crash!.stack, /Unknown code: -999\n.*crash-after-acquire\.ts/);
  assert.match(r.stderr, /client-crash on key .*crashed while holding the lock .*, with no fault before it: Error: Unknown code: -999/);
});
