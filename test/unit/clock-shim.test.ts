// Where the clock shim comes from in an installed package (no build/): the
// explicit LOCKPICK_CLOCKSHIM, the per-user cache, built there with cc.
import { tempDir } from '../support/temp-dir.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildShim, packageRoot, shimCacheDir, shimPath } from '../../src/env/clock-shim.ts';

const root = packageRoot();

test('packageRoot finds lockpick\'s package.json above the sources', () => {
  assert.equal(JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).name, 'lockpick');
  assert.ok(existsSync(path.join(root, 'native', 'clockshim.c')));
});

test('LOCKPICK_CLOCKSHIM is used as given, and a missing one says how to fix it', () => {
  assert.equal(shimPath({ LOCKPICK_CLOCKSHIM: '/bin/sh' }), '/bin/sh');
  assert.throws(() => shimPath({ LOCKPICK_CLOCKSHIM: '/nonexistent/libclockshim.so' }),
    /LOCKPICK_CLOCKSHIM=\/nonexistent\/libclockshim\.so does not exist; unset it/);
});

test('the cache is per user and per shim source: XDG_CACHE_HOME, ~/.cache, /var/cache for root', () => {
  const version = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).version;
  const xdg = shimCacheDir(root, { XDG_CACHE_HOME: '/x/cache' }, 1000);
  assert.match(xdg, new RegExp(`^/x/cache/lockpick/${version.replace(/\./g, '\\.')}-[0-9a-f]{12}$`));
  assert.equal(path.dirname(shimCacheDir(root, {}, 1000)), path.join(os.homedir(), '.cache', 'lockpick'));
  // Servers run under their own uids when lockpick is root: /root is unreadable to them.
  assert.equal(path.dirname(shimCacheDir(root, { XDG_CACHE_HOME: '/root/.cache' }, 0)), '/var/cache/lockpick');
});

test('buildShim compiles a shared object with cc, and without a compiler names the fix', () => {
  const dir = tempDir('lockpick-shim-');
  try {
    const out = path.join(dir, 'sub', 'libclockshim.so');
    buildShim(root, out);
    assert.equal(readFileSync(out).subarray(0, 4).toString('latin1'), '\x7fELF');
    assert.throws(() => buildShim(root, path.join(dir, 'other.so'), 'no-such-cc'),
      (e: Error) => /no C compiler 'no-such-cc' on PATH/.test(e.message) && /apt-get install gcc/.test(e.message) && /LOCKPICK_CLOCKSHIM=/.test(e.message));
    assert.ok(!existsSync(path.join(dir, 'other.so')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
