// `lockpick report --format issue` of a run that found two failures: a bug of the lock (found
// second, shown first) and one inherent to its design (found first: counterexample/). Each report
// describes one counterexample whole: its schedule, its lock and resource anomalies, its nature and
// the replay that runs its plan. The fixture is a stored run of a Ruby process client (GET, compare,
// DEL) whose results.json names its counterexamples by paths the store has since moved from.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../support/temp-dir.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const run = path.join(tempDir('lockpick-issue-'), '20261130-191539-7902d3');
cpSync(path.join(root, 'test/fixtures/stored-runs/bug-then-inherent'), run, { recursive: true });

function issue(dir: string): { code: number | null; md: string; err: string } {
  const r = spawnSync(process.execPath, [path.join(root, 'bin/lockpick.mjs'), 'report', dir, '--format', 'issue'], { encoding: 'utf8' });
  return { code: r.status, md: r.stdout, err: r.stderr };
}

test("the run dir reports the run's headline failure, the bug, from its counterexample-2: its schedule, anomalies and replay", () => {
  const { code, md, err } = issue(run);
  assert.equal(code, 1, err);
  assert.match(md, /^# .*double-holder, stale-release/m);
  assert.match(md, /A bug in this lock/);
  assert.match(md, /pause client c1 for 1070 ms just before the 2nd command of its next release \(send:release:2\)/, 'the bug\'s own schedule');
  assert.doesNotMatch(md, /before-write/, 'nothing of the inherent failure\'s schedule');
  assert.match(md, /\*\*stale-write\*\* on lock `r18-k0` \(c3, c2\): client c3 read 1 but wrote 2/, 'its resource anomalies (results.json\'s minimal run), each client named once');
  assert.match(md, /\*\*lost-update\*\* on lock `r18-k0`: 3 increments/, 'no empty parentheses where no client is named');
  assert.match(md, new RegExp(`lockpick run --replay ${run.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/counterexample-2\n`));
});

test('its counterexample/ reports the failure inherent to the design: its own plan, its own resource check, a replay of that dir', () => {
  const { code, md, err } = issue(path.join(run, 'counterexample'));
  assert.equal(code, 1, err);
  assert.match(md, /A failure inherent to how this lock is built/);
  assert.match(md, /pause client c1 for 944 ms the next time it reaches 'before-write'/);
  assert.match(md, /The lock's own history is valid; the resource it protects was not:\n\n- \*\*stale-write\*\* on lock `r8-k0` \(c1, c2\)/, 'the anomalies of this counterexample (its resource.json), not the bug\'s (r18-k0)');
  assert.doesNotMatch(md, /r18-k0|double-holder/);
  assert.match(md, new RegExp(`lockpick run --replay ${run.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/counterexample\n`));
});
