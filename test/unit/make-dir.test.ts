// makeDir (src/make-dir.ts): a --store or --out that cannot be created says why (a file in the
// way, a read-only or unwritable parent), never only Node's "no such file or directory".
import { tempDir } from '../support/temp-dir.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeDir } from '../../src/make-dir.ts';
import { fsReason } from '../../src/errors.ts';
import { newRunDir } from '../../src/runner/store.ts';
import { UsageError } from '../../src/errors.ts';

test('a file in the way is named as such (ENOTDIR), through newRunDir too', () => {
  const d = tempDir('lockpick-mkdir-');
  try {
    writeFileSync(join(d, 'f'), '');
    assert.throws(() => makeDir(join(d, 'f', 'a', 'b')), (e: unknown) => {
      assert.equal((e as NodeJS.ErrnoException).code, 'ENOTDIR');
      assert.match(fsReason(e), new RegExp(`${join(d, 'f')} is a file where a directory is needed \\(ENOTDIR\\)`));
      return true;
    });
    assert.throws(() => newRunDir(join(d, 'f', 'store'), 'my-lock'), (e: unknown) => e instanceof UsageError && /is a file where a directory is needed/.test(e.message) && /fix: give --store/.test(e.message));
    makeDir(join(d, 'ok', 'deep'));   // and a writable place still works
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
});

test('an unwritable parent is named (EACCES), not ENOENT', { skip: process.getuid?.() === 0 ? 'root may write anywhere' : false }, () => {
  const d = tempDir('lockpick-mkdir-');
  try {
    mkdirSync(join(d, 'ro'));
    chmodSync(join(d, 'ro'), 0o555);
    assert.throws(() => makeDir(join(d, 'ro', 'a', 'b')), (e: unknown) => /cannot write to .*ro: permission denied \(EACCES\)/.test(fsReason(e)));
  } finally {
    chmodSync(join(d, 'ro'), 0o755);
    rmSync(d, { recursive: true, force: true });
  }
});

test('a directory under /proc is refused at once, naming the place (Node\'s recursive mkdir loops for ever there)', { skip: existsSync('/proc/self') ? false : 'no /proc here', timeout: 10_000 }, () => {
  for (const d of ['/proc/lockpick-merged', '/proc/lockpick-merged/a/b']) {
    assert.throws(() => makeDir(d), (e: unknown) => {
      assert.equal((e as NodeJS.ErrnoException).code, 'ENOENT');
      assert.match(fsReason(e), /no directory can be made in \/proc: its file system refuses new directories/);
      return true;
    });
  }
  // Through newRunDir: --store under /proc is exit 2 naming it, not a hang.
  assert.throws(() => newRunDir('/proc/lockpick-store', 'my-lock'), (e: unknown) => e instanceof UsageError && /\/proc/.test(e.message));
});
