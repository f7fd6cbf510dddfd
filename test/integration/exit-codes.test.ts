// test-lane: beside (its servers are its own; its verdicts do not hang on fine timing)
// An environment that fails to start makes no test possible: exit 3 with the
// reason (README "Exit codes"), not 1 (a verdict) and not 4 (a bug). A
// redis-server that exits at once, first on PATH, is the failing server; the
// rest of the environment (fault proxy, leftover cleanup) is the real one.
import { tempDir } from '../support/temp-dir.ts';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'bin/lockpick.mjs');
let dir: string;
let fakeBin: string;

before(() => {
  dir = tempDir('lockpick-exit-int-');
  fakeBin = join(dir, 'bin');
  mkdirSync(fakeBin);
  writeFileSync(join(fakeBin, 'redis-server'), '#!/bin/sh\necho "redis-server: refusing to start (test)" >&2\nexit 1\n');
  chmodSync(join(fakeBin, 'redis-server'), 0o755);
});
after(() => rmSync(dir, { recursive: true, force: true }));

const lockpick = (...args: string[]) => {
  const r = spawnSync(process.execPath, [bin, ...args], {
    encoding: 'utf8', cwd: dir, timeout: 120_000, env: { ...process.env, PATH: `${fakeBin}:${process.env.PATH}` },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
};

test('env up whose servers fail to start → 3 with the reason', () => {
  const r = lockpick('env', 'up', 'redis');
  assert.equal(r.code, 3, r.err);
  assert.match(r.err, /lockpick env up: the redis environment failed to start: .*redis-server n1 .*exited during startup/);
  assert.match(r.err, /refusing to start \(test\)/, 'the server log says why');
  assert.match(r.err, /fix: /);
  assert.doesNotMatch(r.err, /internal error/);
});

test('run whose environment fails to start → 3 with the reason, and nothing left running', () => {
  const r = lockpick('run', '--lock', 'redis-set-px-lua', '--first-failure', '--time', '5', '--store', join(dir, 'store'));
  assert.equal(r.code, 3, r.err);
  assert.match(r.err, /lockpick run: the redis environment failed to start: [^]*refusing to start \(test\)/);
  assert.doesNotMatch(r.err, /internal error/);
  const left = spawnSync('pgrep', ['-f', join(dir, 'bin', 'redis-server')], { encoding: 'utf8' });
  assert.equal(left.stdout.trim(), '', 'no fake server left running');
});
