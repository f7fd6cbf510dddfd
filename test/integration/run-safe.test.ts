// No false alarms, and fencing that works: redis-set-px-lua without faults is
// safe with 8 clients; redis-set-px-lua-fenced under pauses, clock jumps and
// restarts has double holders, yet the resource accepts no stale write and
// loses no update.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lockpick, tempStore } from './run-helpers.ts';

test('redis-set-px-lua, no faults, 8 clients: safe', async () => {
  const r = await lockpick(['run', '--lock', 'redis-set-px-lua', '--clients', '8', '--time', '15', '--store', tempStore(), '--json']);
  assert.equal(r.code, 0, r.stderr);
  const s = r.summary!;
  assert.equal(s.verdict, true);
  assert.ok(s.runs >= 3, `only ${s.runs} runs`);
  assert.ok(s.ops >= 100, `only ${s.ops} operations`);
  // Throughput: search runs, conclusive or not, per minute of the search (not server start-up).
  const t = s.throughput;
  assert.equal(t.runs, s.runs);
  assert.equal(t.conclusive + t.inconclusive, t.runs);
  assert.ok(t.schedules >= 1 && t.schedules <= t.runs, `${t.schedules} schedules of ${t.runs} runs`);
  assert.ok(t.searchMs >= 15_000 && t.searchMs < 15_000 + 20_000, `search took ${t.searchMs} ms of a 15 s budget`);
  assert.ok(Math.abs(t.runsPerMinute - (t.runs * 60_000) / t.searchMs) <= 0.05, `${t.runsPerMinute} runs/min for ${t.runs} runs in ${t.searchMs} ms`);
  assert.equal(t.parallel, 1);
  assert.match(r.stderr, new RegExp(`throughput: ${t.runs} run\\(s\\) of ${t.schedules} distinct schedule\\(s\\) in [\\d.]+ s of search, ${t.runsPerMinute} runs/min`));
  assert.equal(s.lockViolations, 0);
  assert.equal(s.resource.lostUpdates + s.resource.staleWritesAccepted, 0);
});

test('redis-set-px-lua-fenced under pause, clock jump and restart: the resource stays correct', async () => {
  const r = await lockpick(['run', '--lock', 'redis-set-px-lua-fenced', '--faults', 'client-pause,clock-bump,kill', '--property', 'resource',
    '--clients', '3', '--time', '35', '--store', tempStore(), '--json']);
  assert.equal(r.code, 0, r.stderr);
  const s = r.summary!;
  assert.equal(s.resource.lostUpdates, 0);
  assert.equal(s.resource.staleWritesAccepted, 0);
  // The faults did break the lock itself, and fencing is what kept the resource right.
  assert.ok(s.lockViolations > 0, 'no run had a double holder: the faults did not bite');
  assert.ok(s.resource.staleStepsPrevented > 0, 'fencing never rejected anything');
});
