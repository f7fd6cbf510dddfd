// test-lane: beside (one client on a Redis of its own; a pause past the lease breaks every one of these locks by exposure, however loaded the machine)
// `lockpick report DIR --format issue`: a Markdown bug report of a run that broke the lock, for a
// built-in recipe, a user's lock module and a process client: the lock and where it comes from,
// the server's OS package version, the minimal schedule, the anomaly, the fix, the replay command.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bin, lockpick, repoRoot, tempStore } from './run-helpers.ts';

const LOCKS = [
  { lock: 'redis-set-px-lua', says: /lockpick's built-in recipe `redis-set-px-lua`/ },
  { lock: './examples/my-lock.ts', says: /a lock module: `examples\/my-lock\.ts`, in package `lockpick@\d+\.\d+\.\d+`/ },
  { lock: './examples/process-clients/redis-py-lock.json', says: /a process client: `\/usr\/bin\/python3 redis_py_lock\.py` \(recipe `examples\/process-clients\/redis-py-lock\.json`\)\n- redis-py's redis\.lock\.Lock/ },
];

for (const { lock, says } of LOCKS) {
  test(`report --format issue of a broken run: ${lock}`, async () => {
    const r = await lockpick(['run', '--lock', lock, '--clients', '1', '--faults', 'client-pause', '--first-failure', '--shrink-time', '0', '--time', '40', '--seed', '1', '--store', tempStore(), '--json'], 150_000);
    assert.equal(r.code, 1, `exit ${r.code}\n${r.stdout}\n${r.stderr}`);
    const dir = r.summary!.dir;
    const md = spawnSync(process.execPath, [bin, 'report', dir, '--format', 'issue'], { cwd: repoRoot, encoding: 'utf8' });
    assert.equal(md.status, 1, md.stderr);
    const text = md.stdout;
    assert.match(text, /^# .*: exposure under client-pause\n/);
    assert.match(text, says);
    // The server's version from its OS package, and lockpick's own.
    assert.match(text, /- versions: redis-server \d[^\n]*\n- tested with lockpick \d+\.\d+\.\d+ on Node v\d+/);
    assert.match(text, /## What happened\n\nThe smallest schedule that broke the lock:\n\n```\nTTL asked \d+ ms; 1 busy client/);
    // The lock's line gives the TTL the schedule ran with (raised to the lock's floor where it has one), not the one asked on the command line.
    assert.match(text, new RegExp(`; TTL asked ${r.summary!.minimal!.plan.ttlMs} ms; 1 client\\(s\\)`));
    assert.match(text, /- \*\*exposure\*\* on lock `[^`]+` \(c1\): c1 still believed it held lock/);
    assert.match(text, /  - history lines: \d+, \d+/);
    assert.match(text, /## Bug or design\?\n\ninherent to an unfenced lease: a holder was paused past its lease/);
    assert.match(text, /## What would fix it\n\n- A holder can always outlive its lease[^\n]*fencing token/);
    assert.match(text, new RegExp(`lockpick run --replay ${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\n`));
    assert.match(text, /counterexample\/timeline\.html`: the timeline/);
    // Nothing of lockpick's internals: the lock's terms only.
    assert.doesNotMatch(text, /\b(sweep|belief|KeyScanner|process \d+)\b/);
  });
}

test('report --format issue of a run that broke the resource, not the lock (a write held up past its hold): the stale write, its cause, exit 1', async () => {
  const r = await lockpick(['run', '--lock', 'redis-set-px-lua', '--lock-opt', 'validity=reported', '--faults', 'client-pause', '--pause-at', 'before-write', '--first-failure', '--shrink-time', '0', '--time', '40', '--seed', '1', '--store', tempStore(), '--json'], 150_000);
  assert.equal(r.code, 1, `exit ${r.code}\n${r.stdout}\n${r.stderr}`);
  assert.match(r.stderr, /inherent to an unfenced lock: a write held up \(its writer was paused\) reached the resource after its hold had ended/);
  const md = spawnSync(process.execPath, [bin, 'report', r.summary!.dir, '--format', 'issue'], { cwd: repoRoot, encoding: 'utf8' });
  assert.equal(md.status, 1, `the run broke the resource: not valid, as the run said\n${md.stdout}\n${md.stderr}`);
  assert.match(md.stdout, /^# redis-set-px-lua: (stale-write|lost-update)[^\n]* under client-pause\n\nA failure inherent to how this lock is built/);
  assert.match(md.stdout, /The lock's own history is valid; the resource it protects was not:\n\n- \*\*(stale-write|lost-update)\*\*/);
  assert.match(md.stdout, /## What would fix it\n\n- A write held up after the holder's last check reaches the resource late: only a fencing token/);
  // The plain report checks the lock's history alone: valid, and it says the run was UNSAFE all the same.
  const plain = spawnSync(process.execPath, [bin, 'report', r.summary!.dir, '--format', 'text'], { cwd: repoRoot, encoding: 'utf8' });
  assert.equal(plain.status, 0, plain.stderr);
  assert.match(plain.stderr, /the run itself was UNSAFE \(results\.json\): what broke is not in the lock's history/);
});

test('report --format issue of a run that did not break the lock, or of a plain history file: exit 2 naming what to give', async () => {
  const r = await lockpick(['run', '--lock', 'redis-set-px-lua', '--clients', '2', '--runs', '2', '--time', '20', '--seed', '1', '--store', tempStore(), '--json'], 150_000);
  assert.notEqual(r.code, 1, r.stdout);
  const md = spawnSync(process.execPath, [bin, 'report', r.summary!.dir, '--format', 'issue'], { cwd: repoRoot, encoding: 'utf8' });
  assert.equal(md.status, 2, md.stdout);
  assert.match(md.stderr, /the run has no counterexample \(it did not break the lock\)\n  fix: give a run directory/);
  const file = spawnSync(process.execPath, [bin, 'report', 'histories/double-holder.jsonl', '--format', 'issue'], { cwd: repoRoot, encoding: 'utf8' });
  assert.equal(file.status, 2);
  assert.match(file.stderr, /no results\.json and test\.json of a run here/);
});

test('replay --measure runs every time and says the rate, stored beside the counterexample for the bug report; --measure without --replay is exit 2', async () => {
  const r = await lockpick(['run', '--lock', 'redis-set-px-lua', '--clients', '1', '--faults', 'client-pause', '--first-failure', '--shrink-time', '20', '--time', '40', '--seed', '2', '--store', tempStore(), '--json'], 150_000);
  assert.equal(r.code, 1, `exit ${r.code}\n${r.stdout}\n${r.stderr}`);
  const dir = r.summary!.dir;
  const m = await lockpick(['run', '--replay', dir, '--runs', '4', '--measure', '--store', tempStore(), '--json'], 150_000);
  const rate = JSON.parse(readFileSync(join(dir, 'reproduction.json'), 'utf8')) as { runs: number; reproduced: number; inconclusive: number; clean: number };
  assert.equal(rate.runs, 4, 'all four runs made, not stopped at the first violation');
  assert.equal(rate.reproduced + rate.inconclusive + rate.clean, 4);
  assert.match(m.stderr, new RegExp(`reproduced ${rate.reproduced}/4`));
  assert.equal(m.code, rate.reproduced > 0 ? 1 : 3, m.stderr);
  assert.equal(m.summary!.runs, 4);
  const md = spawnSync(process.execPath, [bin, 'report', dir, '--format', 'issue'], { cwd: repoRoot, encoding: 'utf8' });
  assert.match(md.stdout, new RegExp(`Replayed 4 times \\(\\d{4}-\\d\\d-\\d\\d\\): it broke the lock ${rate.reproduced} of 4 times`));
  const bad = await lockpick(['run', '--lock', 'redis-set-px-lua', '--measure'], 30_000);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr + bad.stdout, /--measure measures how often a stored counterexample breaks the lock again: give it with --replay DIR/);
});
