// The server's side of a lease lock (docs/history-format.md "Leases and what the server holds"): a failed release keeps
// the lock at the server until the lease, counted from the acquire's invoke, has run out; renews
// extend it; the holder's own late release is fine until someone else took the lock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkHistory } from '../../checkers/index.ts';
import type { CheckResult } from '../../checkers/types.ts';
import type { HistoryEvent } from '../../src/history/types.ts';
import { toParsed } from '../support/history.ts';

const ms = 1e6;
const ev = (type: HistoryEvent['type'], f: string, process: number, time: number | undefined, extra: Partial<HistoryEvent> = {}): HistoryEvent =>
  ({ type, f, process, key: 'k', ...(time === undefined ? {} : { time: time * ms }), ...extra });
const lease = { lease_ms: 800 };
const check = (events: HistoryEvent[], model = 'mutex'): CheckResult => checkHistory(toParsed(events), { model });
const types = (r: CheckResult) => r.anomalies.map((a) => a.type);

/** Process 2 acquires (invoke 10 ms, ok 79 ms, 800 ms lease) and its release fails; process 1 acquires, ok at `at` ms. */
const partitioned = (at: number, extra: HistoryEvent[] = []) => [
  ev('invoke', 'acquire', 2, 10), ev('ok', 'acquire', 2, 79, lease),
  ev('invoke', 'release', 2, 150), ev('fail', 'release', 2, 350),
  ev('invoke', 'acquire', 1, 12), ...extra, ev('ok', 'acquire', 1, at, lease),
];

for (const model of ['mutex', 'fenced-mutex', 'reentrant-mutex']) {
  const tokens = (events: HistoryEvent[]) => model !== 'fenced-mutex' ? events
    : events.map((e, i) => (e.type === 'ok' && e.f === 'acquire' ? { ...e, value: { token: i } } : e));
  test(`${model}: after a failed release, another acquire is legal once the lease ran out (from the acquire's invoke), not before`, () => {
    assert.equal(check(tokens(partitioned(810)), model).valid, true);
    const r = check(tokens(partitioned(809)), model);
    assert.deepEqual(types(r), ['nonlinearizable']);
    assert.deepEqual(r.anomalies[0]!.processes, [2, 1]);
    assert.equal(r.anomalies[0]!.message, `process 1 acquired lock "k" at line 6 while process 2's lock was still held at the server: its release at line 3 failed and its 800 ms lease (from line 1) had not run out; it could run out at 810 ms, this acquire returned at 809 ms`);
  });
}

test('the holder\'s own release after its lease ran out is fine until someone else acquires; after that it is stale', () => {
  const late = [ev('invoke', 'acquire', 0, 0), ev('ok', 'acquire', 0, 1, lease), ev('invoke', 'release', 0, 100), ev('fail', 'release', 0, 101),
    ev('invoke', 'release', 0, 2000), ev('ok', 'release', 0, 2001)];
  assert.equal(check(late).valid, true);
  const taken = [...late.slice(0, 4), ev('invoke', 'acquire', 1, 900), ev('ok', 'acquire', 1, 901, lease), ev('invoke', 'release', 1, 950), ev('ok', 'release', 1, 951), ...late.slice(4)];
  const r = check(taken);
  assert.deepEqual(types(r), ['stale-release']);
  assert.deepEqual(r.anomalies[0]!.processes, [0, 1]);
  assert.match(r.anomalies[0]!.message, /process 0's hold from line 2 had ended: its 800 ms lease \(from line 1\) had run out and process 1 acquired it at line 6$/);
  // An answer of "not yours" is the truth then: no anomaly.
  const lost = taken.slice(0, -1).concat(ev('ok', 'release', 0, 2001, { value: { lost: true } }));
  assert.equal(check(lost).valid, true);
});

test('a renew extends the lease from its invoke; a history without times cannot time a lease', () => {
  const renewed = (at: number) => [ev('invoke', 'acquire', 0, 0), ev('ok', 'acquire', 0, 1, lease), ev('invoke', 'renew', 0, 600), ev('ok', 'renew', 0, 601),
    ev('invoke', 'release', 0, 700), ev('fail', 'release', 0, 701), ev('invoke', 'acquire', 1, 702), ev('ok', 'acquire', 1, at, lease)];
  assert.equal(check(renewed(1400)).valid, true);
  const r = check(renewed(1000));
  assert.deepEqual(types(r), ['nonlinearizable']);
  assert.match(r.anomalies[0]!.message, /its 800 ms lease \(renewed at line 3\) had not run out; it could run out at 1400 ms/);
  const untimed = partitioned(2000).map(({ time: _, ...e }) => e as HistoryEvent);
  assert.match(check(untimed).anomalies[0]!.message, /its lease cannot be timed \(no "time" on its acquire line\)$/);
});

test('a client that still believes is a double holder whatever its lease: leases only free the server\'s side', () => {
  const paused = [ev('invoke', 'acquire', 2, 10), ev('ok', 'acquire', 2, 79, lease), ev('invoke', 'acquire', 1, 12), ev('ok', 'acquire', 1, 975, lease),
    ev('invoke', 'release', 2, 1210), ev('ok', 'release', 2, 1212, { value: { lost: true } })];
  assert.deepEqual(types(check(paused)), ['double-holder']);
  // And an acquire that is unanswered (info) never takes the lock from anyone.
  assert.equal(check([...partitioned(500).slice(0, 5)]).valid, true);
});
