// A path lockpick reads whole that is not a regular file (a FIFO nobody writes, a directory,
// /dev/zero, a socket) is refused at once, exit 2, naming the path: never a hang. Each CLI
// run has a deadline, so a regression fails here instead of hanging the suite.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { tempDir } from '../support/temp-dir.ts';
import { notRegularFile, requireRegularFile } from '../../src/regular-file.ts';
import { UsageError } from '../../src/errors.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const dir = tempDir('lockpick-regular-');
const fifo = (name: string): string => { const p = join(dir, name); execFileSync('mkfifo', [p]); return p; };

/** The CLI, killed after 60 s: a hang is a failure with what it printed, not a stuck suite. */
function lockpick(...args: string[]): Promise<{ code: number | null; stderr: string; killed: boolean }> {
  return new Promise((done) => {
    execFile(process.execPath, [join(ROOT, 'bin/lockpick.mjs'), ...args], { cwd: ROOT, timeout: 60_000, killSignal: 'SIGKILL' }, (err, _out, stderr) => {
      const e = err as (Error & { code?: number; killed?: boolean }) | null;
      done({ code: e ? (typeof e.code === 'number' ? e.code : null) : 0, stderr, killed: e?.killed === true });
    });
  });
}

async function refused(args: string[], path: string, is: RegExp): Promise<void> {
  const r = await lockpick(...args);
  assert.equal(r.killed, false, `lockpick ${args.join(' ')} hung`);
  assert.equal(r.code, 2, r.stderr);
  assert.ok(r.stderr.includes(`${path} must be a regular file, but it is `), r.stderr);
  assert.match(r.stderr, is);
  assert.match(r.stderr, /fix: /);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
}

test('notRegularFile names what a path is; requireRegularFile refuses it as bad input', { timeout: 30_000 }, async () => {
  const file = join(dir, 'plain.json');
  writeFileSync(file, '{}');
  assert.equal(notRegularFile(file), undefined);
  assert.match(notRegularFile(fifo('helper-fifo'))!, /^a FIFO/);
  assert.equal(notRegularFile(dir), 'a directory');
  assert.equal(notRegularFile('/dev/zero'), 'a character device');
  assert.equal(notRegularFile(join(dir, 'none')), undefined, 'a missing file is left to its reader, which names it in its own words');
  const sock = join(dir, 's.sock');
  const server = createServer();
  await new Promise<void>((ok) => server.listen(sock, ok));
  try {
    assert.equal(notRegularFile(sock), 'a socket');
  } finally {
    server.close();
  }
  assert.throws(() => requireRegularFile('/dev/zero', '--lock', 'give a file'), (e: unknown) =>
    e instanceof UsageError && e.message === '--lock: /dev/zero must be a regular file, but it is a character device\n  fix: give a file');
  assert.doesNotThrow(() => requireRegularFile(file, '--lock'));
});

test('run --lock refuses a recipe file or module that is a FIFO, a directory or a device, at once', { timeout: 120_000 }, async () => {
  await refused(['run', '--lock', fifo('recipe.json')], join(dir, 'recipe.json'), /a FIFO/);
  await refused(['run', '--lock', fifo('module.ts')], join(dir, 'module.ts'), /a FIFO/);
  const d = join(dir, 'folder.json');
  mkdirSync(d);
  await refused(['run', '--lock', d], d, /a directory/);
  await refused(['run', '--lock', '/dev/zero'], '/dev/zero', /a character device/);
});

test('a run dir whose test.json is a FIFO: --replay, --points-from, merge and report refuse it', { timeout: 180_000 }, async () => {
  const run = join(dir, 'run');
  mkdirSync(run);
  const testJson = fifo('run/test.json');
  writeFileSync(join(run, 'history.jsonl'), '{"type":"invoke","f":"acquire","process":0}\n{"type":"ok","f":"acquire","process":0}\n');
  await refused(['run', '--replay', run], testJson, /--replay .*: .* a FIFO/);
  await refused(['run', '--lock', 'redis-set-px-del', '--points-from', run], testJson, /--points-from .*: .* a FIFO/);
  await refused(['merge', run], testJson, /a FIFO/);
  await refused(['report', run], testJson, /a FIFO/);
});

test('--endpoints FILE.json that is a FIFO is refused', { timeout: 60_000 }, async () => {
  const e = fifo('endpoints.json');
  await refused(['run', '--lock', 'redis-set-px-del', '--env', 'external', '--endpoints', e], e, /--endpoints: .* a FIFO/);
});
