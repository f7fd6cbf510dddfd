// test-lane: beside (its servers are its own; its verdicts do not hang on fine timing)
// A run directory is portable: test.json names a user's lock module relative to
// the directory lockpick ran in (plus the module's hash), so a counterexample
// copied elsewhere (a CI artifact on a laptop) replays from the project's root;
// --lock replaces the stored module; a changed module is named; a counterexample
// that does not break again exits 3 saying how often it was tried.
// Real Redis; each replay is one short stored plan (scenarios/set-px-del-pause).
import { tempDir } from '../support/temp-dir.ts';
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { lockpick, repoRoot } from './run-helpers.ts';
import { moduleHash } from '../../src/runner/lock-spec.ts';

const tmp = tempDir('lockpick-portable-');
after(() => rmSync(tmp, { recursive: true, force: true }));

/** A user's lock module: one of lockpick's recipes under the user's own name. */
const moduleOf = (recipe: string) => `import { recipe } from ${JSON.stringify(path.join(repoRoot, 'src/locks', `${recipe}.ts`))};\nexport default { ...recipe, name: 'my-lock' };\n`;

/** A counterexample as `lockpick run` stores it, made on "CI" (another directory) for `lock/my-lock.ts`. */
function ciRunDir(project: string, recipe: string, pauseMs = 1200): string {
  mkdirSync(path.join(project, 'lock'), { recursive: true });
  writeFileSync(path.join(project, 'lock', 'my-lock.ts'), moduleOf(recipe));
  const scenario = JSON.parse(readFileSync(path.join(repoRoot, 'scenarios/set-px-del-pause/test.json'), 'utf8')) as { plan: { faults: { duration_ms: number }[] } };
  scenario.plan.faults[0]!.duration_ms = pauseMs;
  const run = path.join(tmp, `ci-artifact-${recipe}`, 'store', 'r1');
  mkdirSync(run, { recursive: true });
  writeFileSync(path.join(run, 'test.json'), JSON.stringify({
    ...scenario, lock: 'lock/my-lock.ts', lock_spec: { path: 'lock/my-lock.ts' }, lock_sha256: moduleHash(path.join(project, 'lock', 'my-lock.ts')),
    counterexample: { seed: 1, path: '0', run: 1 },
  }));
  // Copied elsewhere, as a downloaded artifact is.
  const copy = path.join(tmp, 'downloads', recipe);
  cpSync(run, copy, { recursive: true });
  return copy;
}

test('a run dir copied to another directory replays from the project root; a changed module is named', { timeout: 90_000 }, async () => {
  const project = path.join(tmp, 'laptop-project');
  const dir = ciRunDir(project, 'set-px-del');
  const r = await lockpick(['run', '--replay', dir, '--runs', '2', '--store', path.join(tmp, 'store-a'), '--json'], 60_000, {}, project);
  assert.equal(r.code, 1, `the plain DEL breaks again:\n${r.stderr}`);
  assert.doesNotMatch(r.stderr, /changed since the run/);
  // The module edited since the run: still replayed, and said.
  writeFileSync(path.join(project, 'lock', 'my-lock.ts'), `${moduleOf('set-px-del')}// edited\n`);
  const edited = await lockpick(['run', '--replay', dir, '--runs', '2', '--store', path.join(tmp, 'store-b'), '--json'], 60_000, {}, project);
  assert.match(edited.stderr, /warning: the lock module lock\/my-lock\.ts changed since the run: sha256 [0-9a-f]{64} at the run, [0-9a-f]{64} now/);
  // From a directory without the module: exit 2 saying where it looked and the fix.
  const elsewhere = await lockpick(['run', '--replay', dir, '--store', path.join(tmp, 'store-c')], 30_000, {}, tmp);
  assert.equal(elsewhere.code, 2, elsewhere.stderr);
  assert.match(elsewhere.stderr, /lock\/my-lock\.ts is not at .*replay from your project's root, or give --lock PATH/);
});

test('a counterexample that does not break again exits 3 saying how often it was tried; --lock replaces the stored module', { timeout: 90_000 }, async () => {
  const project = path.join(tmp, 'safe-project');
  // A pause shorter than the lease: c2 waits for c1, nothing breaks (a timing-sensitive counterexample that did not happen).
  const dir = ciRunDir(project, 'set-px-lua', 300);
  const r = await lockpick(['run', '--replay', dir, '--runs', '1', '--store', path.join(tmp, 'store-d')], 60_000, {}, project);
  assert.equal(r.code, 3, `${r.stdout}\n${r.stderr}`);
  assert.match(r.stdout, /NOT REPRODUCED: tried 1 time\(s\) \(--runs 1\)/);
  // --lock: another module (a user's fix) against the stored plan is run, not ignored: not the
  // run's own lock, so no violation is a verdict (SAFE, exit 0), not "not reproduced".
  writeFileSync(path.join(project, 'other.ts'), moduleOf('set-px-lua-fenced'));
  const other = await lockpick(['run', '--replay', dir, '--lock', './other.ts', '--runs', '1', '--store', path.join(tmp, 'store-e'), '--json'], 60_000, {}, project);
  assert.equal(other.code, 0, other.stderr);
  const stored = JSON.parse(readFileSync(path.join(other.summary!.dir, 'test.json'), 'utf8')) as { lock_spec: { path: string } };
  assert.deepEqual(stored.lock_spec, { path: 'other.ts' });
});
