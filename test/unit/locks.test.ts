// The lock registry and user-module loading (no servers needed).
import { tempDir } from '../support/temp-dir.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RECIPES, getRecipe, loadUserLock } from '../../src/locks/registry.ts';
import { recipeProblems } from '../../src/locks/user-lock.ts';

test('every recipe has a unique name, a source and a topology the environment knows', () => {
  const names = RECIPES.map((r) => r.name);
  assert.equal(new Set(names).size, names.length);
  for (const r of RECIPES) assert.deepEqual(recipeProblems(r), [], r.name);
  for (const n of ['redis-setnx-getset', 'redis-setnx-getset-check', 'redis-set-px-del', 'redis-set-px-check-del', 'redis-set-px-lua',
    'redis-set-px-lua-fenced', 'redlock', 'redis-sentinel', 'redisson-style', 'npm:redlock', 'npm:redis-semaphore', 'npm:redis-semaphore-redlock']) {
    assert.equal(getRecipe(n).name, n);
  }
  assert.equal(getRecipe('redis-set-px-lua-fenced').fencing, true);
  assert.equal(getRecipe('redisson-style').model, 'reentrant-mutex');
});

test("a recipe's channels are lower-case names of its further connections", () => {
  const base = { ...getRecipe('etcd-mutex') };
  assert.deepEqual(recipeProblems({ ...base, channels: ['keepalive'] }), []);
  for (const bad of ['keepalive', ['Keep Alive'], [1]]) {
    assert.deepEqual(recipeProblems({ ...base, channels: bad }), ["channels: names of the lock's further connections, lower-case words (e.g. ['keepalive'])"], JSON.stringify(bad));
  }
});

test("a recipe's ioPoints is 'proxy' or 'hooks'", () => {
  const base = { ...getRecipe('redis-set-px-lua') };
  for (const ok of ['proxy', 'hooks', undefined]) assert.deepEqual(recipeProblems({ ...base, ioPoints: ok }), [], String(ok));
  for (const bad of ['proxi', true]) assert.match(recipeProblems({ ...base, ioPoints: bad }).join(), /^ioPoints: 'proxy'/, String(bad));
});

test('getRecipe: an unknown name lists the known ones', () => {
  assert.throws(() => getRecipe('redis-typo'), (e: Error) => /unknown lock "redis-typo"/.test(e.message) && e.message.includes('redis-set-px-lua') && e.message.includes('npm:redlock'));
});

test('loadUserLock accepts examples/my-lock.ts', async () => {
  const r = await loadUserLock('examples/my-lock.ts');
  assert.equal(r.name, 'my-lock');
  assert.deepEqual(r.topology, { kind: 'redis', masters: 1 });
});

test('loadUserLock: clear errors for a missing file, no export, and missing fields', async () => {
  const dir = tempDir('lockpick-userlock-');
  try {
    await assert.rejects(loadUserLock(path.join(dir, 'nope.ts')), /no such file/);
    const none = path.join(dir, 'none.ts');
    writeFileSync(none, 'export const x = 1;\n');
    await assert.rejects(loadUserLock(none), /exports neither a default nor `recipe`/);
    const partial = path.join(dir, 'partial.ts');
    writeFileSync(partial, "export const recipe = { name: 'p', topology: { kind: 'redis' }, model: 'mutex' };\n");
    await assert.rejects(loadUserLock(partial), (e: Error) =>
      ['summary', 'source', 'create(ctx)', 'fencing', 'topology.masters'].every((m) => e.message.includes(m)) && !e.message.includes('- name'));
    const broken = path.join(dir, 'broken.ts');
    writeFileSync(broken, 'export default {{;\n');
    await assert.rejects(loadUserLock(broken), /failed to load/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
