// The shrinker on stand-in runs (pure logic): it prunes to the clients the
// anomalies name, removes faults and attempts one at a time, retries a
// candidate whose violation depends on timing, and keeps to its budget.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { planArb } from '../../src/workload/arbitraries.ts';
import { planOps, type RunPlan } from '../../src/workload/plan.ts';
import { SHRINK_HOLD, involvement, prunePlan, shrinkRun, structuralCandidates } from '../../src/runner/shrink.ts';
import type { RunOutcome } from '../../src/runner/session.ts';
import type { HistoryEvent } from '../../src/history/types.ts';
import { emptyStats } from '../../checkers/stats.ts';
import type { AnomalyType } from '../../checkers/anomaly-kinds.ts';

const arb = planArb({ clients: 4, faults: ['client-pause'], ttlMs: 800, nodes: ['n1'], maxAttempts: 3 });

/** Events of a run: one acquire invoke per attempt, process = 10 × client number + attempt. */
function eventsOf(plan: RunPlan): HistoryEvent[] {
  const ev: HistoryEvent[] = [];
  plan.clients.forEach((c, i) => c.attempts.forEach((_, k) => {
    ev.push({ type: 'invoke', f: 'acquire', process: 10 * (i + 1) + k, key: 'k0', client: `c${i + 1}` } as HistoryEvent);
  }));
  return ev;
}

/** A run outcome; unsafe when `bad` names processes (the anomaly's). */
function outcome(plan: RunPlan, bad: number[] | null, lines: number[] = [], types: AnomalyType[] = ['double-holder']): RunOutcome {
  const anomalies = bad ? types.map((type) => ({ type, key: 'k0', processes: bad, lines, message: type })) : [];
  return { run: 1, plan, verdict: !bad, lockVerdict: !bad, ops: planOps(plan), elapsedMs: 1, problems: [], inconclusive: [], faults: { applied: {}, healed: {}, missing: [], kindsMissing: [] }, stats: emptyStats(), events: eventsOf(plan), resourceEntries: [],
    check: { valid: !bad, model: 'mutex', ops: 0, keys: 1, anomalies, keys_detail: {}, elapsed_ms: 0 },
    resource: { valid: true, fenced: false, keys: 0, writes: 0, accepted: 0, lostUpdates: 0, staleWritesAccepted: 0, staleStepsPrevented: 0, anomalies: [], message: '' } };
}

const attempt = { key: 'k0', delayMs: 100, waitMs: 800, holdMs: 100, renew: false };
const pause = { kind: 'client-pause', at_ms: 0, duration_ms: 900, target: 'c1', params: { point: 'in-critical-section' } };
const big: RunPlan = {
  ttlMs: 800,
  clients: [{ attempts: [attempt, attempt, attempt] }, { attempts: [attempt, attempt] }, { attempts: [attempt, attempt, attempt] }, { attempts: [attempt] }],
  faults: [pause, { ...pause, target: 'c4' }],
};

test('involvement: the clients the anomalies name, and their attempts up to the last anomaly line', () => {
  // Events: c1 ×3 (lines 1-3), c2 ×2 (4-5), c3 ×3 (6-8), c4 (9). The anomaly names c1's 2nd and c3's 1st attempts, up to line 6.
  const inv = involvement(outcome(big, [11, 30], [2, 6]))!;
  assert.deepEqual([...inv.clients].sort(), ['c1', 'c3']);
  assert.equal(inv.attempts.get('c1'), 3);
  assert.equal(inv.attempts.get('c3'), 1);
  assert.equal(involvement(outcome(big, [])), null, 'no process named: nothing to go by');
});

test('prunePlan keeps only the named clients, up to the anomaly; null when nothing is cut', () => {
  const p = prunePlan(big, outcome(big, [11, 30], [2, 6]))!;
  assert.deepEqual(p.clients.map((c) => c.attempts.length), [3, 0, 1, 0]);
  assert.deepEqual(p.faults, big.faults, 'faults are left to the structural pass');
  assert.equal(prunePlan(p, outcome(p, [10, 30], [1, 4])), null);
});

test('structuralCandidates: one fault fewer (never none), one client silenced, then one attempt fewer, latest first', () => {
  const c = [...structuralCandidates(big)];
  assert.equal(c.length, 2 + 3 + 9);
  assert.deepEqual(c.slice(0, 2).map((x) => x.faults.length), [1, 1]);
  assert.deepEqual(c.slice(2, 5).map((x) => x.clients.map((y) => y.attempts.length)), [[0, 2, 3, 1], [3, 0, 3, 1], [3, 2, 0, 1]]);
  for (const x of c.slice(5)) assert.equal(planOps(x), planOps(big) - 2);
  // Third attempts go first.
  assert.deepEqual(c[5]!.clients.map((x) => x.attempts.length), [2, 2, 3, 1]);
  const one = { ...big, faults: [pause] };
  assert.ok([...structuralCandidates(one)].every((x) => x.faults.length === 1));
});

test('shrinkRun: a violation between c1 and c3 under c1\'s pause shrinks to two attempts and that one fault', async () => {
  let runs = 0;
  const unsafe = (p: RunPlan) => p.clients[0]!.attempts.length > 0 && p.clients[2]!.attempts.length > 0 && p.faults.some((f) => f.target === 'c1');
  const runOnce = async (p: RunPlan) => {
    runs++;
    return outcome(p, unsafe(p) ? [10, 30] : null, [1, eventsOf(p).length]);
  };
  const r = await shrinkRun(outcome(big, [10, 30], [1, 9]), { arb, runOnce, budgetMs: 5000 });
  assert.equal(planOps(r.minimal.plan), 4);
  assert.deepEqual(r.minimal.plan.faults.map((f) => f.target), ['c1']);
  assert.equal(r.minimal.verdict, false);
  assert.equal(r.runs, runs);
});

test('shrinkRun keeps every kind of anomaly it started with: a smaller plan that loses the stale unlock is not taken', async () => {
  // Any plan with c1 and c3 double-holds; only with c1's pause is c1's unlock also stale.
  const runOnce = async (p: RunPlan) => {
    const both = p.clients[0]!.attempts.length > 0 && p.clients[2]!.attempts.length > 0;
    const paused = p.faults.some((f) => f.target === 'c1');
    return outcome(p, both ? [10, 30] : null, [1, eventsOf(p).length], paused ? ['double-holder', 'stale-release'] : ['double-holder']);
  };
  // c1's pause last, so it is the first fault the shrinker tries to drop.
  const start = { ...big, faults: [{ ...pause, target: 'c4' }, pause] };
  // No number shrinking here (it could move the other pause onto c1 and hide the difference).
  const r = await shrinkRun(outcome(start, [10, 30], [1, 9], ['double-holder', 'stale-release']), { arb: fc.constant(start), runOnce, budgetMs: 5000 });
  assert.deepEqual(r.minimal.plan.faults.map((f) => f.target), ['c1'], 'the pause that makes the unlock stale stays');
  assert.deepEqual(r.minimal.check.anomalies.map((a) => a.type), ['double-holder', 'stale-release']);
  assert.equal(planOps(r.minimal.plan), 4);
});

test('shrinkRun retries a candidate whose violation shows only some of the time, and keeps it only if it then holds R of R', async () => {
  let n = 0;
  // Unsafe on every second run of a plan with both clients; never without.
  const runOnce = async (p: RunPlan) => {
    const both = p.clients[0]!.attempts.length > 0 && p.clients[1]!.attempts.length > 0;
    return outcome(p, both && n++ % 2 === 1 ? [10, 20] : null);
  };
  const start: RunPlan = { ttlMs: 800, clients: [{ attempts: [attempt, attempt] }, { attempts: [attempt] }, { attempts: [] }, { attempts: [] }], faults: [pause] };
  // Hold 1 (the old rule): a candidate that broke once in its tries is kept.
  const once = await shrinkRun(outcome(start, [10, 20]), { arb, runOnce, budgetMs: 5000, tries: 2, hold: 1 });
  assert.equal(planOps(once.minimal.plan), 4);
  // The default: it breaks the lock one run in two, so no smaller plan holds 2 of 2 and the start stays.
  n = 0;
  const held = await shrinkRun(outcome(start, [10, 20]), { arb, runOnce, budgetMs: 5000, tries: 2 });
  assert.equal(SHRINK_HOLD, 2);
  assert.equal(planOps(held.minimal.plan), planOps(start));
  // A steady violation shrinks as far under the default as under hold 1.
  const both = (p: RunPlan) => p.clients[0]!.attempts.length > 0 && p.clients[1]!.attempts.length > 0;
  const steady = await shrinkRun(outcome(start, [10, 20]), { arb, runOnce: async (p) => outcome(p, both(p) ? [10, 20] : null), budgetMs: 5000, tries: 2 });
  assert.equal(planOps(steady.minimal.plan), 4);
  assert.equal(steady.confirmed, true);
});

test('shrinkRun stops at its budget and keeps the smallest violation so far', async () => {
  const runOnce = async (p: RunPlan) => {
    await new Promise((r) => setTimeout(r, 30));
    // Needs a fault and four operations; names no process, so nothing is pruned.
    return outcome(p, p.faults.length && planOps(p) >= 4 ? [] : null);
  };
  const [plan] = fc.sample(arb.filter((p) => planOps(p) >= 8), { numRuns: 1, seed: 2 });
  const t0 = performance.now();
  const r = await shrinkRun(outcome(plan!, []), { arb, runOnce, budgetMs: 200 });
  assert.ok(performance.now() - t0 < 200 + 100, 'at most one run past the budget');
  assert.ok(r.interrupted);
  assert.ok(planOps(r.minimal.plan) <= planOps(plan!));
  assert.equal(r.minimal.verdict, false);
});

test('shrinkRun confirms its result: a plan that broke only once is not kept (R of R), and with hold 1 it is reported unconfirmed', async () => {
  const seenPlans = new Map<string, number>();
  // Every plan with a fault breaks the lock on its first run only (luck), never again.
  const runOnce = async (p: RunPlan) => {
    const k = JSON.stringify(p);
    const n = (seenPlans.get(k) ?? 0) + 1;
    seenPlans.set(k, n);
    return outcome(p, p.faults.length && n === 1 ? [] : null);
  };
  const r = await shrinkRun(outcome(big, []), { arb, runOnce, budgetMs: 2000, confirmRuns: 2, hold: 1 });
  assert.equal(r.confirmed, false);
  assert.ok(planOps(r.minimal.plan) < planOps(big), 'still the smallest violation seen');
  // The default holds a smaller plan to 2 of 2: none is kept, and the first, run again, does not break either.
  seenPlans.clear();
  seenPlans.set(JSON.stringify(big), 1); // the violation that started it was its first run
  const held = await shrinkRun(outcome(big, []), { arb, runOnce, budgetMs: 2000 });
  assert.equal(planOps(held.minimal.plan), planOps(big));
  assert.equal(held.confirmed, false);
  // Steady violations are confirmed.
  const steady = await shrinkRun(outcome(big, []), { arb, runOnce: async (p) => outcome(p, p.faults.length ? [] : null), budgetMs: 2000 });
  assert.equal(steady.confirmed, true);
});
