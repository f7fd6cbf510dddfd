// `lockpick run` end to end on real Redis: clocks and crashes. Client clock skew
// breaks the SETNX-timestamp recipe; a server clock jump or a restart without
// persistence breaks even the Lua-unlock recipe (one node).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { anomalyTypes, lockpick, tempStore } from './run-helpers.ts';

/**
 * `also`: other first anomalies that show the same break. A restart that loses the key
 * while the holder's release fails (the server is down) leaves no two beliefs
 * overlapping, but the server granted the lock during a live lease: nonlinearizable.
 */
async function expectDoubleHolder(lock: string, faults: string, also: string[] = []): Promise<void> {
  const r = await lockpick(['run', '--lock', lock, '--faults', faults, '--clients', '3', '--first-failure', '--time', '60', '--shrink-time', '8',
    '--store', tempStore(), '--json']);
  assert.equal(r.code, 1, r.stderr);
  const s = r.summary!;
  const first = (s.firstAnomalies as { type: string }[]).map((a) => a.type);
  assert.ok(first.includes('double-holder') || first.some((t) => also.includes(t)), `first violation: ${first}`);
  assert.ok(anomalyTypes(r).length > 0);
  assert.ok(s.minimal!.faults >= 1 && s.minimal!.faults <= 2, `faults: ${s.minimal!.faults}`);
  assert.ok(s.minimal!.plan.faults.every((f) => faults.split(',').includes(f.kind)));
  assert.ok(s.firstAfterMs! < 60_000);
  assert.match(r.stderr, /UNSAFE/);
}

test('redis-setnx-getset + client clock skew: double holder', () => expectDoubleHolder('redis-setnx-getset', 'client-clock'));

test('redis-set-px-lua + server clock jump: double holder', () => expectDoubleHolder('redis-set-px-lua', 'clock-bump'));

test('redis-set-px-lua + restart without persistence: double holder (or a grant during a live lease)', () => expectDoubleHolder('redis-set-px-lua', 'kill', ['nonlinearizable']));
