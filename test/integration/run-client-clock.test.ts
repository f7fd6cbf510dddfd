// A client clock fault reaches the clocks a lock really reads: a lock that judges
// expiry by Date.now() (not ctx.clock.wallMs) is broken by client-clock, as the
// same recipe on ctx.clock is (run-clock-crash.test.ts). Before the worker moved
// Date.now(), this run was SAFE for a fault that never reached the lock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lockpick, tempStore } from './run-helpers.ts';

test('a Date.now()-based SETNX lock + client clock skew: double holder', async () => {
  const r = await lockpick(['run', '--lock', './test/fixtures/locks/date-now-setnx.ts', '--faults', 'client-clock', '--clients', '3',
    '--first-failure', '--time', '60', '--shrink-time', '8', '--store', tempStore(), '--json']);
  assert.equal(r.code, 1, r.stderr);
  const first = (r.summary!.firstAnomalies as { type: string }[]).map((a) => a.type);
  assert.ok(first.includes('double-holder'), `first violation: ${first}`);
  assert.ok(r.summary!.minimal!.plan.faults.every((f) => f.kind === 'client-clock'));
  assert.ok(r.summary!.minimal!.plan.faults.length >= 1, 'the minimal plan still needs the clock fault');
});
