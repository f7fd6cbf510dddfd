// Schedules that hold their order (pure logic): a failing run's order pinned into its plan, the
// book that holds a waiter until its event, and a stored plan's order anchors checked as input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pinOrder } from '../../src/runner/pin-order.ts';
import { OrderBook } from '../../src/runner/order-book.ts';
import { describePlan, validatePlan, type RunPlan } from '../../src/workload/plan.ts';
import { UsageError } from '../../src/errors.ts';

const attempt = (delayMs: number) => ({ key: 'k0', delayMs, waitMs: 800, holdMs: 100, renew: false });

// A stale DEL as lockpick recorded it: c1 paused at the start of its release past its lease, c2
// takes the lock, c1's DEL lands, c3 takes it while c2 still holds it.
const plan: RunPlan = {
  ttlMs: 800,
  clients: [{ attempts: [attempt(36)] }, { attempts: [attempt(630)] }, { attempts: [attempt(996)] }],
  faults: [{ kind: 'client-pause', at_ms: 0, duration_ms: 822, target: 'c1', params: { point: 'before-release' } }],
};
const N = 'nemesis' as const;
const events = [
  { type: 'info', f: 'run-start', process: N, value: { run: 2 } },
  { type: 'invoke', f: 'acquire', process: 2, key: 'k0', client: 'c1' },
  { type: 'ok', f: 'acquire', process: 2, key: 'k0' },
  { type: 'invoke', f: 'release', process: 2, key: 'k0', client: 'c1' },
  { type: 'info', f: 'client-pause-start', process: N, value: { client: 'c1', point: 'before-release', duration_ms: 822 } },
  { type: 'invoke', f: 'acquire', process: 3, key: 'k0', client: 'c2' },
  { type: 'ok', f: 'acquire', process: 3, key: 'k0' },
  { type: 'info', f: 'client-pause-stop', process: N, value: { client: 'c1', point: 'before-release' } },
  { type: 'ok', f: 'release', process: 2, key: 'k0' },
  { type: 'invoke', f: 'acquire', process: 4, key: 'k0', client: 'c3' },
  { type: 'ok', f: 'acquire', process: 4, key: 'k0' },
  { type: 'invoke', f: 'release', process: 3, key: 'k0', client: 'c2' },
  { type: 'ok', f: 'release', process: 3, key: 'k0' },
  { type: 'invoke', f: 'release', process: 4, key: 'k0', client: 'c3' },
  { type: 'ok', f: 'release', process: 4, key: 'k0' },
];

test('a failing run pinned: each acquire waits for the event that came last before it, the times stay', () => {
  const pinned = pinOrder(plan, events)!;
  assert.ok(pinned, 'there is an order to pin');
  // c1 starts the run: nothing before it. c2 came while c1 was paused: after the pause began.
  assert.equal(pinned.clients[0]!.attempts[0]!.after, undefined);
  assert.deepEqual(pinned.clients[1]!.attempts[0]!.after, { fault: 0 });
  // c3 came after c1's stale DEL returned: that is what makes c2's lock c3's.
  assert.deepEqual(pinned.clients[2]!.attempts[0]!.after, { client: 'c1', op: 'release', type: 'ok', nth: 1 });
  assert.equal(pinned.clients[2]!.attempts[0]!.delayMs, 996, 'times are kept: the order is added, not substituted');
  // The pause is anchored at c1's own point, and no other client acted before it: no order to add.
  assert.equal(pinned.faults[0]!.after, undefined);
  // The plan is valid input as stored, and says its order in words.
  validatePlan(JSON.parse(JSON.stringify(pinned)), 'test.json');
  assert.match(describePlan(pinned), /client c2: wait 630 ms, once fault #1 \(client-pause\) began, lock 'k0'/);
  assert.match(describePlan(pinned), /client c3: wait 996 ms, once c1's 1st release returned ok, lock/);
});

test('a timed fault is ordered after the client event that came last before it; a run with nothing to order pins nothing', () => {
  const p: RunPlan = { ...plan, faults: [{ kind: 'client-pause', at_ms: 500, duration_ms: 900, target: 'c2' }] };
  const ev = [
    { type: 'invoke', f: 'acquire', process: 0, key: 'k0', client: 'c1' },
    { type: 'ok', f: 'acquire', process: 0, key: 'k0' },
    { type: 'info', f: 'client-pause-start', process: N, value: { client: 'c2' } },
  ];
  const pinned = pinOrder(p, ev)!;
  assert.deepEqual(pinned.faults[0]!.after, { client: 'c1', op: 'acquire', type: 'ok', nth: 1 });
  assert.equal(pinOrder({ ...p, clients: [{ attempts: [attempt(0)] }], faults: [] }, ev.slice(0, 2)), null);
});

test('with times, each anchor keeps the gap the run had after its event (a point-anchored fault keeps the order alone)', () => {
  const ms = (x: number) => x * 1e6;
  const ev = [
    { type: 'invoke', f: 'acquire', process: 0, key: 'k0', client: 'c1', time: ms(100) },
    { type: 'ok', f: 'acquire', process: 0, key: 'k0', time: ms(103) },
    { type: 'info', f: 'client-pause-start', process: N, value: { client: 'c2' }, time: ms(353.7) },
    { type: 'invoke', f: 'acquire', process: 1, key: 'k0', client: 'c3', time: ms(600) },
  ];
  const p: RunPlan = {
    ttlMs: 800,
    clients: [{ attempts: [attempt(100)] }, { attempts: [] }, { attempts: [attempt(600)] }],
    faults: [{ kind: 'client-pause', at_ms: 300, duration_ms: 900, target: 'c2' }],
  };
  const pinned = pinOrder(p, ev)!;
  assert.deepEqual(pinned.faults[0]!.after, { client: 'c1', op: 'acquire', type: 'ok', nth: 1, gap_ms: 250 });
  assert.deepEqual(pinned.clients[2]!.attempts[0]!.after, { fault: 0, gap_ms: 246 });
  assert.match(describePlan(pinned), /client c3: wait 600 ms, 246 ms after fault #1 \(client-pause\) began, lock/);
  const anchoredAt = pinOrder({ ...p, faults: [{ ...p.faults[0]!, params: { point: 'in-critical-section' } }] }, ev)!;
  assert.deepEqual(anchoredAt.faults[0]!.after, { client: 'c1', op: 'acquire', type: 'ok', nth: 1 });
});

test('counts run per client across its processes, unknown outcomes are no event, re-entry is not a new attempt', () => {
  const p: RunPlan = { ttlMs: 800, clients: [{ attempts: [attempt(0), attempt(0)] }, { attempts: [attempt(0)] }], faults: [] };
  const ev = [
    { type: 'invoke', f: 'acquire', process: 0, key: 'k0', client: 'c1' },
    { type: 'ok', f: 'acquire', process: 0, key: 'k0' },
    { type: 'invoke', f: 'acquire', process: 0, key: 'k0', client: 'c1' },   // re-entry inside the hold
    { type: 'ok', f: 'acquire', process: 0, key: 'k0' },
    { type: 'invoke', f: 'release', process: 0, key: 'k0', client: 'c1' },
    { type: 'info', f: 'release', process: 0, key: 'k0' },
    { type: 'invoke', f: 'acquire', process: 5, key: 'k0', client: 'c2' },
    { type: 'ok', f: 'acquire', process: 5, key: 'k0' },
    { type: 'invoke', f: 'acquire', process: 1, key: 'k0', client: 'c1' },   // c1's second attempt, a new process
  ];
  const pinned = pinOrder(p, ev)!;
  assert.deepEqual(pinned.clients[1]!.attempts[0]!.after, { client: 'c1', op: 'release', type: 'invoke', nth: 1 });
  assert.deepEqual(pinned.clients[0]!.attempts[1]!.after, { client: 'c2', op: 'acquire', type: 'ok', nth: 1 });
});

test('the book holds a waiter until its event, and lets it go saying why when the event cannot come', async () => {
  const records: [string, unknown][] = [];
  const book = new OrderBook((f, v) => records.push([f, v]), (i) => ['partition'][i], ['c1', 'c2']);
  let went = false;
  const w = book.wait({ client: 'c1', op: 'acquire', type: 'ok', nth: 2 }, "c2's 1st attempt", 'c2').then(() => { went = true; });
  book.note('c1', 'acquire', 'ok');
  await Promise.resolve();
  assert.equal(went, false, 'the 1st ok is not the 2nd');
  book.note('c1', 'acquire', 'ok');
  await w;
  assert.equal(went, true);
  assert.equal(records.length, 0);
  // c1 finishes without a 3rd: the waiter goes on, and the record names the anchor and why.
  const w2 = book.wait({ client: 'c1', op: 'acquire', type: 'ok', nth: 3 }, "c2's 2nd attempt", 'c2');
  book.finished('c1');
  await w2;
  assert.deepEqual(records[0], ['order-missed', { waiter: "c2's 2nd attempt", waited_for: "c1's 3rd acquire returned ok", reason: 'c1 finished its steps without it' }]);
  assert.match(book.missed[0]!, /c2's 2nd attempt waited for c1's 3rd acquire returned ok, which never came/);
  // Asked after c1 is done: let go at once, for that reason (not taken for a deadlock).
  await book.wait({ client: 'c1', op: 'release', type: 'ok', nth: 1 }, "c2's 3rd attempt", 'c2');
  assert.equal((records[1]![1] as { reason: string }).reason, 'c1 finished its steps without it');
});

test('clients that all wait for each other are let go at once, never a hang', async () => {
  const records: [string, unknown][] = [];
  const book = new OrderBook((f, v) => records.push([f, v]), () => undefined, ['c1', 'c2']);
  const a = book.wait({ client: 'c2', op: 'release', type: 'ok', nth: 1 }, "c1's 1st attempt", 'c1');
  const b = book.wait({ client: 'c1', op: 'release', type: 'ok', nth: 1 }, "c2's 1st attempt", 'c2');
  await Promise.all([a, b]);
  assert.equal(records.length, 2);
  assert.ok(records.every(([f, v]) => f === 'order-missed' && (v as { reason: string }).reason === 'every client was waiting for another'));
  // A fault that may yet begin (waiting for its time) keeps them waiting: it is the event one of them needs.
  let pending = 1;
  const book2 = new OrderBook(() => {}, () => 'client-pause', ['c1'], () => pending);
  let went = false;
  const c = book2.wait({ fault: 0 }, "c1's 1st attempt", 'c1').then(() => { went = true; });
  await Promise.resolve();
  assert.equal(went, false);
  pending = 0;
  book2.noteFault(0);
  await c;
  assert.equal(went, true);
  book2.end();
});

test('a stored plan\'s order anchors are checked as input: exit 2 naming the field', () => {
  const bad = (after: unknown, where: 'attempt' | 'fault' = 'attempt') => {
    const p = JSON.parse(JSON.stringify(plan)) as Record<string, any>;
    if (where === 'attempt') p.clients[1].attempts[0].after = after; else p.faults[0].after = after;
    return () => validatePlan(p, 'test.json');
  };
  assert.throws(bad({ client: 'c9', op: 'acquire', type: 'ok', nth: 1 }), (e: Error) => e instanceof UsageError && /plan\.clients\[1\]\.attempts\[0\]\.after: client must be a client of the plan \(c1\.\.c3\)/.test(e.message));
  assert.throws(bad({ client: 'c1', op: 'grab', type: 'ok', nth: 1 }), /after: op must be one of acquire, release, renew/);
  assert.throws(bad({ client: 'c1', op: 'acquire', type: 'ok', nth: 0 }), /after: nth must be a whole number from 1/);
  assert.throws(bad({ client: 'c1', op: 'acquire', type: 'ok', nth: 1e300 }), /after: nth must be a whole number from 1 to 100000/);
  assert.throws(bad({ fault: 3 }), /after: fault must name one of the plan's 1 fault\(s\)/);
  assert.throws(bad({ client: 'c2', op: 'acquire', type: 'ok', nth: 1 }), /names the attempt's own client c2/);
  assert.throws(bad({ client: 'c1', op: 'acquire', type: 'ok', nth: 1, extra: 1 }), /not 'extra'/);
  assert.throws(bad({ client: 'c1', op: 'acquire', type: 'ok', nth: 1, gap_ms: 1e12 }), /gap_ms must be a number of milliseconds from 0 to 3600000/);
  assert.throws(bad({ fault: 0, gap_ms: -1 }), /gap_ms must be/);
  assert.throws(bad({ fault: 0 }, 'fault'), /plan\.faults\[0\]: after: a fault waits for a client event, not for another fault/);
  assert.throws(bad({ client: 'c7', op: 'acquire', type: 'ok', nth: 1 }, 'fault'), /plan\.faults\[0\]\.after: client must be a client of the plan/);
  validatePlan(JSON.parse(JSON.stringify({ ...plan, faults: [{ ...plan.faults[0], after: { client: 'c2', op: 'acquire', type: 'ok', nth: 1 } }] })), 'test.json');
});
