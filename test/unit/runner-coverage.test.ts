// When may a run be called safe? Pure logic: lock stats from events, what the
// nemesis did from its events, and the gates over a whole search.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { HistoryEvent } from '../../src/history/types.ts';
import { lockStats, emptyStats } from '../../checkers/stats.ts';
import { faultEffects } from '../../src/runner/fault-effects.ts';
import { addRun, describeCoverage, emptyCoverage, gaps, reasonWords } from '../../src/runner/coverage.ts';
import { sumCoverage } from '../../src/runner/merge.ts';
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
  assert.deepEqual(s, { acquires: 3, okAcquires: 2, released: 1, contended: 1, unansweredWaiters: 0 });
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
    ev(4, 'invoke', 'acquire'), ev(4, 'info', 'acquire'),      // met a hold, no definite answer: a waiter unanswered, not contended
    ev(5, 'invoke', 'acquire'),                                // met a hold, still waiting at the end: likewise
  ]);
  assert.deepEqual(s, { acquires: 6, okAcquires: 3, released: 1, contended: 2, unansweredWaiters: 2 });
  // A waiter whose acquire ended before anyone was granted met no hold.
  const t = lockStats([
    ev(0, 'invoke', 'acquire'), ev(0, 'fail', 'acquire'),
    ev(1, 'invoke', 'acquire'), ev(1, 'ok', 'acquire'),
  ]);
  assert.deepEqual(t, { acquires: 2, okAcquires: 1, released: 0, contended: 0, unansweredWaiters: 0 });
});

test('lock stats: a lapse ends the hold but is not a release; re-entries are not new acquires', () => {
  const s = lockStats([
    ev(0, 'invoke', 'acquire'), ev(0, 'ok', 'acquire'),
    ev(0, 'invoke', 'acquire'), ev(0, 'ok', 'acquire'),   // re-entry
    ev(0, 'invoke', 'release'), ev(0, 'ok', 'release'),   // inner
    ev(0, 'invoke', 'release'), ev(0, 'ok', 'release', { lapse: true }),
    ev(1, 'invoke', 'acquire'), ev(1, 'ok', 'acquire'),
  ]);
  assert.deepEqual(s, { acquires: 2, okAcquires: 2, released: 0, contended: 0, unansweredWaiters: 0 });
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
  assert.match(e.missing[0]!, /client c2 did not reach 'in-critical-section' in the run/);
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

test('a kind a client says can never reach its lock (always): no SAFE on it, though a run whose client went unseen counted it applied', () => {
  const step = { kind: 'client-clock', at_ms: 0, duration_ms: 900, target: 'c1', params: { delta_ms: -900 } };
  const never = faultEffects([step], [
    nem('client-clock-start', { clients: ['c1'] }),
    nem('client-clock-unreached', { client: 'c1', reason: 'its process 7 (/usr/bin/etcdctl) is a Go executable', always: true }),
    nem('client-clock-stop'),
  ], 3000);
  assert.deepEqual(never.unreachable, { 'client-clock': 'client c1: its process 7 (/usr/bin/etcdctl) is a Go executable' });
  // Only this run: no `always`, nothing learned for the search.
  assert.equal(faultEffects([step], [nem('client-clock-start', { clients: ['c1'] }), nem('client-clock-unreached', { client: 'c1', reason: 'x' })], 3000).unreachable, undefined);
  const c = emptyCoverage(['client-clock']);
  // A run that counted the step (its Go process went unseen), then the run that learned it: the search has a gap, not a SAFE.
  addRun(c, outcome({ faults: { applied: { 'client-clock': 1 }, healed: {}, missing: [], kindsMissing: [] } }));
  assert.deepEqual(gaps(c), []);
  addRun(c, outcome({ verdict: 'unknown', inconclusive: never.kindsMissing, faults: never }));
  assert.deepEqual(gaps(c), ["fault 'client-clock' can never reach this lock (client c1: its process 7 (/usr/bin/etcdctl) is a Go executable): the 1 time(s) conclusive runs counted it as applied did not test the lock"]);
});

test('a fault aimed at clients that had no operation and held nothing while it lasted did not reach the lock', () => {
  const ms = 1e6;
  const at = (e: HistoryEvent, t: number): HistoryEvent => ({ ...e, time: t * ms });
  const op = (p: number, client: string, f: string, type: 'invoke' | 'ok', t: number): HistoryEvent => at({ process: p, type, f, key: 'k', ...(type === 'invoke' ? { client } : {}) }, t);
  const step = { kind: 'client-clock', at_ms: 100, duration_ms: 300, target: 'c3', params: { delta_ms: 1104 } };
  // c1 works from 150 to 190 ms; the step on c3 (100-400 ms, begun at 95) meets nothing of c3.
  const c1 = [op(0, 'c1', 'acquire', 'invoke', 150), op(0, 'c1', 'acquire', 'ok', 160), op(0, 'c1', 'release', 'invoke', 180), op(0, 'c1', 'release', 'ok', 190)];
  const idle = faultEffects([step], [at(nem('run-start'), 0), at(nem('client-clock-start', { id: 'f4', clients: ['c3'], began: 95 * ms }), 100), ...c1,
    at(nem('client-clock-stop', { id: 'f4' }), 400), at(nem('run-end'), 500)], 500);
  assert.equal(idle.applied['client-clock'], 0);
  assert.deepEqual(idle.kindsMissing, ["fault 'client-clock' did not reach the lock: client c3 had no operation and held nothing while it lasted"]);
  // The same step on c1 meets its operations: applied.
  const onC1 = faultEffects([{ ...step, target: 'c1' }], [at(nem('client-clock-start', { id: 'f4', clients: ['c1'], began: 95 * ms }), 100), ...c1, at(nem('client-clock-stop', { id: 'f4' }), 400)], 500);
  assert.equal(onC1.applied['client-clock'], 1);
  assert.deepEqual(onC1.kindsMissing, []);
  // A hold that spans the fault (acquired before it, released after) is met; a cut link of an idle client is not.
  const held = [op(1, 'c2', 'acquire', 'invoke', 10), op(1, 'c2', 'acquire', 'ok', 20), op(1, 'c2', 'release', 'invoke', 450), op(1, 'c2', 'release', 'ok', 460)];
  const cut = { kind: 'partition', at_ms: 100, duration_ms: 300, target: 'client:c2' };
  assert.equal(faultEffects([cut], [at(nem('partition-start', { id: 'f5', target: 'client:c2' }), 100), ...held, at(nem('partition-stop', { id: 'f5' }), 400)], 500).applied.partition, 1);
  const cutIdle = faultEffects([cut], [...held.slice(0, 2).map((e) => ({ ...e, time: e.time! })), op(1, 'c2', 'release', 'invoke', 30), op(1, 'c2', 'release', 'ok', 40),
    at(nem('partition-start', { id: 'f5', target: 'client:c2' }), 100), at(nem('partition-stop', { id: 'f5' }), 400)], 500);
  assert.equal(cutIdle.applied.partition, 0);
  assert.match(cutIdle.kindsMissing[0]!, /client c2 had no operation and held nothing while it lasted/);
  // A fault of servers is not judged so.
  assert.equal(faultEffects([{ kind: 'partition', at_ms: 100, duration_ms: 300, target: 'n1' }], [at(nem('partition-start', { id: 'f6', target: 'n1' }), 100), at(nem('partition-stop', { id: 'f6' }), 400)], 500).applied.partition, 1);
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
  assert.match(gaps(c)[0]!, /no run was conclusive \(1 run\(s\)\); most often: fault "x" never took effect: client c2 did not reach it after N ms \(1 run\(s\)\)/);
  addRun(c, outcome({ faults: { applied: { partition: 2 }, healed: {}, missing: [], kindsMissing: [] }, stats: { acquires: 3, okAcquires: 0, released: 0, contended: 0, unansweredWaiters: 0 } }));
  assert.deepEqual(gaps(c), [
    "fault 'kill' never took effect in a conclusive run",
    'no acquire succeeded (3 tried): the lock was never held, so its safety was never tested',
    "no contention: no acquire met another client's hold on the same key; use more clients (--clients), fewer keys, or more time",
  ]);
  addRun(c, outcome({ faults: { applied: { kill: 1 }, healed: {}, missing: [], kindsMissing: [] } }));
  assert.deepEqual(gaps(c), []);
  assert.equal(describeCoverage(c), '3 run(s) (2 conclusive), 5 acquire(s) in the conclusive run(s): 2 ok, 2 released, 1 contended; faults applied: partition 2, kill 1');
});

test('validity: acquire and renew oks that reported one are counted, and those checkable against their lease (a renew by its acquire\'s)', () => {
  const ok = (process: number, f: string, fields: Record<string, number>): HistoryEvent => ({ ...ev(process, 'ok', f), ...fields });
  const s = lockStats([
    ev(0, 'invoke', 'acquire'), ok(0, 'acquire', { lease_ms: 1000, valid_ms: 900, sent_ms: 3 }),   // checked
    ev(0, 'invoke', 'renew'), ok(0, 'renew', { valid_ms: 950, sent_ms: 2 }),                      // checked, by its acquire's lease
    ev(0, 'invoke', 'release'), ev(0, 'ok', 'release'),
    ev(1, 'invoke', 'acquire'), ok(1, 'acquire', { lease_ms: 1000, valid_ms: 900 }),             // its sends unseen: reported only
    ev(1, 'invoke', 'renew'), ok(1, 'renew', { sent_ms: 1 }),                                     // no validity reported
    ev(1, 'invoke', 'release'), ev(1, 'ok', 'release'),
    ev(2, 'invoke', 'acquire'), ok(2, 'acquire', { valid_ms: 900, sent_ms: 3 }),                 // leaseless: reported only
  ]);
  assert.equal(s.validityReported, 4);
  assert.equal(s.validityChecked, 2);
  const c = emptyCoverage([]);
  addRun(c, outcome({ stats: s }));
  assert.match(describeCoverage(c), /; validity reported on 4 grant\(s\) \(acquire or renew ok\), 2 checked against its lease \(the rest: no lease, or the lock's sends unseen/);
  addRun(c, outcome({ stats: lockStats([ev(3, 'invoke', 'acquire'), ok(3, 'acquire', { lease_ms: 500, valid_ms: 400, sent_ms: 1 })]) }));
  assert.equal(c.validityReported, 5);
  // lockpick merge sums the shards' counts; a shard whose lock reported none (or from before they were counted) adds nothing.
  const merged = sumCoverage([], [c, c, emptyCoverage([])]);
  assert.deepEqual([merged.validityReported, merged.validityChecked], [10, 6]);
  // A lock that reports no validity: nothing said, nothing stored.
  const none = emptyCoverage([]);
  addRun(none, outcome({ stats: lockStats([ev(0, 'invoke', 'acquire'), ev(0, 'ok', 'acquire')]) }));
  assert.doesNotMatch(describeCoverage(none), /validity/);
  assert.equal('validityReported' in none, false);
});

test('gates: faults applied in an inconclusive run do not count; a violating run is conclusive', () => {
  const c = emptyCoverage(['pause']);
  addRun(c, outcome({ verdict: 'unknown', inconclusive: ['client c1 crashed'], faults: { applied: { pause: 1 }, healed: {}, missing: [], kindsMissing: [] } }));
  assert.equal(c.faultsApplied.pause, 0);
  addRun(c, outcome({ verdict: false, faults: { applied: { pause: 1 }, healed: {}, missing: [], kindsMissing: [] }, stats: emptyStats() }));
  assert.equal(c.conclusive, 1);
  assert.equal(c.faultsApplied.pause, 1);
});

test('an inconclusive reason is counted by its words: numbers become N, a long one is cut at a word and marked', () => {
  assert.equal(reasonWords('c2 paused 1115 ms at the 2nd acquire (#1)'), 'c2 paused N ms at the 2nd acquire (#1)');
  assert.equal(reasonWords('pause client c2 for 312 ms just before the 4th command of its next acquire (send:acquire:4)'), 'pause client c2 for N ms just before the 4th command of its next acquire (send:acquire:4)');
  const long = `fault "from 120 ms: the server ends the session(s) of client c3 when client c1 next reaches 'in-critical-section'" never took effect: it failed to start: session-kill: no server session of c3 to end (KILL CONNECTION found no connection of c3 among ${'x '.repeat(60)}the listed ones)`;
  const w = reasonWords(long);
  assert.ok(w.length <= 300, `${w.length} chars`);
  assert.match(w, /no server session of c3 to end \(KILL CONNECTION/, 'what failed stays in');
  assert.match(w, / x…$/, 'cut after a whole word, marked');
});

test("a replay of a counterexample one client shows alone asks for no contention; any other still does", async () => {
  const { soloAnomalies } = await import('../../src/runner/replay.ts');
  const { mkdirSync, writeFileSync } = await import('node:fs');
  const path = await import('node:path');
  const { tempDir } = await import('../support/temp-dir.ts');
  const results = (types: string[]) => JSON.stringify({ minimal: { check: { anomalies: types.map((type) => ({ type })) }, resource: { anomalies: [] } } });
  const dir = tempDir('lockpick-solo-');
  writeFileSync(path.join(dir, 'results.json'), results(['overstated-validity', 'expired-grant', 'overstated-validity']));
  assert.deepEqual(soloAnomalies(dir), ['overstated-validity', 'expired-grant']);
  mkdirSync(path.join(dir, 'counterexample'));
  assert.deepEqual(soloAnomalies(path.join(dir, 'counterexample')), ['overstated-validity', 'expired-grant'], "a counterexample dir: its run's results");
  writeFileSync(path.join(dir, 'results.json'), results(['overstated-validity', 'double-holder']));
  assert.equal(soloAnomalies(dir), undefined, 'a double holder needs a second client');
  // A bug found after an inherent failure: the minimal run is the bug's (counterexample-2), counterexample/ the other's.
  writeFileSync(path.join(dir, 'results.json'), JSON.stringify({
    ...JSON.parse(results(['double-holder', 'stale-release'])),
    failures: [{ counterexample: '/moved/run/counterexample-2', anomalies: ['stale-release'] }, { counterexample: '/moved/run/counterexample', anomalies: ['overstated-validity'] }],
  }));
  mkdirSync(path.join(dir, 'counterexample-2'));
  assert.equal(soloAnomalies(path.join(dir, 'counterexample-2')), undefined, "the bug's counterexample needs contention");
  assert.deepEqual(soloAnomalies(path.join(dir, 'counterexample')), ['overstated-validity'], 'counterexample/ by its own failure, not the minimal run');
  writeFileSync(path.join(dir, 'results.json'), JSON.stringify({ minimal: null }));
  assert.equal(soloAnomalies(dir), undefined, 'no counterexample stored');
  const c = emptyCoverage([]);
  addRun(c, outcome({ stats: { acquires: 2, okAcquires: 2, released: 2, contended: 0, unansweredWaiters: 0 } }));
  assert.match(gaps(c).join('\n'), /no contention/);
  assert.deepEqual(gaps(c, { contention: false }), []);
});
