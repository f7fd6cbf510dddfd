// Timers that ran out while the process was away (src/runner/late-timers.ts): put off by one
// setImmediate, so what arrived meanwhile is read first; cleared or restarted meanwhile, they
// do not run; a one-shot timer that ran is not run again by restartTimer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleepUnwrapped } from 'node:timers/promises';
import { holdTimers, installLateTimers, restartTimer } from '../../src/runner/late-timers.ts';

installLateTimers();
const wait = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
/** The process away for `ms`: no timer can run (as under SIGSTOP, or a long GC). */
const away = (ms: number) => { const until = performance.now() + ms; while (performance.now() < until) { /* away */ } };

test('data that arrived while the process was away is read before a timer that ran out meanwhile', async () => {
  // The server in a process of its own: it answers while this one is away.
  const server = spawn(process.execPath, ['-e', `require('net').createServer((c) => { c.on('error', () => {}); c.on('data', () => setTimeout(() => c.write('reply'), 20)); })
    .listen(0, '127.0.0.1', function () { console.log(this.address().port); })`], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = await once(server.stdout!, 'data') as [Buffer];
  const s = net.connect(Number(String(line).trim()), '127.0.0.1');
  await once(s, 'connect');
  const order: string[] = [];
  s.on('data', () => order.push('data'));
  await new Promise<void>((resolve) => setImmediate(() => {
    setTimeout(() => { order.push('timer'); resolve(); }, 30);
    s.write('command');
    away(150);   // the reply comes at about 20 ms, the timer is due at 30 ms
  }));
  s.destroy();
  server.kill();
  assert.deepEqual(order, ['data', 'timer']);
});

test('a timer due while an I/O point is held runs after the release, however little late it is; one cleared or restarted meanwhile does not run then', async () => {
  // A pause that ends about when a command timeout was due: the timer is only ms late on waking,
  // yet the reply held at the point must be read first (the command must not time out on it).
  const order: string[] = [];
  const release = holdTimers();
  setTimeout(() => order.push('timer'), 20);
  const cleared = setTimeout(() => order.push('cleared'), 20);
  const restarted = setTimeout(() => order.push('restarted'), 20);
  await sleepUnwrapped(80);   // node:timers/promises is not wrapped: it runs while the hold lasts
  assert.equal(order.length, 0, 'nothing runs while the point is held');
  clearTimeout(cleared);
  restarted.refresh();
  release();
  order.push('the held reply');   // what the release let out goes first
  await sleepUnwrapped(5);
  assert.deepEqual(order, ['the held reply', 'timer']);
  await sleepUnwrapped(60);
  assert.deepEqual(order, ['the held reply', 'timer', 'restarted'], 'the restarted timer runs a full delay after its restart');
  // Not held: a timer on time runs at once.
  const t0 = performance.now();
  await new Promise<void>((r) => setTimeout(r, 10));
  assert.ok(performance.now() - t0 < 500);
});

test('a late timer cleared before its turn never runs; one restarted runs once, a full delay later', async () => {
  const ran: string[] = [];
  const t0 = performance.now();
  setTimeout(() => { ran.push('first'); clearTimeout(cleared); restarted.refresh(); }, 10);
  const cleared = setTimeout(() => { ran.push('cleared'); }, 20);
  const restarted = setTimeout(() => { ran.push(`restarted after ${Math.round(performance.now() - t0)} ms`); }, 30);
  away(80);
  await wait(150);
  assert.equal(ran.length, 2, ran.join(', '));
  assert.equal(ran[0], 'first');
  assert.match(ran[1]!, /^restarted after (\d+) ms$/);
  assert.ok(Number(/(\d+)/.exec(ran[1]!)![1]) >= 80 + 30 - 2, ran[1]);
});

test('restartTimer: a timer not yet run starts over; one that ran is not run again', async () => {
  let n = 0;
  const t = setTimeout(() => { n++; }, 10);
  await wait(30);
  restartTimer(t);
  await wait(30);
  assert.equal(n, 1, 'ran once');
  // Timed by when it ran against when it was restarted (a timer never runs early), not by fixed
  // waits, which a loaded machine stretches past the delay.
  const runs: number[] = [];
  const u = setTimeout(() => { runs.push(performance.now()); }, 1000);
  await wait(20);
  assert.equal(runs.length, 0, 'not due yet');
  const restarted = performance.now();
  restartTimer(u);
  while (runs.length === 0) await wait(50);
  await wait(50);
  assert.equal(runs.length, 1, 'ran once');
  assert.ok(runs[0]! - restarted >= 1000 - 2, `restarted: ran ${Math.round(runs[0]! - restarted)} ms after the restart, not a full delay`);
});

test('an interval keeps its period, late ticks included, and stops when cleared', async () => {
  let n = 0;
  const i = setInterval(() => { n++; }, 10);
  await wait(35);
  away(40);
  await wait(25);
  clearInterval(i);
  const seen = n;
  assert.ok(seen >= 3, `ticks: ${seen}`);
  await wait(30);
  assert.equal(n, seen, 'no tick after clearInterval');
});
