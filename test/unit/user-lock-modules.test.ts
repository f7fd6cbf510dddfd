// loadUserLock across the module kinds of users' projects: every extension
// (.ts .mts .cts .js .mjs .cjs) in a CommonJS-scoped and an ESM-scoped package,
// and every way to export a recipe. No servers: the recipe is only loaded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadUserLock } from '../../src/locks/user-lock.ts';

const RECIPE = (name: string) =>
  `{ name: '${name}', summary: 's', source: 'test', topology: { kind: 'redis', masters: 1 }, model: 'mutex', fencing: false, create() { return null; } }`;

// How a module exports its recipe, per syntax. ESM syntax is fine in .ts/.mts
// anywhere (tsx compiles it to the scope's system); CommonJS syntax only where
// the file is CommonJS.
const ESM_STYLES = {
  'export default': (n: string) => `const recipe = ${RECIPE(n)};\nexport default recipe;\n`,
  'export const recipe': (n: string) => `export const recipe = ${RECIPE(n)};\n`,
};
const CJS_STYLES = {
  'module.exports =': (n: string) => `const os = require('node:os');\nmodule.exports = ${RECIPE(n)};\n`,
  'module.exports.default =': (n: string) => `module.exports.default = ${RECIPE(n)};\n`,
  'exports.recipe =': (n: string) => `exports.recipe = ${RECIPE(n)};\n`,
};

/** Which styles a file of this extension may use in a package of this type. */
function stylesFor(ext: string, type: 'commonjs' | 'module'): Record<string, (n: string) => string> {
  const cjs = ext === '.cjs' || ext === '.cts' || (type === 'commonjs' && ext === '.js');
  const esm = ext === '.mjs' || ext === '.mts' || ext === '.ts' || (type === 'module' && ext === '.js');
  return { ...(esm ? ESM_STYLES : {}), ...(cjs ? CJS_STYLES : {}) };
}

// Under the repository's .tmp/ (git-ignored), so user modules resolve packages
// (ioredis) from its node_modules, as a user's project resolves its own.
const tmp = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../.tmp');
mkdirSync(tmp, { recursive: true });
const root = mkdtempSync(path.join(tmp, 'modkinds-'));
test.after(() => rmSync(root, { recursive: true, force: true }));

for (const type of ['commonjs', 'module'] as const) {
  // "type" absent means commonjs (npm init -y writes "commonjs" since npm 10.9, older writes none).
  for (const pkg of type === 'commonjs' ? [{}, { type }] : [{ type }]) {
    const dir = mkdtempSync(path.join(root, `${type}-`));
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'user-project', ...pkg }));
    for (const ext of ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs']) {
      for (const [style, body] of Object.entries(stylesFor(ext, type))) {
        test(`package ${JSON.stringify(pkg)}: a ${ext} module with ${style}`, async () => {
          const name = `lock-${style.replace(/\W+/g, '-')}-${ext.slice(1)}`;
          const file = path.join(dir, `${name}${ext}`);
          writeFileSync(file, body(name));
          const r = await loadUserLock(file);
          assert.equal(r.name, name);
          assert.equal(typeof r.create, 'function');
          assert.deepEqual(r.topology, { kind: 'redis', masters: 1 });
        });
      }
    }
  }
}

test('a TypeScript module in a CommonJS package imports a package and lockpick types (the "require() of ES Module in a cycle" case)', async () => {
  const dir = mkdtempSync(path.join(root, 'cjs-imports-'));
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'p', type: 'commonjs' }));
  const file = path.join(dir, 'my-lock.ts');
  writeFileSync(file, [
    "import type { LockRecipe } from 'lockpick';",
    "import { randomBytes } from 'node:crypto';",
    `const recipe: LockRecipe = { ...${RECIPE('typed')}, summary: randomBytes(2).toString('hex') } as unknown as LockRecipe;`,
    'export default recipe;',
  ].join('\n'));
  const r = await loadUserLock(file);
  assert.equal(r.name, 'typed');
  assert.match(r.summary, /^[0-9a-f]{4}$/);
});

test('a CommonJS-scoped .ts lock importing ioredis after lockpick itself loaded ioredis', async () => {
  // tsx's tsImport fails here ("Cannot redefine property: default"): the loader must not use it.
  await import('../../src/locks/registry.ts');
  const dir = mkdtempSync(path.join(root, 'cjs-ioredis-'));
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'p', type: 'commonjs' }));
  const file = path.join(dir, 'redis-lock.ts');
  writeFileSync(file, `import { Redis } from 'ioredis';\nexport default { ...${RECIPE('ioredis')}, summary: typeof Redis };\n`);
  const r = await loadUserLock(file);
  assert.equal(r.name, 'ioredis');
  assert.equal(r.summary, 'function');
});

test('errors say what was found and what is expected', async () => {
  const dir = mkdtempSync(path.join(root, 'errors-'));
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'p', type: 'commonjs' }));
  const write = (f: string, body: string) => { writeFileSync(path.join(dir, f), body); return path.join(dir, f); };

  // CommonJS exports object that is not a recipe: names module.exports and what it holds.
  await assert.rejects(loadUserLock(write('half.cjs', "module.exports = { name: 'half', create() {} };\n")), (e: Error) =>
    /module\.exports/.test(e.message) && /found an object with name, create/.test(e.message) &&
    /summary: a non-empty string/.test(e.message) && !/- name:/.test(e.message) && /module\.exports = recipe/.test(e.message));
  // A TypeScript default export (compiled to CommonJS here) that is a function, not a recipe.
  await assert.rejects(loadUserLock(write('fn.ts', 'export default function create() { return null; }\n')), (e: Error) =>
    /the default export.* is not a LockRecipe \(found a function create\)/.test(e.message));
  // Nothing exported at all: CommonJS still has its (empty) module.exports.
  await assert.rejects(loadUserLock(write('none.cts', 'const x = 1;\n')), /module\.exports in CommonJS\) is not a LockRecipe \(found an empty object\)/);
  await assert.rejects(loadUserLock(write('none.mjs', 'const x = 1;\n')), /exports neither a default nor `recipe` \(found no exports at all\)/);
  // Exports under other names are listed.
  await assert.rejects(loadUserLock(write('other.mts', 'export const lock = 1;\nexport const helper = 2;\n')), /found exports helper, lock/);
  // Not a module kind lockpick loads.
  await assert.rejects(loadUserLock(write('lock.txt', '{}')), /must be one of \.ts \.mts \.cts \.js \.mjs \.cjs, found '\.txt' \(a process client in another language: a \.json recipe file/);
  // A .json file is a process client's recipe file (docs/process-clients.md), checked as one.
  await assert.rejects(loadUserLock(write('lock.json', '{}')), /the recipe file is wrong:\n  - exec: the command that starts the client/);
  // CommonJS syntax where the package says ESM fails to load, with the runtime's reason.
  const esmDir = mkdtempSync(path.join(root, 'errors-esm-'));
  writeFileSync(path.join(esmDir, 'package.json'), JSON.stringify({ name: 'p', type: 'module' }));
  writeFileSync(path.join(esmDir, 'lock.js'), "module.exports = {};\n");
  await assert.rejects(loadUserLock(path.join(esmDir, 'lock.js')), /failed to load: .*module is not defined/);
});
