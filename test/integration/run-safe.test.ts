// No false alarms, and fencing that works: redis-set-px-lua without faults is
// safe with 8 clients; redis-set-px-lua-fenced under the stored pause, clock jump
// and restart plans that break redis-set-px-lua has double holders, yet the
// resource accepts no stale write and loses no update.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lockpick, tempStore } from './run-helpers.ts';
import { replayPlanAs } from './run-scenarios.ts';

test('redis-set-px-lua, no faults, 8 clients: safe', async () => {
  const budgetMs = 10_000;
  const r = await lockpick(['run', '--lock', 'redis-set-px-lua', '--clients', '8', '--first-failure', '--time', String(budgetMs / 1000), '--store', tempStore(), '--json']);
  assert.equal(r.code, 0, r.stderr);
  const s = r.summary!;
  assert.equal(s.verdict, true);
  assert.ok(s.runs >= 2, `only ${s.runs} runs`);
  assert.ok(s.ops >= 30, `only ${s.ops} operations`);
  // Throughput: search runs, conclusive or not, per minute of the search (not server start-up).
  const t = s.throughput;
  assert.equal(t.runs, s.runs);
  assert.equal(t.conclusive + t.inconclusive, t.runs);
  assert.ok(t.schedules >= 1 && t.schedules <= t.runs, `${t.schedules} schedules of ${t.runs} runs`);
  assert.ok(t.searchMs >= budgetMs && t.searchMs < budgetMs + 20_000, `search took ${t.searchMs} ms of a ${budgetMs} ms budget`);
  assert.ok(Math.abs(t.runsPerMinute - (t.runs * 60_000) / t.searchMs) <= 0.05, `${t.runsPerMinute} runs/min for ${t.runs} runs in ${t.searchMs} ms`);
  assert.equal(t.parallel, 1);
  assert.match(r.stderr, new RegExp(`throughput: ${t.runs} run\\(s\\) of ${t.schedules} distinct schedule\\(s\\) in [\\d.]+ s of search, ${t.runsPerMinute} runs/min`));
  assert.equal(s.lockViolations, 0);
  assert.equal(s.resource.lostUpdates + s.resource.staleWritesAccepted, 0);
});

test('redis-set-px-lua-fenced under pause, clock jump and restart: the resource stays correct', async () => {
  // Stored plans, one per fault kind, each one that breaks redis-set-px-lua (a double holder):
  // fencing must keep the resource right where the lock itself breaks.
  let violations = 0;
  let prevented = 0;
  for (const name of ['set-px-lua-pause', 'set-px-lua-clock-jump', 'set-px-lua-restart-anchored']) {
    const r = await replayPlanAs(name, 'redis-set-px-lua-fenced', { runs: 1, property: 'resource' });
    assert.equal(r.code, 0, `${name}: ${r.stderr}`);
    const s = r.summary!;
    assert.equal(s.resource.lostUpdates, 0, name);
    assert.equal(s.resource.staleWritesAccepted, 0, name);
    violations += s.lockViolations;
    prevented += s.resource.staleStepsPrevented;
    console.log(`${name}: ${s.lockViolations} lock violation(s), ${s.resource.staleStepsPrevented} stale step(s) rejected`);
  }
  // The faults did break the lock itself, and fencing is what kept the resource right.
  assert.ok(violations > 0, 'no run had a double holder: the faults did not bite');
  assert.ok(prevented > 0, 'fencing never rejected anything');
});
