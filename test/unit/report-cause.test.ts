// The cause of an anomaly in the user's terms (src/report/cause.ts): clients, not process ids, and
// the fault that made it possible, read from the history alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkHistory } from '../../checkers/index.ts';
import { explainRun } from '../../src/report/cause.ts';
import { formatResult } from '../../src/report/text.ts';
import type { HistoryEvent } from '../../src/history/types.ts';
import { toParsed } from '../support/history.ts';

const ms = 1e6;
const op = (type: HistoryEvent['type'], f: string, process: number, t: number, extra: Partial<HistoryEvent> = {}): HistoryEvent =>
  ({ type, f, process, key: 'k', time: t * ms, ...extra });
const nem = (f: string, t: number, value: unknown): HistoryEvent => ({ type: 'info', f, process: 'nemesis', value, time: t * ms });

// c1 holds (lease 800 ms), is paused just before its DEL goes out; its lease runs out, c2 takes the
// lock, c1's late DEL deletes c2's key, and c3, waiting all along, takes the lock while c2 holds.
const events: HistoryEvent[] = [
  nem('run-start', 0, { run: 1, backend: 'redis' }),
  op('invoke', 'acquire', 0, 10, { client: 'c1' }), op('ok', 'acquire', 0, 12, { lease_ms: 800 }),
  op('invoke', 'release', 0, 100, { client: 'c1' }),
  nem('client-pause-start', 101, { client: 'c1', point: 'send:release:1', duration_ms: 1200 }),
  op('invoke', 'acquire', 1, 300, { client: 'c2' }), op('invoke', 'acquire', 2, 310, { client: 'c3' }),
  op('ok', 'acquire', 1, 830, { lease_ms: 800 }),
  nem('client-pause-stop', 1301, { client: 'c1', point: 'send:release:1' }),
  op('ok', 'release', 0, 1303),
  op('ok', 'acquire', 2, 1350, { lease_ms: 800 }),
  op('invoke', 'release', 1, 1400, { client: 'c2' }), op('ok', 'release', 1, 1402, { value: { lost: true } }),
  op('invoke', 'release', 2, 1500, { client: 'c3' }), op('ok', 'release', 2, 1502),
];

test("a double holder between clients no fault touched is traced to the paused client's late unlock", () => {
  const r = checkHistory(toParsed(events), { model: 'mutex' });
  assert.deepEqual(r.anomalies.map((a) => a.type).sort(), ['double-holder', 'stale-release']);
  const { clients, causes } = explainRun(events, r.anomalies);
  const byType = Object.fromEntries(r.anomalies.map((a, i) => [a.type, causes[i]]));
  assert.match(byType['stale-release']!, /^c1 \(process 0\) was paused for 1200 ms from 0\.101 s, just before the 1st command of its release went out, during its release \(invoked at line 4\); that release completed at line 10, after it$/);
  assert.match(byType['double-holder']!, /^the stale release at line 4 by c1 \(process 0\) freed the lock it no longer held, which let the second holder in; c1 \(process 0\) was paused/);
  const text = formatResult('h.jsonl', r, { clients, causes });
  // Clients first, process ids as detail; no anomaly left without its cause.
  assert.match(text, /double-holder on key "k": c3's acquire at line 7 returned ok at line 11, but c2 held/);
  assert.match(text, /clients: c2 \(process 1\), c3 \(process 2\)/);
  assert.equal(text.match(/cause: /g)?.length, 2);
  assert.doesNotMatch(text, /process \d+'s/);
});

test('a server fault inside a hold is named with the holder; no fault, no cause', () => {
  const kill: HistoryEvent[] = [
    nem('run-start', 0, { run: 1, backend: 'redis' }),
    op('invoke', 'acquire', 0, 10, { client: 'c1' }), op('ok', 'acquire', 0, 12, { lease_ms: 800 }),
    nem('kill-start', 50, { id: 'f1', target: ['n1', 'n2', 'n3'], nodes: ['n1', 'n2', 'n3'] }),
    op('invoke', 'acquire', 1, 60, { client: 'c2' }),
    nem('kill-stop', 150, { id: 'f1', nodes: ['n1', 'n2', 'n3'], down_ms: 100 }),
    op('ok', 'acquire', 1, 200, { lease_ms: 800 }),
    op('invoke', 'release', 0, 400, { client: 'c1' }), op('ok', 'release', 0, 402),
    op('invoke', 'release', 1, 500, { client: 'c2' }), op('ok', 'release', 1, 502),
  ];
  const r = checkHistory(toParsed(kill), { model: 'mutex' });
  const { causes } = explainRun(kill, r.anomalies);
  assert.equal(r.anomalies[0]!.type, 'double-holder');
  assert.equal(causes[0], 'kill of n1, n2, n3 for 100 ms from 0.050 s, while c1 (process 0) held the lock (acquire ok at line 3)');
  const quiet = kill.filter((e) => e.process !== 'nemesis' || e.f === 'run-start');
  assert.ok(explainRun(quiet, r.anomalies).causes.every((c) => c === undefined));
});

test('a pause held at a send names the command its bytes held (the late DEL)', () => {
  const withCommand = events.map((e) => (e.f === 'client-pause-start' ? { ...e, value: { ...(e.value as object), command: 'DEL' } } : e));
  const r = checkHistory(toParsed(withCommand), { model: 'mutex' });
  const { causes } = explainRun(withCommand, r.anomalies);
  const stale = causes[r.anomalies.findIndex((a) => a.type === 'stale-release')]!;
  assert.match(stale, /^c1 \(process 0\) was paused for 1200 ms from 0\.101 s, just before its DEL \(the 1st command of its release\) went out/);
});

test('a fault that recorded its steps is named from its first step (a failover: the replication cut before c1 acquired), its steps in order', () => {
  const f1 = { id: 'f1', params: { how: 'kill', cut_replication: true } };
  const failover: HistoryEvent[] = [
    nem('run-start', 0, { run: 1, backend: 'redis' }),
    nem('failover-step', 700, { ...f1, step: 'replication of n1 cut' }),
    op('invoke', 'acquire', 0, 900, { client: 'c1' }), op('ok', 'acquire', 0, 910, { lease_ms: 8000 }),
    nem('failover-step', 2100, { ...f1, step: 'n1 killed' }),
    nem('failover-step', 4900, { ...f1, step: 'n2 promoted' }),
    nem('failover-start', 4900, { ...f1, old_primary: 'n1', new_primary: 'n2', promoted_after_ms: 4300 }),
    op('invoke', 'acquire', 1, 5000, { client: 'c2' }), op('ok', 'acquire', 1, 5010, { lease_ms: 8000 }),
    op('invoke', 'release', 1, 5100, { client: 'c2' }), op('ok', 'release', 1, 5102),
    op('invoke', 'release', 0, 5200, { client: 'c1' }), op('ok', 'release', 0, 5202, { value: { lost: true } }),
    nem('failover-stop', 6000, { ...f1, old_primary: 'n1', demoted: true }),
  ];
  const r = checkHistory(toParsed(failover), { model: 'mutex' });
  const { causes } = explainRun(failover, r.anomalies);
  assert.equal(r.anomalies[0]!.type, 'double-holder');
  assert.equal(causes[0], 'failover of n1, n2 for 5300 ms from 0.700 s (replication of n1 cut at 0.700 s; n1 killed at 2.100 s; n2 promoted at 4.900 s), while c1 (process 0) held the lock (acquire ok at line 4)');
});

test('a client paused while it held: its lease is dated from its last renewal, not its acquire', () => {
  const renewed: HistoryEvent[] = [
    nem('run-start', 0, { run: 1, backend: 'redis' }),
    op('invoke', 'acquire', 0, 10, { client: 'c1' }), op('ok', 'acquire', 0, 12, { lease_ms: 800 }),
    op('invoke', 'renew', 0, 300, { client: 'c1' }), op('ok', 'renew', 0, 302, { lease_ms: 800 }),
    nem('client-pause-start', 400, { client: 'c1', duration_ms: 1200 }),
    op('invoke', 'acquire', 1, 500, { client: 'c2' }), op('ok', 'acquire', 1, 1150, { lease_ms: 800 }),
    nem('client-pause-stop', 1600, { client: 'c1' }),
    op('invoke', 'release', 0, 1700, { client: 'c1' }), op('ok', 'release', 0, 1702),
    op('invoke', 'release', 1, 1800, { client: 'c2' }), op('ok', 'release', 1, 1802, { value: { lost: true } }),
  ];
  const r = checkHistory(toParsed(renewed), { model: 'mutex' });
  const i = r.anomalies.findIndex((a) => a.type === 'stale-release');
  assert.ok(i >= 0, JSON.stringify(r.anomalies));
  const { causes } = explainRun(renewed, r.anomalies);
  assert.match(causes[i]!, /while it held the lock \(acquire ok at line 3; its 800 ms lease, renewed at line 5, ran out at 1\.100 s\)/);
  // The model's words date it from the renewal too.
  assert.match(r.anomalies[i]!.message, /its 800 ms lease \(renewed at line 4\) had run out/);
});

test('an overstated validity is told with its figures and the pause inside the acquire that it left out', () => {
  const votes: HistoryEvent[] = [
    nem('run-start', 0, { run: 1, backend: 'redis' }),
    op('invoke', 'acquire', 0, 10, { client: 'c1' }),
    nem('client-pause-start', 12, { client: 'c1', point: 'reply:acquire:3', duration_ms: 300 }),
    nem('client-pause-stop', 312, { client: 'c1', point: 'reply:acquire:3' }),
    op('ok', 'acquire', 0, 315, { lease_ms: 1000, valid_ms: 988, sent_ms: 304 }),
    op('invoke', 'release', 0, 400, { client: 'c1' }), op('ok', 'release', 0, 402),
  ];
  const r = checkHistory(toParsed(votes), { model: 'mutex' });
  assert.deepEqual(r.anomalies.map((a) => a.type), ['overstated-validity']);
  const { clients, causes } = explainRun(votes, r.anomalies);
  assert.match(causes[0]!, /^c1 \(process 0\) was paused for 300 ms from 0\.012 s, just after the 3rd reply to its acquire came in, during its acquire/);
  const text = formatResult('h.jsonl', r, { clients, causes });
  assert.match(text, /overstated-validity on key "k": c1's acquire of lock "k" at line 2 returned ok at line 5 reporting 988 ms of validity, but its 1000 ms lease had at most 696 ms left/);
});

test('a server fault after the hold was released names no holder (a hold already given back is not "held")', () => {
  // c2 holds and releases; then its links are slowed; its next acquire reports more validity than it can have had.
  const slow: HistoryEvent[] = [
    nem('run-start', 0, { run: 1, backend: 'redis' }),
    op('invoke', 'acquire', 0, 10, { client: 'c2' }), op('ok', 'acquire', 0, 12, { lease_ms: 800, valid_ms: 790, sent_ms: 1 }),
    op('invoke', 'release', 0, 30, { client: 'c2' }), op('ok', 'release', 0, 32),
    nem('latency-start', 40, { id: 'f1', target: 'n1', params: { latency_ms: 150 }, links: ['client:c2->n1'], began: 38 * ms }),
    op('invoke', 'acquire', 0, 500, { client: 'c2' }), op('ok', 'acquire', 0, 840, { lease_ms: 800, valid_ms: 793, sent_ms: 339 }),
    op('invoke', 'release', 0, 900, { client: 'c2' }), op('ok', 'release', 0, 902),
    nem('latency-stop', 1300, { id: 'f1', began: 1299 * ms }),
  ];
  const r = checkHistory(toParsed(slow), { model: 'mutex' });
  assert.deepEqual(r.anomalies.map((a) => a.type), ['overstated-validity']);
  const { causes } = explainRun(slow, r.anomalies);
  assert.match(causes[0]!, /^latency of n1 for \d+ ms from 0\.0[34]\d s$/);
  // Held across the fault's start: named.
  const held = slow.filter((e) => !(e.process === 0 && e.f === 'release' && (e.time ?? 0) < 40 * ms));
  const r2 = checkHistory(toParsed(held), { model: 'mutex' });
  const c2 = explainRun(held, r2.anomalies.filter((a) => a.type === 'overstated-validity')).causes[0]!;
  assert.match(c2, /while c2 \(process 0\) held the lock \(acquire ok at line 3\)/);
});
