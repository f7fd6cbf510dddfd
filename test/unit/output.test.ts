// The one output layer (src/output.ts): a failed write is exit 3 when the disk failed and
// exit 2 when the path cannot be written, always naming the path; a file is written whole.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync, lstatSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../support/temp-dir.ts';
import { outputError, writeOutput } from '../../src/output.ts';
import { exitCodeOf } from '../../src/errors.ts';

const dir = tempDir('lockpick-output-');
const code = (f: () => void): { code: number | undefined; message: string } => {
  try { f(); } catch (e) { return { code: exitCodeOf(e), message: (e as Error).message }; }
  return { code: 0, message: '' };
};

test('a full device is exit 3 naming the path; a missing directory or a directory in the way exit 2', () => {
  const full = code(() => writeOutput('/dev/full', 'x', { what: 'cannot write --junit /dev/full' }));
  assert.equal(full.code, 3);
  assert.match(full.message, /--junit \/dev\/full: no space left on device \(ENOSPC\)/);
  const missing = code(() => writeOutput(join(dir, 'no', 'such', 'f.json'), 'x'));
  assert.equal(missing.code, 2);
  assert.match(missing.message, /no such file or directory \(ENOENT\)\n {2}fix: /);
  mkdirSync(join(dir, 'a-dir'));
  assert.equal(code(() => writeOutput(join(dir, 'a-dir'), 'x')).code, 2);
  assert.equal(code(() => writeOutput('/sys/lockpick-output-test', 'x')).code, 2, 'EACCES');
});

test('every errno class maps the same way; anything else is not claimed', () => {
  const err = (c: string) => Object.assign(new Error(`${c}: boom`), { code: c });
  for (const c of ['ENOSPC', 'EDQUOT', 'EIO', 'EFBIG']) assert.equal(exitCodeOf(outputError('w', err(c), 'f')), 3, c);
  for (const c of ['EROFS', 'EACCES', 'EPERM', 'ENOENT', 'ENOTDIR', 'EISDIR']) assert.equal(exitCodeOf(outputError('w', err(c), 'f')), 2, c);
  const bug = new TypeError('not a file error');
  assert.equal(outputError('w', bug, 'f'), bug);
});

test('a file is replaced whole (no temporary left), a symlink keeps pointing at its target', () => {
  const f = join(dir, 'results.json');
  writeFileSync(f, 'old');
  writeOutput(f, 'new');
  assert.equal(readFileSync(f, 'utf8'), 'new');
  const target = join(dir, 'target.xml');
  writeFileSync(target, 'a');
  symlinkSync(target, join(dir, 'link.xml'));
  writeOutput(join(dir, 'link.xml'), 'b');
  assert.ok(lstatSync(join(dir, 'link.xml')).isSymbolicLink());
  assert.equal(readFileSync(target, 'utf8'), 'b');
  assert.deepEqual(readdirSync(dir).filter((n) => n.endsWith('.tmp')), []);
});

test('a read-only file system is exit 2 (EROFS)', { skip: process.getuid?.() !== 0 ? 'mounting needs root' : false }, (t) => {
  const ro = join(dir, 'ro');
  mkdirSync(ro);
  if (spawnSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=64k', 'lockpick-ro', ro]).status !== 0) return t.skip('mount not permitted here');
  try {
    const r = code(() => writeOutput(join(ro, 'junit.xml'), 'x'));
    assert.equal(r.code, 2);
    assert.match(r.message, /read-only file system \(EROFS\)/);
  } finally {
    spawnSync('umount', [ro]);
  }
});
