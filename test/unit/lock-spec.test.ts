// How a run directory names a user's lock module: relative to the directory
// lockpick ran in, with its content hash, so a copied run dir replays from any
// project root (test/integration/replay-portable.test.ts replays one).
import { tempDir } from '../support/temp-dir.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { lockFromStored, lockLabel, moduleHash, storedLock } from '../../src/runner/lock-spec.ts';

test('a module inside the project is stored relative to it with its hash, and resolved against the replay\'s directory', () => {
  const dir = tempDir('lockpick-lockspec-');
  try {
    const file = path.join(dir, 'locks', 'my-lock.ts');
    const s = storedLock({ path: file }, dir);
    assert.deepEqual(s.lock_spec, { path: path.join('locks', 'my-lock.ts') });
    assert.equal(s.lock_sha256, undefined, 'no file: no hash');
    writeFileSync(path.join(dir, 'lock.ts'), 'export default 1;\n');
    const h = storedLock({ path: path.join(dir, 'lock.ts') }, dir);
    assert.equal(h.lock_sha256, moduleHash(path.join(dir, 'lock.ts')));
    assert.match(h.lock_sha256!, /^[0-9a-f]{64}$/);
    writeFileSync(path.join(dir, 'lock.ts'), 'export default 2;\n');
    assert.notEqual(moduleHash(path.join(dir, 'lock.ts')), h.lock_sha256, 'an edit changes the hash');
    assert.deepEqual(lockFromStored({ path: 'locks/my-lock.ts' }, '/elsewhere/project'), { path: '/elsewhere/project/locks/my-lock.ts' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a module outside the project stays absolute; a registry name is kept as is', () => {
  assert.deepEqual(storedLock({ path: '/opt/locks/a.ts' }, '/home/u/project').lock_spec, { path: '/opt/locks/a.ts' });
  assert.deepEqual(lockFromStored({ path: '/opt/locks/a.ts' }, '/x'), { path: '/opt/locks/a.ts' });
  assert.deepEqual(storedLock({ name: 'redlock' }), { lock_spec: { name: 'redlock' } });
  assert.equal(lockLabel({ path: '/home/u/project/l.ts' }, '/home/u/project'), 'l.ts');
});

test("exec:CMD is a process client's name, kept whole (a command ending in .js too); a .json path is a recipe file", async () => {
  const { parseLockArg } = await import('../../src/runner/lock-spec.ts');
  const { storeName } = await import('../../src/runner/store.ts');
  assert.deepEqual(parseLockArg('exec:node my-lock.js'), { name: 'exec:node my-lock.js' });
  assert.deepEqual(storedLock({ name: 'exec:/usr/bin/python3 l.py' }), { lock_spec: { name: 'exec:/usr/bin/python3 l.py' } });
  assert.deepEqual(parseLockArg('my-lock.json'), { path: path.resolve('my-lock.json') });
  assert.equal(storeName('locks/my-lock.json'), 'my-lock');
  assert.equal(storeName('exec:node a/b.js'), 'exec_node_a_b.js');
});
