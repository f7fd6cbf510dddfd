// The store is laid out as Jepsen's: store/<lock>/<run-id>/, store/latest and
// store/<lock>/latest linking to the newest run, and a log of what the run printed.
import { tempDir } from '../support/temp-dir.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readlinkSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { newRunDir, runLog, storeName } from '../../src/runner/store.ts';

test('store/<lock>/<run-id>/ with latest links that follow the newest run', () => {
  const root = tempDir('lockpick-store-layout-');
  try {
    const a = newRunDir(root, 'redis-set-px-lua');
    assert.equal(path.dirname(a.dir), path.join(root, 'redis-set-px-lua'));
    assert.equal(path.basename(a.dir), a.id);
    assert.equal(realpathSync(path.join(root, 'latest')), realpathSync(a.dir));
    const b = newRunDir(root, 'locks/my-lock.ts');
    assert.equal(path.dirname(b.dir), path.join(root, 'my-lock'));
    assert.equal(readlinkSync(path.join(root, 'latest')), path.join('my-lock', b.id), 'relative: the store can be moved');
    assert.equal(realpathSync(path.join(root, 'redis-set-px-lua', 'latest')), realpathSync(a.dir), 'each lock keeps its own latest');
    const log = runLog(b.dir);
    log('line one\n');
    log('line two\n');
    assert.equal(readFileSync(path.join(b.dir, 'lockpick.log'), 'utf8'), 'line one\nline two\n');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('lock names as directory names', () => {
  assert.equal(storeName('npm:redlock'), 'npm_redlock');
  assert.equal(storeName('/abs/path/lock.mts'), 'lock');
  assert.equal(storeName('../x.cjs'), 'x');
  assert.equal(storeName('..'), '_', 'never a path out of the store');
});
