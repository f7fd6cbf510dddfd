// --keep-going: the class of a failure, the repeat rule, and the search going
// on after a violation (a stand-in run function decides from the plan alone).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { planArb } from '../../src/workload/arbitraries.ts';
import { planOps, type RunPlan } from '../../src/workload/plan.ts';
import { search } from '../../src/runner/search.ts';
import { failureClass, repeatOf } from '../../src/runner/failure-class.ts';
import type { RunOutcome } from '../../src/runner/session.ts';
import { emptyStats } from '../../checkers/stats.ts';
import type { CauseClass } from '../../src/runner/failure-cause.ts';

function outcome(plan: RunPlan, anomalies: string[], run = 1, resource: string[] = []): RunOutcome {
  const bad = anomalies.length + resource.length > 0;
  return {
    run, plan, verdict: !bad, lockVerdict: !bad, ops: planOps(plan), elapsedMs: 1, problems: [], inconclusive: [],
    faults: { applied: {}, healed: {}, missing: [], kindsMissing: [] }, stats: emptyStats(), events: [], resourceEntries: [],
    check: { valid: !bad, model: 'mutex', ops: 0, keys: 0, keys_detail: {}, elapsed_ms: 0,
      anomalies: anomalies.map((type) => ({ type, key: 'k', message: type, processes: [], lines: [] })) as unknown as RunOutcome['check']['anomalies'] },
    resource: { valid: true, fenced: false, keys: 0, writes: 0, accepted: 0, lostUpdates: 0, staleWritesAccepted: 0, staleStepsPrevented: 0,
      anomalies: resource.map((type) => ({ type, key: 'k', message: type, processes: [] })) as unknown as RunOutcome['resource']['anomalies'], message: '' },
  };
}

const planWith = (...kinds: string[]) => ({ clients: [], faults: kinds.map((kind) => ({ kind })) }) as unknown as RunPlan;

test('a failure class: the sorted fault kinds of the plan and the sorted anomaly types of the run', () => {
  const c = failureClass(planWith('partition', 'kill', 'partition'), outcome(planWith(), ['stale-release', 'double-holder']));
  assert.deepEqual(c.kinds, ['kill', 'partition']);
  assert.deepEqual(c.anomalies, ['double-holder', 'stale-release']);
  assert.equal(c.name, 'double-holder, stale-release · kill, partition');
  assert.notEqual(c.name, failureClass(planWith('clock-bump', 'partition'), outcome(planWith(), ['double-holder'])).name);
});

test('a class names the lock anomalies; the resource ones only when the lock showed none (a fencing failure)', () => {
  assert.equal(failureClass(planWith('kill'), outcome(planWith(), ['double-holder'], 1, ['lost-update', 'stale-write'])).name, 'double-holder · kill');
  assert.equal(failureClass(planWith('client-pause'), outcome(planWith(), [], 1, ['stale-write'])).name, 'stale-write · client-pause');
});

test('the repeat rule: every kind and anomaly of a found class present; otherwise a new candidate', () => {
  const kill = { ...failureClass(planWith('kill'), outcome(planWith(), ['double-holder'])), id: 'kill' };
  const klep = { ...failureClass(planWith('clock-bump', 'partition'), outcome(planWith(), ['double-holder'])), id: 'klep' };
  const found = [kill, klep];
  assert.equal(repeatOf(planWith('kill', 'partition'), outcome(planWith(), ['double-holder']), found)?.id, 'kill');
  assert.equal(repeatOf(planWith('partition', 'clock-bump'), outcome(planWith(), ['double-holder', 'lost-update']), found)?.id, 'klep');
  // partition alone contains neither class; a kill run showing another anomaly is not the kill class.
  assert.equal(repeatOf(planWith('partition'), outcome(planWith(), ['double-holder']), found), undefined);
  assert.equal(repeatOf(planWith('kill'), outcome(planWith(), ['stale-release']), found), undefined);
});

// Unsafe by fault kind: a kill makes a double holder, a client pause a stale release.
function byKind(ms: number) {
  let n = 0;
  return async (plan: RunPlan): Promise<RunOutcome> => {
    await sleep(ms);
    const kinds = new Set(plan.faults.map((f) => f.kind));
    return outcome(plan, [...(kinds.has('kill') ? ['double-holder'] : []), ...(kinds.has('client-pause') ? ['stale-release'] : [])], ++n);
  };
}

test('keepGoing: the search goes on for its whole budget, shrinking off the clock, and lists each distinct failure once', async () => {
  const arb = planArb({ clients: 3, faults: ['client-pause', 'kill'], ttlMs: 800, nodes: ['n1'] });
  const notified: string[] = [];
  const t0 = Date.now();
  const r = await search({
    arb, runOnce: byKind(5), runs: 1_000_000, timeMs: 800, shrinkTimeMs: 150, seed: 7, keepGoing: true,
    onFailure: (x, n) => { notified.push(`${n}:${x.name}`); },
  });
  const wall = Date.now() - t0;
  assert.ok(r.first && r.minimal);
  assert.ok(r.failures.length >= 2, r.failures.map((x) => x.name).join(' | '));
  assert.equal(new Set(r.failures.map((x) => x.name)).size, r.failures.length);
  assert.deepEqual(notified, r.failures.map((x, i) => `${i + 1}:${x.name}`));
  // The first failure is the one reported as without keepGoing.
  assert.equal(r.failures[0]!.minimal, r.minimal);
  assert.equal(r.failures[0]!.afterMs, r.firstAfterMs);
  assert.ok(r.failures.every((x, i) => i === 0 || x.afterMs >= r.failures[i - 1]!.afterMs));
  // Shrunk: one fault kind per class unless the run showed both anomalies.
  for (const x of r.failures) assert.equal(x.kinds.length, x.anomalies.length, x.name);
  // The search spent its budget (search time), and the shrinking came on top of it.
  assert.ok(r.searchMs >= 800 && r.searchMs < 2000, `searchMs ${r.searchMs}`);
  assert.ok(r.shrinkRuns > 0 && wall >= r.searchMs + r.shrinkRuns * 4, `wall ${wall} ms, search ${r.searchMs} ms, ${r.shrinkRuns} shrink runs of 5 ms`);
  // Repeats were counted, not shrunk: many violating runs, few shrinks.
  assert.ok(r.failures.reduce((s, x) => s + x.runs, 0) > r.failures.length);
});

test('without keepGoing the search still stops at the first violation, with one failure listed', async () => {
  const arb = planArb({ clients: 3, faults: ['client-pause', 'kill'], ttlMs: 800, nodes: ['n1'] });
  const r = await search({ arb, runOnce: byKind(5), runs: 1_000_000, timeMs: 5000, shrinkTimeMs: 100, seed: 7 });
  assert.ok(r.searchMs < 2000);
  assert.equal(r.failures.length, 1);
  assert.equal(r.failures[0]!.minimal, r.minimal);
});

test('keepGoing with --parallel 2: lanes keep searching after a violation, shrinking alone on lane 0', async () => {
  const arb = planArb({ clients: 3, faults: ['client-pause', 'client-kill'], ttlMs: 800, nodes: ['n1'] });
  const spans = new Map<number, { from: number; to: number; lane: number; shrink?: boolean }>();
  let n = 0;
  const runOnce = async (plan: RunPlan, lane: number): Promise<RunOutcome> => {
    const run = ++n;
    const from = performance.now();
    await sleep(5);
    spans.set(run, { from, to: performance.now(), lane });
    const kinds = new Set(plan.faults.map((x) => x.kind));
    return outcome(plan, [...(kinds.has('client-kill') ? ['double-holder'] : []), ...(kinds.has('client-pause') ? ['stale-release'] : [])], run);
  };
  const r = await search({
    arb, runOnce, runs: 1_000_000, timeMs: 600, shrinkTimeMs: 100, seed: 2, keepGoing: true, parallel: 2, concurrent: () => true,
    onRun: (o, phase) => { if (phase === 'shrink') spans.get(o.run)!.shrink = true; },
  });
  const all = [...spans.values()];
  const shrinks = all.filter((s) => s.shrink);
  assert.ok(shrinks.length > 0 && shrinks.every((s) => s.lane === 0));
  const overlapping = shrinks.filter((s) => all.some((t) => t !== s && t.from < s.to && s.from < t.to));
  assert.equal(overlapping.length, 0, 'a shrink run overlapped another run');
  assert.ok(r.failures.length >= 2, r.failures.map((x) => x.name).join(' | '));
  assert.equal(r.parallel, 2);
  assert.ok(r.searchMs >= 600);
});

test('lockpick run --keep-going with --replay is refused with exit 2, saying what to leave out', async () => {
  const { spawnSync } = await import('node:child_process');
  const bin = new URL('../../bin/lockpick.mjs', import.meta.url).pathname;
  const r = spawnSync(process.execPath, [bin, 'run', '--replay', 'store/x', '--keep-going'], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /--keep-going .* a replay runs one stored plan, so leave it out/);
});

// By cause (classify given): a double holder stands for a failure inherent to the design, a stale
// release for a bug of the lock (a stand-in for failure-cause.ts, whose rules have their own tests).
const byCauseStandIn = (o: RunOutcome): CauseClass[] => {
  const types = new Set(o.check.anomalies.map((a) => a.type));
  const cls = (nature: 'bug' | 'inherent', anomaly: string): CauseClass => ({
    key: `${nature}: ${anomaly}`, nature, words: nature, causes: [{ anomaly, nature, why: anomaly, fault: 'x', hit: 'holding', words: nature }],
  });
  return [...(types.has('stale-release') ? [cls('bug', 'stale-release')] : []), ...(types.has('double-holder') ? [cls('inherent', 'double-holder')] : [])];
};

test('the default search goes on past an inherent failure until it finds a bug, reports both (the bug first) and then stops', async () => {
  const arb = planArb({ clients: 3, faults: ['client-pause', 'kill'], ttlMs: 800, nodes: ['n1'] });
  const stored: string[] = [];
  const r = await search({ arb, runOnce: byKind(5), runs: 1_000_000, timeMs: 5000, shrinkTimeMs: 100, seed: 7, classify: byCauseStandIn, onFailure: (f, n) => { stored.push(`${n}:${f.name}`); } });
  assert.deepEqual(r.failures.map((f) => f.nature), ['bug', 'inherent'], r.failures.map((f) => f.name).join(' | '));
  assert.deepEqual(r.failures.map((f) => f.name), ['bug: stale-release', 'inherent: double-holder']);
  assert.equal(r.minimal, r.failures[0]!.minimal);
  assert.equal(stored.length, 2);
  // It stopped once it had one of each, well before its budget.
  assert.ok(r.searchMs < 2500, `searchMs ${r.searchMs}`);
});

test('the default search with only inherent failures spends its whole budget, counting their repeats without shrinking them', async () => {
  const arb = planArb({ clients: 3, faults: ['kill'], ttlMs: 800, nodes: ['n1'] });
  const r = await search({ arb, runOnce: byKind(5), runs: 1_000_000, timeMs: 600, shrinkTimeMs: 100, seed: 3, classify: byCauseStandIn });
  assert.deepEqual(r.failures.map((f) => f.nature), ['inherent']);
  assert.ok(r.searchMs >= 600, `searchMs ${r.searchMs}`);
  assert.ok(r.failures[0]!.runs + r.inherentRuns > 5 && r.shrinkRuns < r.runs, `${r.failures[0]!.runs} repeats, ${r.inherentRuns} counted, ${r.shrinkRuns} shrink runs of ${r.runs}`);
});

test('the default search with a bug alone stops soon after it (at most twice its time to detection), not at the end of its budget', async () => {
  const arb = planArb({ clients: 3, faults: ['client-pause'], ttlMs: 800, nodes: ['n1'] });
  const r = await search({ arb, runOnce: byKind(5), runs: 1_000_000, timeMs: 5000, shrinkTimeMs: 100, seed: 5, classify: byCauseStandIn });
  assert.deepEqual(r.failures.map((f) => f.nature), ['bug']);
  // Twice the detection time, or 1 s: runs of 5 ms each stretch under a loaded machine (269 ms after a bug at 27 ms seen in CI), and a search that ignored the rule would run its whole 5 s.
  assert.ok(r.searchMs <= Math.max(2 * r.firstAfterMs! + 100, 1000), `searchMs ${r.searchMs}, bug after ${r.firstAfterMs}`);
});

test('--first-failure: the default search stops at its first failure even when inherent, still classed by cause; refused beside --keep-going or --replay', async () => {
  const arb = planArb({ clients: 3, faults: ['kill'], ttlMs: 800, nodes: ['n1'] });
  const r = await search({ arb, runOnce: byKind(5), runs: 1_000_000, timeMs: 5000, shrinkTimeMs: 100, seed: 3, classify: byCauseStandIn, stopAtFirst: true });
  assert.deepEqual(r.failures.map((f) => [f.nature, f.name]), [['inherent', 'inherent: double-holder']]);
  assert.ok(r.searchMs < 2000, `searchMs ${r.searchMs}`);
  const { spawnSync } = await import('node:child_process');
  const bin = new URL('../../bin/lockpick.mjs', import.meta.url).pathname;
  const both = spawnSync(process.execPath, [bin, 'run', '--lock', 'redis-set-px-del', '--keep-going', '--first-failure'], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(both.status, 2, both.stderr);
  assert.match(both.stderr, /--keep-going searches on after every violation, --first-failure stops at the first: give one of them/);
  const replay = spawnSync(process.execPath, [bin, 'run', '--replay', 'store/x', '--first-failure'], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(replay.status, 2, replay.stderr);
});
