// test-lane: beside (no server; child processes of its own)
// A user's lock module is read in a disposable child process (src/locks/recipe-probe.ts):
// nothing its top-level code does (patch globals, await forever, exit, spawn, fail) reaches
// lockpick's process, and each way of failing is exit 2 naming the module and what it did.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tempDir } from '../support/temp-dir.ts';
import { probeUserLock } from '../../src/locks/recipe-probe.ts';
import { isRunning } from '../../src/env/procfs.ts';

const root = resolve(import.meta.dirname, '../..');
const dir = tempDir('lockpick-probe-');
const example = join(root, 'examples/my-lock.ts');
const write = (name: string, text: string) => { const f = join(dir, name); writeFileSync(f, text); return f; };

test('a module that replaces setTimeout and JSON.parse at load time changes nothing here; its data comes back', async () => {
  const f = write('patcher.mts', `import recipe from ${JSON.stringify(example)};
globalThis.setTimeout = (() => 0) as never; JSON.parse = () => { throw new Error('patched'); };
export default { ...recipe, name: 'patcher', points: ['a', 'b'], sessionMs: (o?: { s?: number }) => (o?.s ?? 7) * 1000 };\n`);
  const [timeout, parse] = [globalThis.setTimeout, JSON.parse];
  const r = await probeUserLock(f, 'patcher.mts', [{ s: 3 }]);
  assert.equal(globalThis.setTimeout, timeout);
  assert.equal(JSON.parse, parse);
  assert.equal(r.name, 'patcher');
  assert.deepEqual(r.points, ['a', 'b']);
  assert.equal(r.topology.kind, 'redis');
  assert.equal(r.sessionMs?.({ s: 3 }), 3000, 'sessionMs evaluated in the child for the options asked');
  assert.throws(() => r.sessionMs?.({ s: 4 }), /not read when the module loaded/);
  assert.throws(() => r.create({} as never), /only in the client workers/);
});

test('top-level await that never settles, work that never ends, process.exit, a throw: exit 2 naming each', async () => {
  const cases: Array<[string, string, RegExp]> = [
    ['tla.mjs', 'await new Promise(() => {});\nexport default {};\n', /tla\.mjs: its top-level await never settled/],
    ['forever.mjs', 'setInterval(() => {}, 1000);\nawait new Promise(() => {});\n', /forever\.mjs: its top-level code did not finish loading within 2 s/],
    ['exits.cjs', 'console.log("bye"); process.exit(0);\n', /exits\.cjs: loading it ended its process with exit code 0 .*\n.*bye/],
    ['throws.mjs', 'throw new Error("no config");\n', /throws\.mjs: the module failed to load: no config/],
    ['fn-field.mjs', `import r from ${JSON.stringify(example)};\nexport default { ...r, optionsHelp: { retryMs: () => 'x' } };\n`, /optionsHelp\.retryMs: a function where plain data is expected/],
  ];
  for (const [name, text, want] of cases) {
    // A short deadline only where it is the point: loading a module takes seconds on a busy machine.
    if (name === 'forever.mjs') process.env.LOCKPICK_LOAD_TIMEOUT_MS = '2000';
    try {
      await assert.rejects(probeUserLock(write(name, text), name), (e: Error & { exitCode?: number }) => {
        assert.equal(e.exitCode, 2, `${name}: ${e.message}`);
        assert.match(e.message, want);
        return true;
      });
    } finally {
      delete process.env.LOCKPICK_LOAD_TIMEOUT_MS;
    }
  }
});

test('what a module starts at load time, in a new session with a cleared environment, ends with its loading', async () => {
  const pidFile = join(dir, 'escaped.pid');
  const f = write('spawner.mjs', `import { spawn } from 'node:child_process';
const c = spawn('setsid', ['env', '-i', '/bin/sh', '-c', 'echo $$ > ${pidFile}; exec sleep 300'], { detached: true, stdio: 'ignore' });
c.unref();
await new Promise((r) => setTimeout(r, 300));
export { default } from ${JSON.stringify(example)};\n`);
  await probeUserLock(f, 'spawner.mjs');
  const { readFileSync } = await import('node:fs');
  const pid = Number(readFileSync(pidFile, 'utf8'));
  assert.ok(pid > 0);
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(isRunning(pid), false, `the module's sleep ${pid} was left running`);
});

test('lockpick run --lock with a module that never loads: exit 2 naming it, no traceback', () => {
  const f = write('hang.mjs', 'setInterval(() => {}, 1000);\nawait new Promise(() => {});\n');
  const r = spawnSync(process.execPath, [join(root, 'bin/lockpick.mjs'), 'run', '--lock', f, '--store', join(dir, 'store')], {
    encoding: 'utf8', cwd: dir, timeout: 60_000, env: { ...process.env, LOCKPICK_LOAD_TIMEOUT_MS: '2000' },
  });
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /lockpick run: --lock .*hang\.mjs: its top-level code did not finish loading within 2 s/);
});

test('under a memory cap that TypeScript loading cannot start in: exit 3 saying so, never 1 or 4', () => {
  // tsx compiles through WebAssembly, which reserves more address space than `ulimit -v` leaves.
  const r = spawnSync('sh', ['-c', `ulimit -v 2000000; exec "${process.execPath}" "${join(root, 'bin/lockpick.mjs')}" run --lock "${example}" --time 1 --store "${join(dir, 'store')}"`], {
    encoding: 'utf8', cwd: dir, timeout: 120_000,
  });
  assert.equal(r.status, 3, r.stderr);
  assert.match(r.stderr, /out of memory|lack of memory/);
  assert.doesNotMatch(r.stderr, /internal error/);
});
