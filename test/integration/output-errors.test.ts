// test-lane: beside (its servers are its own; its verdicts do not hang on fine timing)
// Output on a full device (/dev/full: every write gives ENOSPC) is exit 3 with the path
// named, never "internal error" (4); a run's results.json is written first, whole.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openSync, closeSync, readFileSync, readlinkSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { bin, repoRoot, tempStore } from './run-helpers.ts';

/** lockpick with its stdout on /dev/full. */
function toFull(args: string[]) {
  const full = openSync('/dev/full', 'w');
  try {
    const r = spawnSync(process.execPath, [bin, ...args], { cwd: repoRoot, stdio: ['ignore', full, 'pipe'], encoding: 'utf8', timeout: 120_000 });
    return { code: r.status, stderr: r.stderr };
  } finally {
    closeSync(full);
  }
}

const results = (store: string) => JSON.parse(readFileSync(join(store, 'latest', 'results.json'), 'utf8')) as { verdict: unknown };

test('stdout on a full device: list, version and check exit 3 naming standard output', () => {
  for (const args of [['list'], ['version'], ['check', 'histories/double-holder.jsonl']]) {
    const r = toFull(args);
    assert.equal(r.code, 3, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /cannot write to standard output: .*no space left on device/);
    assert.doesNotMatch(r.stderr, /internal error/);
  }
});

test('check --out and run --junit on a full device: exit 3 naming the path; the run stored its results.json first', () => {
  const c = spawnSync(process.execPath, [bin, 'check', 'histories/double-holder.jsonl', '--format', 'junit', '--out', '/dev/full'], { cwd: repoRoot, encoding: 'utf8' });
  assert.equal(c.status, 3, c.stderr);
  assert.match(c.stderr, /cannot write \/dev\/full: no space left on device \(ENOSPC\)/);
  const store = tempStore();
  const r = spawnSync(process.execPath, [bin, 'run', '--replay', 'scenarios/set-px-lua-pause', '--runs', '1', '--junit', '/dev/full', '--store', store], { cwd: repoRoot, encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 3, r.stderr);
  assert.match(r.stderr, /cannot write the JUnit file \/dev\/full \(the run's results are in .*results\.json\): no space left on device/);
  assert.equal(results(store).verdict, false, 'the verdict is stored although the JUnit file could not be written');
  assert.ok(readlinkSync(join(store, 'latest')));
  // --json on a full stdout: the run finishes, stores its verdict, and exits 3.
  const store2 = tempStore();
  const j = toFull(['run', '--replay', 'scenarios/set-px-lua-pause', '--runs', '1', '--json', '--store', store2]);
  assert.equal(j.code, 3, j.stderr);
  assert.equal(results(store2).verdict, false);
});
