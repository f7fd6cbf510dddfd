// The mutant fixtures of `npm run bench:mutants` (bench/mutants/): each must
// still apply to its recipe as it is today, so a refactored recipe fails here
// loudly instead of the bench silently measuring an unmutated "mutant".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { FAMILIES, MUTANTS } from '../../bench/mutants/fixtures.ts';
import { LOCKS_DIR, materialize, moduleFiles, mutate, occurrences, redirectImports } from '../../bench/mutants/apply.ts';
import { recipeFromModule } from '../../src/locks/user-lock.ts';
import { RECIPES } from '../../src/locks/registry.ts';

const source = (file: string) => readFileSync(path.join(LOCKS_DIR, file), 'utf8');

test('every mutant\'s search text occurs exactly once in its recipe file, and the change changes it', () => {
  for (const m of MUTANTS) {
    const text = source(m.file);
    assert.equal(occurrences(text, m.search), 1, `${m.name}: search text in src/locks/${m.file}`);
    assert.notEqual(m.replace, m.search, m.name);
    assert.notEqual(mutate(text, m), text, m.name);
  }
});

test('mutants are named once, belong to a family, and say why', () => {
  assert.ok(MUTANTS.length >= 32, `${MUTANTS.length} mutants`);
  assert.equal(new Set(MUTANTS.map((m) => m.name)).size, MUTANTS.length, 'duplicate mutant names');
  for (const m of MUTANTS) {
    assert.ok(FAMILIES[m.family], `${m.name}: family ${m.family}`);
    assert.match(m.name, /^[a-z0-9-]+$/, m.name);
    assert.ok(m.why.length > 20, `${m.name}: why`);
  }
  // No two mutants make the same change.
  assert.equal(new Set(MUTANTS.map((m) => `${m.file}\0${m.search}\0${m.replace}`)).size, MUTANTS.length);
});

test('mutate refuses a search text found twice or not at all', () => {
  const m = { name: 'x', file: 'f.ts', search: 'a', replace: 'b' };
  assert.equal(mutate('xay', m), 'xby');
  assert.throws(() => mutate('aa', m), /occurs 2 times/);
  assert.throws(() => mutate('xyz', m), /occurs 0 times/);
});

test('relative imports of a copy point back at src/locks/, except the files copied beside it', () => {
  const src = "import { a } from './lock.ts';\nimport type { B } from \"./single-node.ts\";\nimport x from 'ioredis';\nconst y = await import('./lua.ts');";
  assert.equal(redirectImports(src, new Set(['single-node.ts'])),
    "import { a } from '../../lock.ts';\nimport type { B } from \"./single-node.ts\";\nimport x from 'ioredis';\nconst y = await import('../../lua.ts');");
});

test('a mutated helper is copied with the recipe module that imports it, which imports the copy', () => {
  const m = MUTANTS.find((x) => x.module && x.module !== x.file)!;
  const files = moduleFiles(m);
  assert.deepEqual([...files.keys()].sort(), [m.file, m.module!].sort());
  assert.match(files.get(m.module!)!, new RegExp(`from '\\./${m.file.replace('.', '\\.')}'`));
  assert.ok(files.get(m.file)!.includes(m.replace));
  assert.equal(moduleFiles(m, false).get(m.file), redirectImports(source(m.file), new Set([m.file, m.module!])), 'the unmutated copy is the recipe as it is');
});

test('every mutant loads as a lock module whose recipe is the built-in one it came from', async () => {
  for (const m of MUTANTS) {
    const mod = materialize(m, `unit-test-${m.name}`);
    try {
      const ns = (await import(pathToFileURL(mod.lockPath).href)) as Record<string, unknown>;
      const recipe = recipeFromModule(ns, mod.lockPath);
      const builtIn = RECIPES.find((r) => r.name === recipe.name);
      assert.ok(builtIn, `${m.name}: recipe ${recipe.name} is a built-in`);
      assert.equal(recipe.model, builtIn.model, m.name);
      assert.equal(recipe.fencing, builtIn.fencing, m.name);
    } finally {
      mod.remove();
    }
  }
});
