// The search/shrink driver on a stand-in run function (pure logic: what counts
// as unsafe is decided by the plan alone), checking the budgets, the shrinking,
// and that runs never overlap even when fast-check gives up on one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { planArb } from '../../src/workload/arbitraries.ts';
import { planOps, type RunPlan } from '../../src/workload/plan.ts';
import { search } from '../../src/runner/search.ts';
import type { RunOutcome } from '../../src/runner/session.ts';
import { emptyStats } from '../../checkers/stats.ts';

function fakeRun(unsafe: (p: RunPlan) => boolean, ms: number) {
  let running = 0;
  let overlapped = false;
  let n = 0;
  const runOnce = async (plan: RunPlan): Promise<RunOutcome> => {
    if (running++ > 0) overlapped = true;
    await sleep(ms);
    running--;
    const bad = unsafe(plan);
    return { run: ++n, plan, verdict: !bad, lockVerdict: !bad, ops: planOps(plan), elapsedMs: ms, problems: [], inconclusive: [], faults: { applied: {}, healed: {}, missing: [], kindsMissing: [] }, stats: emptyStats(), events: [], resourceEntries: [],
      check: { valid: !bad, model: 'mutex', ops: 0, keys: 0, anomalies: [], keys_detail: {}, elapsed_ms: 0 },
      resource: { valid: true, fenced: false, keys: 0, writes: 0, accepted: 0, lostUpdates: 0, staleWritesAccepted: 0, staleStepsPrevented: 0, anomalies: [], message: '' } };
  };
  return { runOnce, overlapped: () => overlapped };
}

const arb = planArb({ clients: 3, faults: ['client-pause'], ttlMs: 800, nodes: ['n1'] });

test('finds a violation, shrinks it, and reports seed and path', async () => {
  const f = fakeRun((p) => p.clients.some((c) => c.attempts.length >= 2), 1);
  const r = await search({ arb, runOnce: f.runOnce, runs: 200, timeMs: 10_000, shrinkTimeMs: 10_000, seed: 3 });
  assert.ok(r.first && r.minimal);
  assert.equal(planOps(r.minimal.plan), 4);
  assert.equal(r.seed, 3);
  assert.ok(r.path && /^\d+(:\d+)*$/.test(r.path));
  assert.equal(f.overlapped(), false);
});

test('a safe lock runs until the time budget, and runs never overlap', async () => {
  const f = fakeRun(() => false, 30);
  const t0 = Date.now();
  const r = await search({ arb, runOnce: f.runOnce, runs: 1_000_000, timeMs: 300, shrinkTimeMs: 1000 });
  assert.ok(Date.now() - t0 < 2000);
  assert.ok(r.runs >= 3 && !r.first);
  assert.equal(f.overlapped(), false);
});

test('shrinking stops at its own budget and keeps the smallest violation so far', async () => {
  const f = fakeRun((p) => p.faults.length > 0, 40);
  const r = await search({ arb, runOnce: f.runOnce, runs: 100, timeMs: 5000, shrinkTimeMs: 150, seed: 1 });
  assert.ok(r.minimal);
  assert.ok(r.shrinkRuns <= 6, `${r.shrinkRuns} shrink runs in 150 ms of 40 ms runs`);
  assert.equal(f.overlapped(), false);
});

test('the plans given as first run before any drawn one, in their order', async () => {
  const seen: RunPlan[] = [];
  const f = fakeRun(() => false, 1);
  const mark = (n: number): RunPlan => ({ ttlMs: 800 + n, clients: [{ attempts: [] }, { attempts: [] }, { attempts: [] }], faults: [] });
  await search({ arb, first: [mark(1), mark(2)], runOnce: (p) => { seen.push(p); return f.runOnce(p); }, runs: 5, timeMs: 10_000, shrinkTimeMs: 0, seed: 1 });
  assert.deepEqual(seen.slice(0, 2).map((p) => p.ttlMs), [801, 802]);
  assert.equal(seen.length, 5);
  assert.ok(seen.slice(2).every((p) => p.ttlMs === 800), 'then the drawn plans');
});

test('a run that cannot go on after a violation was found ends the search with the violation kept, the error said; before any, the error is thrown', async () => {
  const base = fakeRun((p) => p.faults.length > 0, 1);
  let n = 0;
  // Run 3 and later fail as a broken lock contract or a server gone would: runOnce throws.
  const failing = (after: number) => async (plan: RunPlan): Promise<RunOutcome> => {
    if (++n > after) throw new Error('process client broke the protocol');
    return base.runOnce(plan);
  };
  const firstFaulty = await search({ arb, runOnce: async (p) => base.runOnce(p), runs: 200, timeMs: 10_000, shrinkTimeMs: 0, seed: 5 });
  assert.ok(firstFaulty.firstRun, 'the stand-in breaks on a plan with a fault');
  // The error comes while the violation is being shrunk: the search resolves with it, unshrunk as far as it got.
  n = 0;
  const r = await search({ arb, runOnce: failing(firstFaulty.firstRun!), runs: 200, timeMs: 10_000, shrinkTimeMs: 10_000, seed: 5 });
  assert.ok(r.first && r.minimal, 'the violation found is kept');
  assert.equal(r.stoppedBy, 'process client broke the protocol');
  assert.equal(r.failures.length, 1);
  assert.equal(r.failures[0]!.stoppedBy, 'process client broke the protocol');
  assert.equal(r.minimal, r.first, 'no run after the error: the violation as found');
  assert.equal(r.minimalConfirmed, false);
  // The same error before any violation: no verdict to keep, the search rejects with it.
  n = 0;
  await assert.rejects(search({ arb, runOnce: failing(firstFaulty.firstRun! - 1), runs: 200, timeMs: 10_000, shrinkTimeMs: 10_000, seed: 5 }), /broke the protocol/);
  // By cause (the default search goes on past an inherent failure): the error in a later search run keeps the failure too.
  n = 0;
  const inherent = { key: 'inherent: x', nature: 'inherent' as const, words: 'inherent to the design', causes: [] };
  const c = await search({ arb, runOnce: failing(firstFaulty.firstRun! + 3), runs: 200, timeMs: 10_000, shrinkTimeMs: 0, seed: 5, classify: () => [inherent] });
  assert.ok(c.minimal);
  assert.equal(c.failures[0]!.nature, 'inherent');
  assert.equal(c.stoppedBy, 'process client broke the protocol');
});
