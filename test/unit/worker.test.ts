// The client worker beyond the contract: a client clock fault reaches every wall
// clock of the process (skewed-clock.ts), a client that gives up releasing records
// a lapse and goes on, and a crash outside any operation (or the lock's own process.exit())
// is told to the parent, with whose code it was (src/runner/crash-origin.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { installSkewedClock } from '../../src/runner/skewed-clock.ts';
import { attempt, runWorker } from '../support/worker-harness.ts';

const HOUR = 3_600_000;

test('skewed clock: Date.now, new Date(), Date() and performance.timeOrigin move; everything else about Date stays', () => {
  const before = new Date();
  const t0 = performance.now();
  const clock = installSkewedClock();
  try {
    clock.setOffsetMs(HOUR);
    const near = (ms: number, what: string) => assert.ok(Math.abs(ms - (before.getTime() + HOUR)) < 1000, `${what}: ${ms - before.getTime()} ms ahead`);
    near(Date.now(), 'Date.now()');
    near(new Date().getTime(), 'new Date()');
    near(Date.parse(Date()), 'Date()');
    near(performance.timeOrigin + performance.now(), 'performance.timeOrigin + now()');
    near(clock.wallMs(), 'wallMs');
    assert.equal(typeof Date(), 'string');
    // Monotonic clocks are not wall clocks: untouched.
    assert.ok(performance.now() - t0 < 1000);
    // Construction with arguments, statics and instanceof as before.
    assert.equal(new Date(0).toISOString(), '1970-01-01T00:00:00.000Z');
    assert.equal(new Date('2020-01-01T00:00:00Z').getTime(), 1577836800000);
    assert.equal(new Date(2020, 0, 31).getDate(), 31);
    assert.ok(Number.isNaN(new Date(undefined as unknown as number).getTime()));
    assert.equal(Date.parse('2020-01-01T00:00:00Z'), 1577836800000);
    assert.equal(Date.UTC(2020, 0, 1), 1577836800000);
    assert.ok(before instanceof Date, 'a Date made before the patch');
    assert.ok(statSync('/').mtime instanceof Date, 'a Date made by Node');
    assert.ok(new Date() instanceof Date);
    assert.ok(!({} instanceof Date));
    assert.equal(Object.prototype.toString.call(new Date()), '[object Date]');
    assert.equal(new Date().constructor, Date);
    assert.equal(JSON.stringify(new Date(0)), '"1970-01-01T00:00:00.000Z"');
    class Sub extends Date { twice() { return this.getTime() * 2; } }
    assert.equal(new Sub(2).twice(), 4);
    clock.setOffsetMs(-HOUR);
    assert.ok(Math.abs(Date.now() - (before.getTime() - HOUR)) < 1000, 'a negative offset');
  } finally {
    clock.uninstall();
  }
  assert.ok(Math.abs(Date.now() - before.getTime()) < 1000, 'uninstalled: true time again');
  assert.ok(Math.abs(performance.timeOrigin + performance.now() - before.getTime()) < 1000);
});

test("worker: a 'clock' message moves every wall clock the lock reads, and ctx.clock.wallMs only once", async () => {
  const offset = 10 * HOUR;
  const t0 = Date.now();
  const r = await runWorker({ mode: 'clocks', attempts: [attempt()], beforeStart: (send) => send({ t: 'clock', offsetMs: offset }) });
  const t1 = Date.now();
  const ok = r.ops.find((o) => o.f === 'acquire' && o.type === 'ok');
  assert.ok(ok, r.stderr);
  const readings = String((ok.value as { token: string }).token).split(' ').map(Number);
  assert.equal(readings.length, 5);
  const names = ['Date.now()', 'new Date()', 'Date()', 'performance.timeOrigin', 'ctx.clock.wallMs()'];
  // Read somewhere between t0 and t1 (a loaded machine may take seconds to start the worker), offset once;
  // 1 s of slack for Date()'s whole seconds and timeOrigin's rounding.
  readings.forEach((ms, i) => assert.ok(ms >= t0 + offset - 1000 && ms <= t1 + offset + 1000, `${names[i]} is ${ms - t0} ms ahead of the start, not ${offset} (+ at most ${t1 - t0} ms)`));
});

test('worker: after three certainly failed releases (a branded plain Error) the client records a lapse once the lease ran out, and goes on', async () => {
  const ttlMs = 600;
  const r = await runWorker({ mode: 'release-definite', ttlMs, attempts: [attempt(), attempt()] });
  const seq = r.ops.map((o) => `${o.f}:${o.type}`);
  const one = ['acquire:invoke', 'acquire:ok', 'release:invoke', 'release:fail', 'release:invoke', 'release:fail', 'release:invoke', 'release:fail', 'release:invoke', 'release:ok'];
  assert.deepEqual(seq, [...one, ...one], r.stderr);
  const completions = r.ops.filter((o) => o.type !== 'invoke');
  assert.ok(completions.filter((o) => o.type === 'fail').every((o) => o.error === 'memory: not sent'));
  assert.deepEqual(completions.filter((o) => o.f === 'release' && o.type === 'ok').map((o) => o.value), [{ lapse: true }, { lapse: true }]);
  // One logical process throughout: nothing was unknown.
  assert.ok(r.ops.every((o) => o.process === 0));
  assert.equal(r.exitCode, 0);
});

test('worker: the lapse waits for the lease (counted from the grant), not less', async () => {
  const ttlMs = 1500;
  const r = await runWorker({ mode: 'release-definite', ttlMs, attempts: [attempt()] });
  const granted = r.ops.find((o) => o.f === 'acquire' && o.type === 'ok')!;
  const lapse = r.ops.at(-2)!;   // the lapse's invoke, then its ok
  assert.deepEqual([lapse.f, lapse.type, r.ops.at(-1)!.value], ['release', 'invoke', { lapse: true }]);
  // Three fails take ~150 ms; the lapse waits out the rest of the lease (a few ms of IPC either way).
  const gap = lapse.at - granted.at;
  assert.ok(gap >= ttlMs - 20 && gap < ttlMs + 500, `lapse ${Math.round(gap)} ms after the grant; lease ${ttlMs} ms`);
});

test('worker: an uncaught exception outside any operation is told to the parent (thrown by the lock), then the worker exits 70', async () => {
  const r = await runWorker({ mode: 'crash', attempts: [attempt({ holdMs: 200 }), attempt()] });
  const crash = r.messages.find((m) => m.t === 'crash') as { error: string; origin: string } | undefined;
  assert.ok(crash, JSON.stringify(r.messages));
  assert.match(crash.error, /Unknown code: -999/);
  // The lock module's own timer threw it: the lock's, never lockpick's.
  assert.equal(crash.origin, 'lock');
  assert.match(crash.error, /fixtures[\\/]locks[\\/]memory\.ts/);
  assert.equal(r.exitCode, 70);
  assert.equal(r.messages.some((m) => m.t === 'done'), false);
});

test("worker: a lock that calls process.exit() is told to the parent as a crash, with the stack of the call", async () => {
  const r = await runWorker({ mode: 'exit', attempts: [attempt({ holdMs: 200 }), attempt()] });
  const crash = r.messages.find((m) => m.t === 'crash') as { error: string; origin: string } | undefined;
  assert.ok(crash, JSON.stringify(r.messages));
  assert.match(crash.error, /process\.exit\(3\) was called/);
  assert.match(crash.error, /fixtures[\\/]locks[\\/]memory\.ts/);
  assert.equal(crash.origin, 'lock');
  assert.equal(r.exitCode, 3);
});
