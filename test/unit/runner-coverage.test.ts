// When may a run be called safe? Pure logic: lock stats from events, what the
// nemesis did from its events, and the gates over a whole search.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { HistoryEvent } from '../../src/history/types.ts';
import { lockStats, emptyStats } from '../../checkers/stats.ts';
import { faultEffects } from '../../src/runner/fault-effects.ts';
import { addRun, describeCoverage, emptyCoverage, gaps } from '../../src/runner/coverage.ts';
import type { RunOutcome } from '../../src/runner/session.ts';

const ev = (process: number, type: HistoryEvent['type'], f: string, value?: unknown): HistoryEvent => ({ process, type, f, key: 'k', ...(value !== undefined ? { value } : {}) });
const nem = (f: string, value: unknown = {}): HistoryEvent => ({ process: 'nemesis', type: 'info', f, value });

test('lock stats: ok acquires, releases, and contention (an acquire invoked during another\'s hold)', () => {
  const s = lockStats([
    ev(0, 'invoke', 'acquire'), ev(0, 'ok', 'acquire'),
    ev(1, 'invoke', 'acquire'),                       // meets process 0's hold: contended
    ev(0, 'invoke', 'release'), ev(0, 'ok', 'release'),
    ev(1, 'ok', 'acquire'),
    ev(1, 'invoke', 'release'), ev(1, 'fail', 'release'), // a failed release is not a release
    ev(2, 'invoke', 'acquire'), ev(2, 'fail', 'acquire'),  // nobody believes: not contended
  ]);
  assert.deepEqual(s, { acquires: 3, okAcquires: 2, released: 1, contended: 1 });
});

test('lock stats: an acquire waiting when another client is granted the key met that hold: contended (the stale-unlock shape)', () => {
  // c1's release is under way (belief ended), c3 asks while nobody believes, c2 is then granted,
  // and c3 is granted too: a double holder, whose acquires were contended.
  const s = lockStats([
    ev(0, 'invoke', 'acquire'), ev(0, 'ok', 'acquire'), ev(0, 'invoke', 'release'),
    ev(1, 'invoke', 'acquire'), ev(2, 'invoke', 'acquire'),   // nobody believes: not yet contended
    ev(1, 'ok', 'acquire'),                                    // process 2 still waits: it meets this hold
    ev(2, 'ok', 'acquire'), ev(0, 'ok', 'release'),
    ev(3, 'invoke', 'acquire'), ev(3, 'fail', 'acquire'),      // invoked during holds: contended
    ev(4, 'invoke', 'acquire'), ev(4, 'info', 'acquire'),      // likewise, however it ended
  ]);
  assert.deepEqual(s, { acquires: 5, okAcquires: 3, released: 1, contended: 3 });
  // A waiter whose acquire ended before anyone was granted met no hold.
  const t = lockStats([
    ev(0, 'invoke', 'acquire'), ev(0, 'fail', 'acquire'),
    ev(1, 'invoke', 'acquire'), ev(1, 'ok', 'acquire'),
  ]);
  assert.deepEqual(t, { acquires: 2, okAcquires: 1, released: 0, contended: 0 });
});

test('lock stats: a lapse ends the hold but is not a release; re-entries are not new acquires', () => {
  const s = lockStats([
    ev(0, 'invoke', 'acquire'), ev(0, 'ok', 'acquire'),
    ev(0, 'invoke', 'acquire'), ev(0, 'ok', 'acquire'),   // re-entry
    ev(0, 'invoke', 'release'), ev(0, 'ok', 'release'),   // inner
    ev(0, 'invoke', 'release'), ev(0, 'ok', 'release', { lapse: true }),
    ev(1, 'invoke', 'acquire'), ev(1, 'ok', 'acquire'),
  ]);
  assert.deepEqual(s, { acquires: 2, okAcquires: 2, released: 0, contended: 0 });
});

test('fault effects: applied and healed per kind; each missing fault said with its reason', () => {
  const faults = [
    { kind: 'partition', at_ms: 10, duration_ms: 900, target: 'n1' },
    { kind: 'clock-strobe', at_ms: 20, duration_ms: 900, target: 'n1', params: { delta_ms: 1000 } },
    { kind: 'kill', at_ms: 30, duration_ms: 100, target: 'n1' },
    { kind: 'client-pause', at_ms: 0, duration_ms: 900, target: 'c2', params: { point: 'in-critical-section' } },
    { kind: 'pause', at_ms: 5000, duration_ms: 900, target: 'n1' },
  ];
  const e = faultEffects(faults, [
    nem('run-start'), nem('partition-start'), nem('clock-strobe-start-failed', { error: 'params.delta_ms is required' }),
    nem('partition-stop'), nem('run-end'),
  ], 3000);
  assert.deepEqual(e.applied, { partition: 1 });
  assert.deepEqual(e.healed, { partition: 1 });
  assert.equal(e.missing.length, 4);
  // In the order they were due.
  assert.match(e.missing[0]!, /client c2 did not reach 'in-critical-section' after 0 ms/);
  assert.match(e.missing[1]!, /flip node n1's wall clock .* never took effect: it failed to start: params\.delta_ms is required/);
  assert.match(e.missing[2]!, /kill -9 node n1.* the schedule stopped at an earlier fault that failed/);
  assert.match(e.missing[3]!, /pause \(SIGSTOP\) node n1.* the schedule stopped at an earlier fault that failed/);
  // Only partition took effect: the other kinds of the plan make the run inconclusive, each with its first reason.
  assert.equal(e.kindsMissing.length, 4);
  assert.match(e.kindsMissing.join('\n'), /clock-strobe|flip node n1/);
  // Two faults of one kind, one took effect: the kind was tested, the run stays conclusive.
  const twice = faultEffects([faults[0]!, { ...faults[0]!, at_ms: 5000 }], [nem('partition-start'), nem('partition-stop')], 3000);
  assert.equal(twice.missing.length, 1);
  assert.deepEqual(twice.kindsMissing, []);
  const late = faultEffects([faults[4]!], [nem('run-start'), nem('run-end')], 3000);
  assert.match(late.missing[0]!, /pause \(SIGSTOP\) node n1.* the clients were done after 3000 ms, before it was due/);
});

test('a fault a client says did not reach its lock (<kind>-unreached): not applied in that run, the kind missing with the reason', () => {
  const step = { kind: 'client-clock', at_ms: 0, duration_ms: 900, target: 'c1', params: { delta_ms: -900 } };
  const e = faultEffects([step], [
    nem('run-start'), nem('client-clock-start', { clients: ['c1'] }),
    nem('client-clock-unreached', { client: 'c1', reason: 'its process 7 (/usr/bin/etcdctl) is a Go executable' }),
    nem('client-clock-stop'), nem('run-end'),
  ], 3000);
  assert.equal(e.applied['client-clock'], 0);
  assert.deepEqual(e.kindsMissing, ["fault 'client-clock' did not reach the lock: client c1: its process 7 (/usr/bin/etcdctl) is a Go executable"]);
  assert.deepEqual(e.missing, e.kindsMissing);
  // The same events without the unreached one: applied, nothing missing.
  const felt = faultEffects([step], [nem('client-clock-start', { clients: ['c1'] }), nem('client-clock-stop')], 3000);
  assert.equal(felt.applied['client-clock'], 1);
  assert.deepEqual(felt.kindsMissing, []);
});

function outcome(over: Partial<RunOutcome>): RunOutcome {
  return {
    run: 1, plan: { ttlMs: 800, clients: [], faults: [] }, verdict: true, lockVerdict: true, events: [], ops: 4, elapsedMs: 1, problems: [], resourceEntries: [],
    inconclusive: [], faults: { applied: {}, healed: {}, missing: [], kindsMissing: [] }, stats: { acquires: 2, okAcquires: 2, released: 2, contended: 1 },
    check: { valid: true, model: 'mutex', ops: 0, keys: 0, anomalies: [], keys_detail: {}, elapsed_ms: 0 },
    resource: { valid: true, fenced: false, keys: 0, writes: 0, accepted: 0, lostUpdates: 0, staleWritesAccepted: 0, staleStepsPrevented: 0, anomalies: [], message: '' },
    ...over,
  } as RunOutcome;
}

test('gates: SAFE needs a conclusive run, every requested fault applied, an ok released acquire and contention', () => {
  const c = emptyCoverage(['partition', 'kill']);
  assert.match(gaps(c)[0]!, /no run was conclusive \(0 run\(s\)\)/);
  addRun(c, outcome({ verdict: 'unknown', inconclusive: ['fault "x" never took effect: client c2 did not reach it after 120 ms'] }));
  assert.match(gaps(c)[0]!, /no run was conclusive \(1 run\(s\)\); most often: fault "x" never took effect: client cN did not reach it after N ms \(1 run\(s\)\)/);
  addRun(c, outcome({ faults: { applied: { partition: 2 }, healed: {}, missing: [], kindsMissing: [] }, stats: { acquires: 3, okAcquires: 0, released: 0, contended: 0 } }));
  assert.deepEqual(gaps(c), [
    "fault 'kill' never took effect in a conclusive run",
    'no acquire succeeded (3 tried): the lock was never held, so its safety was never tested',
    "no contention: no acquire met another client's hold on the same key; use more clients (--clients), fewer keys, or more time",
  ]);
  addRun(c, outcome({ faults: { applied: { kill: 1 }, healed: {}, missing: [], kindsMissing: [] } }));
  assert.deepEqual(gaps(c), []);
  assert.equal(describeCoverage(c), '3 run(s) (2 conclusive), 5 acquire(s): 2 ok, 2 released, 1 contended; faults applied: partition 2, kill 1');
});

test('gates: faults applied in an inconclusive run do not count; a violating run is conclusive', () => {
  const c = emptyCoverage(['pause']);
  addRun(c, outcome({ verdict: 'unknown', inconclusive: ['client c1 crashed'], faults: { applied: { pause: 1 }, healed: {}, missing: [], kindsMissing: [] } }));
  assert.equal(c.faultsApplied.pause, 0);
  addRun(c, outcome({ verdict: false, faults: { applied: { pause: 1 }, healed: {}, missing: [], kindsMissing: [] }, stats: emptyStats() }));
  assert.equal(c.conclusive, 1);
  assert.equal(c.faultsApplied.pause, 1);
});
