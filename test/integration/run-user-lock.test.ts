// test-lane: beside (its servers are its own; its verdicts do not hang on fine timing)
// `lockpick run --lock ./path.ts`: a user's own module, run like a built-in
// recipe (the README's example: SET NX PX + Lua unlock, broken by a client pause).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { anomalyTypes, lockpick, repoRoot, tempStore } from './run-helpers.ts';
import { isRunning } from '../../src/env/procfs.ts';

test('a user lock module is run and broken by a client pause', async () => {
  const r = await lockpick(['run', '--lock', './examples/my-lock.ts', '--faults', 'client-pause', '--first-failure', '--time', '60', '--shrink-time', '0',
    '--store', tempStore(), '--json']);
  assert.equal(r.code, 1, r.stderr);
  assert.ok(anomalyTypes(r).includes('double-holder'));
  assert.match(r.stderr, /UNSAFE: (.*\/)?examples\/my-lock\.ts broke/);
});

test('unknown lock or fault: exit 2, naming the known ones', async () => {
  const a = await lockpick(['run', '--lock', 'no-such-lock']);
  assert.equal(a.code, 2);
  assert.match(a.stderr, /unknown lock "no-such-lock"; known locks: redis-setnx-getset, .*redis-set-px-lua/);
  const b = await lockpick(['run', '--lock', 'redis-set-px-lua', '--faults', 'gremlins']);
  assert.equal(b.code, 2);
  assert.match(b.stderr, /unknown fault 'gremlins'; known faults: partition, .*client-pause/);
  const c = await lockpick(['run', '--lock', 'redis-set-px-check-del', '--faults', 'client-pause', '--pause-at', 'nowhere']);
  assert.equal(c.code, 2);
  assert.match(c.stderr, /no point 'nowhere'; its points: in-critical-section, (\S+, )*after-compare/);
});

test('what a lock module starts in a client, in a new session with a cleared environment, ends with the client', async () => {
  const store = tempStore();
  const pids = path.join(store, 'escaped.pids');
  const mod = path.join(store, 'spawner.mts');
  // Each client's create() starts a daemon that leaves its process group, its session and
  // lockpick's tag variable (setsid + env -i), and is handed to init once setsid's parent exits.
  writeFileSync(mod, `import { spawn } from 'node:child_process';
import recipe from ${JSON.stringify(path.join(repoRoot, 'examples/my-lock.ts'))};
export default { ...recipe, name: 'spawner', create(ctx: Parameters<typeof recipe.create>[0]) {
  spawn('setsid', ['env', '-i', '/bin/sh', '-c', 'echo $$ >> ${pids}; exec sleep 300'], { detached: true, stdio: 'ignore' }).unref();
  return recipe.create(ctx);
} };\n`);
  const r = await lockpick(['run', '--lock', mod, '--clients', '2', '--time', '5', '--runs', '1', '--shrink-time', '0', '--store', store, '--json']);
  assert.ok(r.code === 0 || r.code === 3, r.stderr);
  const started = readFileSync(pids, 'utf8').split('\n').filter(Boolean).map(Number);
  // Each client starts one; on a busy machine a run may end (and end a daemon) before its shell wrote its pid.
  assert.ok(started.length >= 1, `a client started its daemon: ${started.join(', ')}`);
  await new Promise((res) => setTimeout(res, 300));
  const left = started.filter((p) => isRunning(p));
  for (const p of left) { try { process.kill(p, 'SIGKILL'); } catch { /* gone */ } }
  assert.deepEqual(left, [], 'no daemon a client started outlives the run');
});
