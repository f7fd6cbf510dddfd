// A clock step anchored inside an acquire (client-clock with params.point): the plan the
// stepped-validity aim draws, replayed on the built-in Redlock. Measured on the wall clock
// (clock=wall, its default) the acquisition time loses the step, so the validity it reports
// outlasts the lease and c1 still believes it holds when c2 takes the lock; on the monotonic
// clock the same plan is safe. And the stepped-release plan: a late release whose lock trusts
// the holder's wall clock, stepped back in its critical section.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { assertDoubleHolder, assertSafe, replayReleasePause } from './run-scenarios.ts';
import { lockpick, tempStore, type CliResult } from './run-helpers.ts';

/** c1 locks, its clock stepped 765 ms back just after the 2nd reply of its acquire, and works until its validity runs out; c2 comes while it holds. */
function replayStep(lockOptions: Record<string, unknown>): Promise<CliResult> {
  const dir = tempStore();
  writeFileSync(path.join(dir, 'test.json'), JSON.stringify({
    description: "c1's wall clock steps back inside its acquire; it works until its validity runs out; c2 waits", lock: 'redlock', lock_spec: { name: 'redlock' },
    lock_options: lockOptions, property: 'both',
    plan: {
      ttlMs: 800,
      clients: [
        { attempts: [{ key: 'k0', delayMs: 80, waitMs: 800, holdMs: 1765, renew: false }] },
        { attempts: [{ key: 'k0', delayMs: 448, waitMs: 1600, holdMs: 555, renew: false }] },
      ],
      faults: [{ kind: 'client-clock', at_ms: 0, duration_ms: 2365, target: 'c1', params: { delta_ms: -765, point: 'reply:acquire:2' } }],
    },
  }));
  return lockpick(['run', '--replay', dir, '--runs', '1', '--store', tempStore(), '--json'], 90_000);
}

interface Ev { type: string; f: string; process: unknown; client?: string; valid_ms?: number; value?: Record<string, unknown> }

test('a validity measured on the wall clock across a step inside the acquire: double holder', async () => {
  const r = await replayStep({});
  assertDoubleHolder(r);
  const h = readFileSync(path.join(r.summary!.dir, 'history.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Ev);
  const c1 = h.find((e) => e.type === 'invoke' && e.client === 'c1')!.process;
  const invoked = h.findIndex((e) => e.type === 'invoke' && e.f === 'acquire' && e.process === c1);
  const step = h.findIndex((e) => e.f === 'client-clock-start');
  const granted = h.findIndex((e) => e.type === 'ok' && e.f === 'acquire' && e.process === c1);
  assert.ok(invoked < step && step < granted, `the step (line ${step + 1}) lands inside c1's acquire (lines ${invoked + 1}-${granted + 1})`);
  assert.equal(h[step]!.value?.point, 'reply:acquire:2');
  assert.ok(h[granted]!.valid_ms! > 800, `the validity reported outlasts the lease: ${h[granted]!.valid_ms} ms`);
});

test('the same plan on the monotonic clock: safe', async () => {
  const r = await replayStep({ clock: 'monotonic' });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.summary!.lockViolations, 0);
});

test("a late release judged on the holder's clock: safe on a true clock, a stale unlock once the clock stepped back in the critical section", async () => {
  const lock = 'test/fixtures/locks/wall-expiry-release.ts';
  assertSafe(await replayReleasePause(lock, 'before-release'));
  const r = await replayReleasePause(lock, 'before-release', [{ kind: 'client-clock', at_ms: 0, duration_ms: 5000, target: 'c1', params: { delta_ms: -2500, point: 'in-critical-section' } }]);
  assertDoubleHolder(r);
});
