// Exposure (docs/checking.md): a client that still acted as the holder (a release or renew
// invoke) after its lease could have run out broke the lock property, whether or not anyone took
// the lock meanwhile. Judged the same by checkHistory and by the streaming check of the file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkHistory } from '../../checkers/index.ts';
import { checkJsonlStreaming } from '../../checkers/stream.ts';
import type { CheckResult } from '../../checkers/types.ts';
import type { HistoryEvent } from '../../src/history/types.ts';
import { toJsonl, toParsed } from '../support/history.ts';
import { tmpHistory } from './history-tmp.ts';

const ms = 1e6;
/** An event at `time` ms; acquire oks carry an 800 ms lease unless told otherwise. */
const ev = (type: HistoryEvent['type'], f: string, process: number, time: number, extra: Record<string, unknown> = {}): HistoryEvent => ({
  type, f, process, key: 'k', time: time * ms,
  ...(type === 'ok' && f === 'acquire' ? { lease_ms: 800 } : {}),
  ...extra,
});

async function both(events: HistoryEvent[], model = 'mutex'): Promise<CheckResult> {
  const whole = checkHistory(toParsed(events), { model });
  const streamed = await checkJsonlStreaming(tmpHistory(toJsonl(events)), { model });
  // The same verdict and words either way (lines differ by nothing: both count from line 1).
  assert.deepEqual(streamed.anomalies, whole.anomalies);
  assert.equal(streamed.valid, whole.valid);
  return whole;
}
const types = (r: CheckResult) => r.anomalies.map((a) => a.type);

const held = (releaseAt: number, value?: unknown) => [
  ev('invoke', 'acquire', 0, 0), ev('ok', 'acquire', 0, 10),
  ev('invoke', 'release', 0, releaseAt), ev('ok', 'release', 0, releaseAt + 1, value === undefined ? {} : { value }),
];

test('a release invoked past the lease, with nobody else asking, is an exposure with its lines and times', async () => {
  const r = await both(held(1300, { lost: true }));
  assert.equal(r.valid, false);
  assert.deepEqual(types(r), ['exposure']);
  const [a] = r.anomalies;
  assert.deepEqual(a!.processes, [0]);
  assert.deepEqual(a!.lines, [2, 3]);
  assert.deepEqual(a!.times, [10 * ms, 810 * ms, 1300 * ms]);
  assert.match(a!.message, /process 0 still believed it held lock "k" when it invoked its release at line 3, 490 ms past its 800 ms lease \(its acquire returned ok at line 2\)/);
  assert.match(a!.message, /came back lost/);
});

test('a release inside the lease, counted from the grant\'s return, is no exposure', async () => {
  const r = await both(held(805));
  assert.equal(r.valid, true);
  assert.deepEqual(r.anomalies, []);
});

test('a renew ok extends the lease from its return; a renew invoked after the lease ran out is itself the exposure', async () => {
  const renewed = [
    ev('invoke', 'acquire', 0, 0), ev('ok', 'acquire', 0, 10),
    ev('invoke', 'renew', 0, 600), ev('ok', 'renew', 0, 610),
    ev('invoke', 'release', 0, 1300), ev('ok', 'release', 0, 1301),
  ];
  assert.equal((await both(renewed)).valid, true);
  const late = [
    ev('invoke', 'acquire', 0, 0), ev('ok', 'acquire', 0, 10),
    ev('invoke', 'renew', 0, 900), ev('fail', 'renew', 0, 901, { value: { lost: true } }),
    ev('invoke', 'release', 0, 2000), ev('ok', 'release', 0, 2001, { value: { lapse: true } }),
  ];
  const r = await both(late);
  assert.deepEqual(types(r), ['exposure']);
  assert.match(r.anomalies[0]!.message, /when it invoked its renew at line 3, 90 ms past/);
});

test('no exposure without a lease to outlive: no lease_ms, a lease kept alive out of sight, a validity that ended the belief, a lapse', async () => {
  const noLease = held(5000).map(({ lease_ms: _, ...e }) => e as HistoryEvent);
  assert.equal((await both(noLease)).valid, true);
  const kept = held(5000).map((e) => (e.type === 'ok' && e.f === 'acquire' ? { ...e, value: { kept_alive: true } } : e));
  assert.equal((await both(kept)).valid, true);
  // A careful client told 500 ms of validity stops believing then, even though its release is late.
  const careful = held(5000).map((e) => (e.type === 'ok' && e.f === 'acquire' ? { ...e, valid_ms: 500 } : e));
  assert.equal((await both(careful)).valid, true);
  // A lapse is the client giving up on its own clock, not acting as the holder.
  assert.equal((await both(held(5000, { lapse: true }))).valid, true);
});

test('a belief already shown taken (a double holder) is not said twice as an exposure', async () => {
  const taken = [
    ev('invoke', 'acquire', 0, 0), ev('ok', 'acquire', 0, 10),
    ev('invoke', 'acquire', 1, 20), ev('ok', 'acquire', 1, 900),
    ev('invoke', 'release', 0, 1000), ev('ok', 'release', 0, 1001, { value: { lost: true } }),
    ev('invoke', 'release', 1, 1100), ev('ok', 'release', 1, 1101),
  ];
  const r = await both(taken);
  assert.deepEqual(types(r), ['double-holder']);
});

test('every lock model says it: fenced and reentrant sweeps, and a model decided by search', async () => {
  const tokened = held(1300).map((e) => (e.type === 'ok' && e.f === 'acquire' ? { ...e, value: { token: 1 } } : e));
  // (its plain ok unlock after the lease is not named a stale unlock: it took nobody's lock)
  assert.deepEqual(types(await both(tokened, 'fenced-mutex')), ['exposure']);
  assert.deepEqual(types(await both(held(1300), 'reentrant-mutex')), ['exposure']);
  const searched = checkHistory(toParsed(held(1300)), { model: 'knossos-mutex' });
  assert.ok(types(searched).includes('exposure'), JSON.stringify(types(searched)));
});

/** A nemesis record at `time` ms. */
const nem = (f: string, time: number, value: Record<string, unknown>): HistoryEvent => ({ type: 'info', f, process: 'nemesis', time: time * ms, value });
/** Process 0 holds from 10 ms (its acquire ok carrying `value`) and releases at 2000 ms; its client silenced from `from` to `to` ms. */
const silentHold = (value: Record<string, unknown>, from: number, to: number, lease = true) => [
  ev('invoke', 'acquire', 0, 0), { ...ev('ok', 'acquire', 0, 10), value, ...(lease ? {} : { lease_ms: undefined }) } as HistoryEvent,
  nem('client-pause-start', from, { id: 'f1', clients: ['c1'], silenced: ['c1'], silenced_processes: [0] }),
  nem('client-pause-stop', to, { id: 'f1', clients: ['c1'] }),
  ev('invoke', 'release', 0, 2000), ev('ok', 'release', 0, 2001),
].map((e) => JSON.parse(JSON.stringify(e)) as HistoryEvent); // drops the undefined lease_ms

test('a session lock: silent longer than its session, then still acting as the holder, is an exposure; a shorter silence is not', async () => {
  const r = await both(silentHold({ session_ms: 500 }, 100, 800, false));
  assert.deepEqual(types(r), ['exposure']);
  assert.match(r.anomalies[0]!.message, /process 0 held lock "k" since line 2 and was kept from the servers for 700 ms, longer than its 500 ms session, yet it still believed it held the lock when it invoked its release at line 5/);
  assert.deepEqual(r.anomalies[0]!.times, [10 * ms, 100 * ms, 800 * ms, 2000 * ms]);
  assert.equal((await both(silentHold({ session_ms: 500 }, 100, 500, false))).valid, true);
  // A silence before the hold began counts only from the grant: 100..520 ms is 510 ms inside it.
  assert.equal((await both(silentHold({ session_ms: 500 }, 0, 520, false))).valid, true);
});

test('a lease kept alive out of sight: a silence longer than the lease ends it; without silences it is never judged by its length', async () => {
  const r = await both(silentHold({ kept_alive: true }, 100, 1000));
  assert.deepEqual(types(r), ['exposure']);
  assert.match(r.anomalies[0]!.message, /kept from the servers for 900 ms, longer than its 800 ms lease, which its lock keeps alive only while it is heard/);
  assert.equal((await both(silentHold({ kept_alive: true }, 100, 700))).valid, true);
  // A silence record that names no processes (a partition of servers alone) silences nobody.
  const servers = silentHold({ kept_alive: true }, 100, 1500).map((e) => (e.process === 'nemesis' && e.f.endsWith('-start') ? { ...e, value: { id: 'f1', target: 'n1' } } : e));
  assert.equal((await both(servers)).valid, true);
});
