// test-lane: beside (its servers are its own; its verdicts do not hang on fine timing)
// `lockpick run --lock ./path.ts`: a user's own module, run like a built-in
// recipe (the README's example: SET NX PX + Lua unlock, broken by a client pause).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { anomalyTypes, lockpick, tempStore } from './run-helpers.ts';

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
