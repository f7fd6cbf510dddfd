// Search throughput: the runs/min arithmetic, and --parallel on a stand-in run
// function: client-scoped plans overlap up to K on distinct lanes, any other plan
// runs alone, a violation found on any lane is the one shrunk, and K = 1 never overlaps.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { planArb } from '../../src/workload/arbitraries.ts';
import type { RunPlan } from '../../src/workload/plan.ts';
import { search } from '../../src/runner/search.ts';
import { describeThroughput, perMinute, throughput } from '../../src/runner/progress.ts';
import type { RunOutcome } from '../../src/runner/session.ts';
import { emptyStats } from '../../checkers/stats.ts';

test('throughput: runs per minute of search, conclusive and inconclusive, distinct schedules', () => {
  const t = throughput({ runs: 42, inconclusive: 2, schedules: 41, searchMs: 60_000, parallel: 2 });
  assert.deepEqual(t, { runs: 42, conclusive: 40, inconclusive: 2, conclusiveShare: 0.952, schedules: 41, searchMs: 60_000, runsPerMinute: 42, parallel: 2 });
  assert.equal(perMinute(10, 45_000), 13.3);
  assert.equal(perMinute(1, 7), 8571.4);
  assert.equal(perMinute(5, 0), 0);
  assert.equal(throughput({ runs: 3, inconclusive: 0, schedules: 3, searchMs: 1234.6 }).parallel, 1);
  assert.match(describeThroughput(t), /^throughput: 42 run\(s\) of 41 distinct schedule\(s\) in 60\.0 s of search, 42 runs\/min \(40 conclusive, 95%; 2 inconclusive\), up to 2 at once$/);
});

/** A stand-in run: `ms` long, unsafe when `unsafe(plan)`; records overlap per kind of plan and lanes in use. */
function fakeRuns(unsafe: (p: RunPlan) => boolean, ms: number) {
  const inFlight = new Map<number, RunPlan>();
  const seen = { maxAtOnce: 0, aloneOverlapped: false, laneClash: false, lanes: new Set<number>(), startedBeside: 0 };
  let n = 0;
  const clientOnly = (p: RunPlan) => p.faults.every((f) => f.kind.startsWith('client-'));
  const runOnce = async (plan: RunPlan, lane: number): Promise<RunOutcome> => {
    if (inFlight.has(lane)) seen.laneClash = true;
    inFlight.set(lane, plan);
    seen.lanes.add(lane);
    seen.maxAtOnce = Math.max(seen.maxAtOnce, inFlight.size);
    if (inFlight.size > 1) seen.startedBeside++;
    if (inFlight.size > 1 && [...inFlight.values()].some((p) => !clientOnly(p))) seen.aloneOverlapped = true;
    await sleep(ms);
    inFlight.delete(lane);
    const bad = unsafe(plan);
    return { run: ++n, plan, verdict: !bad, lockVerdict: !bad, ops: 1, elapsedMs: ms, problems: [], inconclusive: [], faults: { applied: {}, healed: {}, missing: [], kindsMissing: [] }, stats: emptyStats(), events: [], resourceEntries: [],
      check: { valid: !bad, model: 'mutex', ops: 0, keys: 0, anomalies: [], keys_detail: {}, elapsed_ms: 0 },
      resource: { valid: true, fenced: false, keys: 0, writes: 0, accepted: 0, lostUpdates: 0, staleWritesAccepted: 0, staleStepsPrevented: 0, anomalies: [], message: '' } };
  };
  return { runOnce, seen, concurrent: clientOnly };
}

const clientArb = planArb({ clients: 3, faults: ['client-pause', 'client-clock'], ttlMs: 800, nodes: ['n1'] });
const mixedArb = planArb({ clients: 3, faults: ['client-pause', 'kill'], ttlMs: 800, nodes: ['n1'] });

test('--parallel 2: client-scoped plans run two at a time on lanes 0 and 1, most of them beside another', async () => {
  const one = fakeRuns(() => false, 40);
  const r1 = await search({ arb: clientArb, runOnce: one.runOnce, runs: 1_000_000, timeMs: 800, shrinkTimeMs: 0, seed: 5, parallel: 1, concurrent: one.concurrent });
  const two = fakeRuns(() => false, 40);
  const r2 = await search({ arb: clientArb, runOnce: two.runOnce, runs: 1_000_000, timeMs: 800, shrinkTimeMs: 0, seed: 5, parallel: 2, concurrent: two.concurrent });
  assert.equal(one.seen.maxAtOnce, 1);
  assert.equal(r1.parallel, 1);
  assert.equal(two.seen.maxAtOnce, 2);
  assert.equal(r2.parallel, 2);
  assert.deepEqual([...two.seen.lanes].sort(), [0, 1]);
  assert.equal(two.seen.laneClash, false);
  // Not a count of runs in a time (a loaded machine slows both): how many began while the other lane ran.
  assert.equal(one.seen.startedBeside, 0);
  assert.ok(two.seen.startedBeside >= r2.runs / 2, `K=2: ${two.seen.startedBeside} of ${r2.runs} runs began beside another (K=1: ${r1.runs} runs)`);
  assert.ok(r2.searchMs >= 800 && r2.schedules <= r2.runs && r2.schedules > 0);
});

test('--parallel 3: a plan with a server fault never overlaps another run', async () => {
  const f = fakeRuns(() => false, 15);
  const r = await search({ arb: mixedArb, runOnce: f.runOnce, runs: 150, timeMs: 20_000, shrinkTimeMs: 0, seed: 9, parallel: 3, concurrent: f.concurrent });
  assert.equal(r.runs, 150);
  assert.equal(f.seen.aloneOverlapped, false);
  assert.ok(f.seen.maxAtOnce >= 2, 'client-only plans never overlapped');
  assert.ok(f.seen.maxAtOnce <= 3);
  assert.equal(f.seen.laneClash, false);
});

const r0 = { shrinking: false };   // set once the search saw its violation (the shrink phase follows)
test('--parallel 2: the violation a lane finds is the one shrunk; shrinking runs one at a time on lane 0', async () => {
  const f = fakeRuns((p) => p.clients.some((c) => c.attempts.length >= 2) && p.faults.length > 0, 20);
  let shrinkOverlap = false;
  let inShrink = 0;
  const r = await search({
    arb: clientArb, runs: 500, timeMs: 20_000, shrinkTimeMs: 20_000, seed: 3, parallel: 2, concurrent: f.concurrent,
    runOnce: async (plan, lane) => {
      const shrinking = r0.shrinking;
      if (shrinking && (inShrink++ > 0 || lane !== 0)) shrinkOverlap = true;
      try { return await f.runOnce(plan, lane); } finally { if (shrinking) inShrink--; }
    },
    onRun: (o, phase) => { if (phase === 'search' && o.verdict === false) r0.shrinking = true; },
  });
  assert.ok(r.first && r.minimal && r.first.verdict === false && r.minimal.verdict === false);
  assert.ok(r.path && /^\d+$/.test(r.path), `path ${r.path}`);
  assert.ok(r.minimal.plan.faults.length >= 1 && r.minimal.plan.clients.some((c) => c.attempts.length >= 2));
  assert.equal(shrinkOverlap, false);
});

test('a violation in the run still going when time runs out is kept and shrunk', async () => {
  let n = 0;
  const f = fakeRuns(() => ++n >= 2, 400);   // the second run fails; time is up while it runs
  const r = await search({ arb: clientArb, runOnce: f.runOnce, runs: 1_000_000, timeMs: 600, shrinkTimeMs: 0, seed: 1, parallel: 1 });
  assert.ok(r.first, `no violation kept after ${r.runs} runs`);
  assert.equal(r.runs, 2);
});

test('lockpick run --parallel: a bad K is refused with exit 2 before any server starts', async () => {
  const { spawnSync } = await import('node:child_process');
  const bin = new URL('../../bin/lockpick.mjs', import.meta.url).pathname;
  for (const [k, says] of [['0', /--parallel must be a whole number from 1 to \d+, got '0'/], ['17', /--parallel must be at most 16 .*got '17'/], ['two', /--parallel must be a whole number/]] as const) {
    const r = spawnSync(process.execPath, [bin, 'run', '--lock', 'redis-set-px-lua', '--parallel', k], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, says);
  }
});
