// A lock's own counters (Lock.stats): read defensively in the worker, summed per
// conclusive run into the coverage, and said per ok acquire (the herd figure).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readLockStats, type Lock } from '../../src/locks/lock.ts';
import { addRun, describeCoverage, emptyCoverage } from '../../src/runner/coverage.ts';
import type { RunOutcome } from '../../src/runner/session.ts';

const lock = (stats?: () => unknown): Lock => ({
  name: 't', acquire: async () => null, release: async () => 'released', close: async () => {},
  ...(stats ? { stats: stats as () => Record<string, number> } : {}),
});

test('readLockStats: finite numbers only; none, a throw or garbage give undefined', () => {
  assert.equal(readLockStats(undefined), undefined);
  assert.equal(readLockStats(lock()), undefined);
  assert.equal(readLockStats(lock(() => { throw new Error('boom'); })), undefined);
  assert.equal(readLockStats(lock(() => 42)), undefined);
  assert.deepEqual(readLockStats(lock(() => ({ creates: 3, bad: NaN, word: 'x', inf: Infinity }))), { creates: 3 });
});

function outcome(over: Partial<RunOutcome>): RunOutcome {
  return {
    run: 1, plan: { ttlMs: 800, clients: [], faults: [] }, verdict: true, lockVerdict: true, events: [], ops: 4, elapsedMs: 1, problems: [], resourceEntries: [],
    inconclusive: [], faults: { applied: {}, healed: {}, missing: [], kindsMissing: [] }, stats: { acquires: 5, okAcquires: 4, released: 4, contended: 2 },
    ...over,
  } as RunOutcome;
}

test('coverage: lock counters summed over conclusive runs and said per ok acquire', () => {
  const c = emptyCoverage([]);
  addRun(c, outcome({ lockStats: { watchNotifications: 10, creates: 14 } }));
  addRun(c, outcome({ lockStats: { watchNotifications: 9, creates: 10, wakeups: 7 } }));
  addRun(c, outcome({ verdict: 'unknown', inconclusive: ['client c1 crashed'], lockStats: { watchNotifications: 1000 } })); // not counted
  addRun(c, outcome({}));                                                                                                   // a lock without counters
  assert.deepEqual(c.lockStats, { watchNotifications: 19, creates: 24, wakeups: 7 });
  assert.equal(c.okAcquires, 12);
  assert.deepEqual(c.lockStatsPerOkAcquire, { watchNotifications: 1.58, creates: 2, wakeups: 0.58 });
  assert.match(describeCoverage(c), /; per ok acquire: 1\.58 watch notifications, 2 creates, 0\.58 wakeups$/);
  // Nothing counted: the summary line is as before.
  assert.doesNotMatch(describeCoverage(emptyCoverage([])), /per ok acquire/);
});
