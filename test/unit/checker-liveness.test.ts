// The liveness checker on hand-made histories (no servers): a holder that dies
// with a lock nothing expires, while others keep failing, is a liveness
// violation in words; a lock that comes back within the bound, quiet periods
// and plain contention are not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HistoryBuilder, type HistoryEvent } from '../../src/history/index.ts';
import { checkLiveness, defaultLivenessBoundMs } from '../../checkers/liveness.ts';

const ms = (n: number) => n * 1e6;

/** Events with times in ms; returns the parsed history plus the lines of the death lapses and the client map. */
function history(events: (Omit<HistoryEvent, 'time'> & { t: number; client?: string; error?: string })[]) {
  const b = new HistoryBuilder('test');
  const deathLines = new Set<number>();
  const clients = new Map<number, string>();
  events.forEach(({ t, ...e }, i) => {
    b.add({ ...e, time: ms(t) } as HistoryEvent, i + 1);
    if (e.error === 'the client process died') deathLines.add(i + 1);
    if (e.client && typeof e.process === 'number') clients.set(e.process, e.client);
  });
  return { h: b.finish(), deathLines, clients };
}

type Ev = Parameters<typeof history>[0][number];

/** One operation of `process` on `key`: its invoke at `t0` ms and its completion (`type`, at `t1`, with `done`'s fields). */
function op(process: number, f: 'acquire' | 'release', key: string, t0: number, type: 'ok' | 'fail' | 'info', t1: number, done: Partial<Ev> = {}): Ev[] {
  return [{ type: 'invoke', f, process, key, t: t0 }, { type, f, process, key, t: t1, ...done }];
}

/** The operation's invoke names the client that made it. */
const by = (client: string, [invoke, done]: Ev[]): Ev[] => [{ ...invoke!, client }, done!];

/** p0 (c1) acquires k0 at 0 and dies at 100 ms; p1 (c2) tries `tries` times, each failing `each` ms after the last. */
function deadHolder(tries: number, each: number, then?: 'acquires') {
  const ev = [
    ...by('c1', op(0, 'acquire', 'k0', 0, 'ok', 5)),
    ...by('c1', op(0, 'release', 'k0', 100, 'ok', 100, { value: { lapse: true }, error: 'the client process died' })),
  ];
  let t = 100;
  for (let i = 0; i < tries; i++, t += each) ev.push(...by('c2', op(1, 'acquire', 'k0', t + 1, 'fail', t + each)));
  if (then) ev.push(...by('c3', op(2, 'acquire', 'k0', t + 1, 'ok', t + 2)));
  return history(ev);
}

test('a holder that died with an unexpiring lock while another client kept failing: liveness violation in words', () => {
  const { h, deathLines, clients } = deadHolder(5, 1000);
  const r = checkLiveness(h, { boundMs: 2000, deathLines, clients, leased: false });
  assert.equal(r.violations.length, 1);
  const v = r.violations[0]!;
  assert.equal(v.type, 'liveness');
  assert.equal(v.key, 'k0');
  assert.deepEqual(v.processes, [0, 1]);
  assert.equal(v.lines[0], 4, 'starts at the death lapse line');
  assert.equal(v.lines.at(-1), 14, 'ends at the last failed acquire');
  assert.equal(r.longest_unavailable_ms, 5000);
  assert.match(v.message, /^k0 was unavailable for 5\.0 s \(bound 2000 ms\) after process 0 \(client c1\) died while holding it at line 4: 5 acquire\(s\) by 1 client\(s\) failed meanwhile/);
  assert.match(v.message, /nobody acquired it again/);
  assert.match(v.message, /nothing on the server expires/);
});

test('the same within the bound is no violation, but the longest unavailability is still measured', () => {
  const { h, deathLines } = deadHolder(2, 700);
  const r = checkLiveness(h, { boundMs: 2000, deathLines });
  assert.deepEqual(r.violations, []);
  assert.equal(r.longest_unavailable_ms, 1400);
});

test('a lock that is acquired again after a long outage names who got it', () => {
  const { h, deathLines, clients } = deadHolder(4, 1000, 'acquires');
  const r = checkLiveness(h, { boundMs: 1500, deathLines, clients, leased: true });
  assert.equal(r.violations.length, 1);
  assert.match(r.violations[0]!.message, /process 2 \(client c3\) acquired it again at line 14/);
  assert.match(r.violations[0]!.message, /its lease should have freed it/);
});

test('nobody trying is no violation: a quiet lock after a death is not unavailable to anyone', () => {
  const { h, deathLines } = deadHolder(0, 0);
  assert.deepEqual(checkLiveness(h, { boundMs: 10, deathLines }).violations, []);
});

test('plain contention (failures while another client holds) is no violation, however long', () => {
  const ev = [
    ...op(0, 'acquire', 'k0', 0, 'ok', 5),
    ...[0, 1, 2, 3, 4].flatMap((i) => op(1, 'acquire', 'k0', 10 + i * 1000, 'fail', 1000 + i * 1000)),
    ...op(0, 'release', 'k0', 6000, 'ok', 6001), ...op(1, 'acquire', 'k0', 6002, 'ok', 6003),
  ];
  const r = checkLiveness(history(ev).h, { boundMs: 100 });
  assert.deepEqual(r.violations, []);
  assert.equal(r.longest_unavailable_ms, 0);
});

test('a release that leaves the lock stuck (release fail) and failures after it: said as a failed release', () => {
  const ev = [...op(0, 'acquire', 'k', 0, 'ok', 1), ...op(0, 'release', 'k', 10, 'fail', 20), ...op(1, 'acquire', 'k', 30, 'info', 3000)];
  const r = checkLiveness(history(ev).h, { boundMs: 1000 });
  assert.equal(r.violations.length, 1);
  assert.match(r.violations[0]!.message, /after process 0 left its critical section but failed to release it at line 3/);
  assert.match(r.violations[0]!.message, /failed or timed out \(1\)/);
});

test('keys are independent: a stuck k1 does not hide behind a healthy k0', () => {
  const ev = [
    ...op(0, 'acquire', 'k1', 0, 'ok', 1), ...op(0, 'release', 'k1', 2, 'ok', 2, { value: { lapse: true } }),
    ...op(1, 'acquire', 'k0', 3, 'ok', 4), ...op(2, 'acquire', 'k1', 5, 'fail', 4000),
  ];
  const r = checkLiveness(history(ev).h, { boundMs: 1000 });
  assert.deepEqual(r.violations.map((v) => v.key), ['k1']);
  assert.match(r.violations[0]!.message, /stopped believing it held it \(lapse\)/);
});

test('the default bound is twice the lease, plus the session timeout of a session lock and the servers\' lease lag', () => {
  assert.equal(defaultLivenessBoundMs(800), 1600);
  assert.equal(defaultLivenessBoundMs(800, { sessionMs: 4000 }), 5600);
  assert.equal(defaultLivenessBoundMs(1000, { leaseLagMs: 2000 }), 4000);
});

test('re-entry: the inner release leaves the lock held, so failures until the outer release are contention', () => {
  const ev = [
    ...op(0, 'acquire', 'k', 0, 'ok', 1), ...op(0, 'acquire', 'k', 2, 'ok', 3), ...op(0, 'release', 'k', 4, 'ok', 5),
    ...op(1, 'acquire', 'k', 6, 'fail', 5000), ...op(0, 'release', 'k', 5001, 'ok', 5002),
  ];
  const r = checkLiveness(history(ev).h, { boundMs: 100 });
  assert.deepEqual(r.violations, []);
});
