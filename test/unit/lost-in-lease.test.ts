// A release that came back lost while its lease cannot have run out, with no fault on the servers
// (src/runner/lost-in-lease.ts): counted, so the search gives no SAFE on it (coverage gaps).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { HistoryEvent } from '../../src/history/types.ts';
import { lostInsideLease } from '../../src/runner/lost-in-lease.ts';
import { addRun, emptyCoverage, gaps } from '../../src/runner/coverage.ts';
import type { RunOutcome } from '../../src/runner/session.ts';

const ms = 1e6;
const op = (type: HistoryEvent['type'], f: string, process: number, t: number, extra: Partial<HistoryEvent> = {}): HistoryEvent =>
  ({ type, f, process, key: 'k', time: t * ms, ...extra });
const nem = (f: string, t: number, value: unknown = {}): HistoryEvent => ({ type: 'info', f, process: 'nemesis', value, time: t * ms });

// c1 is paused between its GET and its DEL past its lease; c2 takes the lock; c1's DEL removes
// c2's key; c2's release comes back lost 400 ms before its lease (from its invoke) could end.
const staleDel = (pauseKind = 'client-pause'): HistoryEvent[] => [
  op('invoke', 'acquire', 0, 0, { client: 'c1' }), op('ok', 'acquire', 0, 5, { lease_ms: 1000 }),
  op('invoke', 'release', 0, 100, { client: 'c1' }),
  nem(`${pauseKind}-start`, 101, { id: 'f1', client: 'c1' }),
  op('invoke', 'acquire', 1, 1100, { client: 'c2' }), op('ok', 'acquire', 1, 1110, { lease_ms: 1000 }),
  nem(`${pauseKind}-stop`, 1300, { id: 'f1' }),
  op('ok', 'release', 0, 1302),
  op('invoke', 'release', 1, 1690, { client: 'c2' }), op('ok', 'release', 1, 1700, { value: { lost: true } }),
];

test("a release lost inside its lease with only clients' faults: counted, named", () => {
  assert.deepEqual(lostInsideLease(staleDel()), { count: 1, example: `c2's release of "k" came back lost 400 ms before its lease could have ended` });
  // The servers' own expiry lag is taken off the lease (memcached's whole seconds).
  assert.equal(lostInsideLease(staleDel(), 500).count, 0);
  // A search with it is no SAFE: the gap says why.
  const c = emptyCoverage(['client-pause']);
  addRun(c, { verdict: true, inconclusive: [], faults: { applied: { 'client-pause': 1 }, healed: {}, missing: [], kindsMissing: [] }, stats: { acquires: 2, okAcquires: 2, released: 2, contended: 1, unansweredWaiters: 0 }, outcomes: undefined, lostInLease: lostInsideLease(staleDel()) } as unknown as RunOutcome);
  assert.match(gaps(c).join('\n'), /^1 release\(s\) came back lost inside their lease while no fault touched the servers \(c2's release of "k" came back lost 400 ms before its lease could have ended\): something removed a live lock/);
});

test('not counted: a server fault while it held, a lease already over, a waiter whose lease may have begun early, a lease kept alive, no lease', () => {
  // A fault of the servers (a kill may forget the key): anything may have removed it.
  assert.equal(lostInsideLease(staleDel('kill')).count, 0);
  // A kind this lockpick does not know is taken as the servers'.
  assert.equal(lostInsideLease(staleDel('mystery')).count, 0);
  const lostAt = (end: number, ok: Partial<HistoryEvent> = { lease_ms: 1000 }) => lostInsideLease([
    op('invoke', 'acquire', 1, 0, { client: 'c2' }), op('ok', 'acquire', 1, 600, ok),
    op('invoke', 'release', 1, end - 5, { client: 'c2' }), op('ok', 'release', 1, end, { value: { lost: true } }),
  ]).count;
  assert.equal(lostAt(900), 1);
  // Its key may have been set as early as its invoke: 1000 ms after it, the lease may have run out.
  assert.equal(lostAt(1001), 0);
  assert.equal(lostAt(900, { lease_ms: 1000, value: { kept_alive: true } }), 0);
  assert.equal(lostAt(900, {}), 0);
  // A release that came back ok, or a lapse, is no loss.
  assert.equal(lostInsideLease([op('invoke', 'acquire', 1, 0), op('ok', 'acquire', 1, 5, { lease_ms: 1000 }), op('invoke', 'release', 1, 50), op('ok', 'release', 1, 60, { value: { lapse: true } })]).count, 0);
});
