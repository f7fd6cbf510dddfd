// bin/dist-fresh.mjs decides whether `lockpick check` may run the prebuilt dist/ instead of the
// sources: only when dist/.source-hash matches the sources' content now. A stale dist must never
// be taken for fresh, whatever the file times say.
import { tempDir } from '../support/temp-dir.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
// @ts-expect-error plain JavaScript module without types
import { distFresh, sourceHash, sourceStat } from '../../bin/dist-fresh.mjs';

/** Runs body in a fresh project folder with a writer for its files; the folder is removed after. */
function inProject(body: (root: string, write: (rel: string, text: string) => void) => void): void {
  const root = tempDir('lockpick-dist-');
  try {
    body(root, (rel, text) => { mkdirSync(path.dirname(path.join(root, rel)), { recursive: true }); writeFileSync(path.join(root, rel), text); });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

test('dist is fresh only while every source is exactly what was compiled', () => inProject((root, write) => {
  write('src/a.ts', 'export const a = 1;\n');
  write('checkers/b.ts', 'export const b = 2;\n');
  write('tsconfig.json', '{}');
  assert.equal(distFresh(root), false, 'no dist at all');
  write('dist/.source-hash', `${sourceHash(root)}\n`);
  assert.equal(distFresh(root), true);
  write('src/a.ts', 'export const a = 2;\n');
  assert.equal(distFresh(root), false, 'a changed source');
  // Back to the compiled text but with an old time: content decides, so fresh again.
  write('src/a.ts', 'export const a = 1;\n');
  utimesSync(path.join(root, 'src/a.ts'), new Date(0), new Date(0));
  assert.equal(distFresh(root), true);
  write('nemesis/c.ts', 'export {};\n');
  assert.equal(distFresh(root), false, 'a new source file');
  rmSync(path.join(root, 'nemesis'), { recursive: true });
  write('tsconfig.build.json', '{"compilerOptions":{}}');
  assert.equal(distFresh(root), false, 'changed build options');
  rmSync(path.join(root, 'tsconfig.build.json'));
  assert.equal(distFresh(root), true);
  // The npm package ships the sources and dist/ but no tsconfig: nothing can be recompiled there.
  rmSync(path.join(root, 'tsconfig.json'));
  assert.equal(distFresh(root), true, 'an installed package');
  write('src/a.ts', 'export const a = 3;\n');
  assert.equal(distFresh(root), false, 'an edited source in an installed package');
  write('src/a.ts', 'export const a = 1;\n');
  write('dist/.source-hash', '');
  assert.equal(distFresh(root), false, 'an empty stamp (a build that did not finish)');
}));

test('the sizes and times the build saw stand for the stored hash only while every source still has them', () => inProject((root, write) => {
  write('src/a.ts', 'export const a = 1;\n');
  write('tsconfig.json', '{}');
  // A stamp whose hash is not the sources' (as if they changed while compiling): only the sizes and times can make it fresh.
  write('dist/.source-hash', 'not-the-hash config\n');
  write('dist/.source-stat', sourceStat(root));
  assert.equal(distFresh(root), true, 'every source as the build saw it');
  write('src/a.ts', 'export const a = 2;\n'); // same size, a new time
  assert.equal(distFresh(root), false, 'an edited source: hashed again, and the hash differs');
  write('dist/.source-hash', `${sourceHash(root)}\n`);
  assert.equal(distFresh(root), true, 'times differ but the content is what was compiled');
  write('src/b.ts', 'export {};\n');
  write('dist/.source-stat', sourceStat(root));
  rmSync(path.join(root, 'src/b.ts'));
  assert.equal(distFresh(root), true, 'a removed file: hashed again (the hash matches the remaining sources)');
  write('dist/.source-hash', 'not-the-hash config\n');
  assert.equal(distFresh(root), false, 'a removed file and a stamp that does not match');
}));

test('files in dot folders are no sources (tsc skips them): a mutant recipe written beside the recipes leaves dist fresh', () => inProject((root, write) => {
  write('src/locks/a.ts', 'export const a = 1;\n');
  write('tsconfig.json', '{}');
  write('dist/.source-hash', `${sourceHash(root)}\n`);
  write('dist/.source-stat', sourceStat(root));
  // bench:mutants writes src/locks/.mutants/<name>/<recipe>.ts while other lockpick processes start.
  write('src/locks/.mutants/m1/a.ts', 'export const a = 2;\n');
  assert.equal(distFresh(root), true, 'a dot folder beside the sources');
  assert.doesNotMatch(sourceStat(root), /\.mutants/);
}));

test('a start that hashed the sources keeps what it saw under that stamp: the next start only compares it, and an edit or another stamp is hashed again', () => inProject((root, write) => {
  write('src/a.ts', 'export const a = 1;\n');
  write('tsconfig.json', '{}');
  const stamp = sourceHash(root);
  write('dist/.source-hash', `${stamp}\n`);
  // The build's sizes and times are not these (an installed package: npm dated the files anew).
  write('dist/.source-stat', 'src/a.ts 1 1');
  const verified = path.join(root, 'dist/.source-stat-verified');
  assert.equal(distFresh(root), true, 'hashed: the content is what was compiled');
  assert.equal(readFileSync(verified, 'utf8'), `${stamp}\n${sourceStat(root)}`);
  // The next start compares sizes and times with what was verified, no hash: a stamp no hash
  // would match is taken while the verified record says it was checked under it.
  write('dist/.source-hash', 'taken-unhashed config\n');
  write('dist/.source-stat-verified', `taken-unhashed config\n${sourceStat(root)}`);
  assert.equal(distFresh(root), true, 'verified under this stamp: not hashed');
  // Under a stamp of other sources, what was verified under the first one counts for nothing.
  write('dist/.source-hash', 'not-the-hash config\n');
  assert.equal(distFresh(root), false, 'another stamp');
  write('dist/.source-hash', `${stamp}\n`);
  write('src/a.ts', 'export const a = 2;\n'); // same size, a new time
  assert.equal(distFresh(root), false, 'an edited source: hashed again, and the hash differs');
  write('src/a.ts', 'export const a = 1;\n');
  assert.equal(distFresh(root), true);
  rmSync(verified);
  assert.equal(existsSync(verified), false);
}));
