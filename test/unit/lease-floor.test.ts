// The run's TTL against the shortest lease the servers said they grant (Timescales.leaseMinMs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { leaseFloor } from '../../src/runner/session.ts';

test('a default TTL shorter than the servers grant is raised to their minimum, and said', () => {
  const r = leaseFloor(800, false, { leaseMinMs: 2000, said: [] });
  assert.equal(r.ttlMs, 2000);
  assert.match(r.said ?? '', /2000 ms.*800 ms is raised/);
});

test('a --ttl the user fixed is kept, with a warning', () => {
  const r = leaseFloor(800, true, { leaseMinMs: 2000, said: [] });
  assert.equal(r.ttlMs, 800);
  assert.match(r.said ?? '', /^warning: .*2000 ms/);
});

test('a TTL at or above the minimum, or no minimum known, is left alone and nothing is said', () => {
  assert.deepEqual(leaseFloor(2000, false, { leaseMinMs: 2000, said: [] }), { ttlMs: 2000 });
  assert.deepEqual(leaseFloor(800, false, { said: [] }), { ttlMs: 800 });
});
