// Shards of one search (--shard I/N): the option and the CI engines' variables, the plans each
// shard draws (disjoint, reproducible, every aim covered), and merge's verdict on hand-made run dirs.
import { test } from 'node:test';
import fc from 'fast-check';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseShard } from '../../src/options.ts';
import { firstPlans, planArb, type WorkloadOptions } from '../../src/workload/arbitraries.ts';
import { aimsFor } from '../../src/workload/aims.ts';
import { MAX_SHARDS, MAX_SHARDS_WHY, inShard, shardFilter, shardFirstPlans, shardKinds, shardSeed, type Shard } from '../../src/workload/shard.ts';
import { search } from '../../src/runner/search.ts';
import type { RunOutcome } from '../../src/runner/session.ts';
import type { RunPlan } from '../../src/workload/plan.ts';
import { mergeShards } from '../../src/runner/merge.ts';
import { mergeRuns } from '../../src/api.ts';
import { tempDir } from '../support/temp-dir.ts';

const usage = (f: () => unknown, word: RegExp) => assert.throws(f, (e: Error & { exitCode?: number }) => e.exitCode === 2 && word.test(e.message));

test('--shard I/N and auto: each engine\'s variables, 0- or 1-based, saying which were used; bad values exit 2 naming them', () => {
  assert.equal(parseShard(undefined, undefined, { CI_NODE_INDEX: '2', CI_NODE_TOTAL: '4' }), undefined, 'never sharded without asking');
  assert.deepEqual(parseShard('3/4', undefined, {}), { index: 3, total: 4, from: '--shard' });
  assert.deepEqual(parseShard('auto', undefined, { CI_NODE_INDEX: '2', CI_NODE_TOTAL: '4' }), { index: 2, total: 4, from: 'CI_NODE_INDEX/CI_NODE_TOTAL (GitLab)' });
  assert.deepEqual(parseShard('auto', undefined, { BUILDKITE_PARALLEL_JOB: '0', BUILDKITE_PARALLEL_JOB_COUNT: '3' }), { index: 1, total: 3, from: 'BUILDKITE_PARALLEL_JOB/BUILDKITE_PARALLEL_JOB_COUNT (Buildkite)' });
  assert.deepEqual(parseShard(undefined, '5', { JOB_COMPLETION_INDEX: '4' }), { index: 5, total: 5, from: 'JOB_COMPLETION_INDEX (Kubernetes) of --shard-total' });
  assert.deepEqual(parseShard('auto', undefined, { JOB_COMPLETION_INDEX: '0', LOCKPICK_SHARD_TOTAL: '2' }), { index: 1, total: 2, from: 'JOB_COMPLETION_INDEX (Kubernetes) of LOCKPICK_SHARD_TOTAL' });
  usage(() => parseShard('0/4', undefined, {}), /--shard I/);
  usage(() => parseShard('5/4', undefined, {}), /shard 5 of 4/);
  usage(() => parseShard('2of4', undefined, {}), /--shard must be I\/N/);
  usage(() => parseShard('auto', undefined, { CI_NODE_INDEX: 'x', CI_NODE_TOTAL: '4' }), /CI_NODE_INDEX/);
  usage(() => parseShard('auto', undefined, { CI_NODE_INDEX: '5', CI_NODE_TOTAL: '4' }), /CI_NODE_INDEX.*shard 5 of 4/);
  usage(() => parseShard('auto', undefined, { CI_NODE_INDEX: '1' }), /CI_NODE_TOTAL/);
  usage(() => parseShard('auto', undefined, { BUILDKITE_PARALLEL_JOB: '-1', BUILDKITE_PARALLEL_JOB_COUNT: '2' }), /BUILDKITE_PARALLEL_JOB /);
  usage(() => parseShard('auto', undefined, { JOB_COMPLETION_INDEX: '1' }), /--shard-total N.*LOCKPICK_SHARD_TOTAL/);
  usage(() => parseShard('auto', undefined, { JOB_COMPLETION_INDEX: '1', LOCKPICK_SHARD_TOTAL: 'two' }), /LOCKPICK_SHARD_TOTAL/);
  usage(() => parseShard('auto', undefined, {}), /none of CI_NODE_INDEX/);
});

test('--shard bounds: N and I at most MAX_SHARDS, however large the number, exit 2 naming the bound (never a RangeError)', () => {
  /** Exit 2 with exactly this message: the option, the bound and why, the value as given. */
  const said = (f: () => unknown, what: string, max: number, got: string) => usage(f, new RegExp(`^${escape(`${what} must be at most ${max} (${MAX_SHARDS_WHY}), got '${got}'`)}$`));
  const escape = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  for (const flag of ['1/99999999999999999999', '5000000000/5000000000', `1/${MAX_SHARDS + 1}`]) {
    said(() => parseShard(flag, undefined, {}), '--shard N', MAX_SHARDS, flag.split('/')[1]!);
  }
  said(() => parseShard(`${MAX_SHARDS + 1}/${MAX_SHARDS}`, undefined, {}), '--shard I', MAX_SHARDS, String(MAX_SHARDS + 1));
  said(() => parseShard('99999999999999999999/4', undefined, {}), '--shard I', MAX_SHARDS, '99999999999999999999');
  said(() => parseShard('auto', undefined, { CI_NODE_INDEX: '1', CI_NODE_TOTAL: '1e10' }), 'CI_NODE_TOTAL (GitLab)', MAX_SHARDS, '1e10');
  said(() => parseShard('auto', undefined, { BUILDKITE_PARALLEL_JOB: String(MAX_SHARDS), BUILDKITE_PARALLEL_JOB_COUNT: '3' }), 'BUILDKITE_PARALLEL_JOB (Buildkite)', MAX_SHARDS - 1, String(MAX_SHARDS));
  said(() => parseShard(undefined, '4294967296', { JOB_COMPLETION_INDEX: '0' }), '--shard-total', MAX_SHARDS, '4294967296');
  usage(() => parseShard(undefined, MAX_SHARDS + 1, { JOB_COMPLETION_INDEX: '0' }), new RegExp(`shardTotal must be a whole number from 1 to ${MAX_SHARDS}`));
  // The largest split still draws its share: the last shard of MAX_SHARDS.
  const last = { index: MAX_SHARDS, total: MAX_SHARDS };
  assert.deepEqual(parseShard(`${MAX_SHARDS}/${MAX_SHARDS}`, undefined, {}), { ...last, from: '--shard' });
  const first = firstPlans(O, 1);
  const dealt = Array.from({ length: MAX_SHARDS }, (_, i) => shardFirstPlans(first, { index: i + 1, total: MAX_SHARDS }, O.faults).length);
  assert.equal(dealt.reduce((a, b) => a + b, 0), first.length, 'every first plan dealt to exactly one of the shards');
});

// A single Redis under client pauses, with the points a calibration run learns: several aims fit.
const O: WorkloadOptions = { clients: 3, faults: ['client-pause'], ttlMs: 800, nodes: ['n1'], topology: 'redis', points: ['in-critical-section', 'before-release', 'send:release:1', 'send:acquire:1', 'reply:acquire:1'] };

/** The plans one shard's search runs (search.ts as the runner calls it), counted from what it ran. */
async function shardPlans(seed: number, s: Shard, runs: number, o: WorkloadOptions = O): Promise<RunPlan[]> {
  const first = firstPlans(o, seed);
  const ran: RunPlan[] = [];
  await search({
    arb: planArb({ ...o, leadKinds: shardKinds(o.faults, s) }).filter(shardFilter(first, s)), first: shardFirstPlans(first, s, o.faults), seed: shardSeed(seed, s), runs, timeMs: 60_000, shrinkTimeMs: 1,
    runOnce: async (plan) => { ran.push(plan); return { verdict: true } as RunOutcome; },
  });
  return ran;
}

test('4 shards with one seed draw no plan twice, cover every aim that fits between them, and draw the same plans again', async () => {
  const seed = 4242, total = 4, runs = 150;
  const shards = await Promise.all([1, 2, 3, 4].map((index) => shardPlans(seed, { index, total, from: 'test' }, runs)));
  const owner = new Map<string, number>();
  let repeats = 0;
  shards.forEach((plans, i) => {
    assert.equal(plans.length, runs);
    for (const p of plans) {
      const k = JSON.stringify(p);
      const o = owner.get(k);
      if (o === undefined) owner.set(k, i);
      else assert.equal(o, i, `plan drawn by shard ${o + 1} and shard ${i + 1}`);
      if (o === i) repeats++;
    }
  });
  assert.ok(owner.size > 0.9 * total * runs, `distinct plans: ${owner.size} of ${total * runs} (${repeats} repeats within a shard)`);
  // Every aim's first plan runs once, on exactly one shard.
  const first = firstPlans(O, seed).map((p) => JSON.stringify(p));
  // Disjoint by construction, not by luck of the seeds: every other plan lies in its shard's hash bucket.
  shards.forEach((plans, i) => plans.forEach((p) => assert.ok(first.includes(JSON.stringify(p)) || inShard(p, { index: i + 1, total }), `shard ${i + 1} ran a plan of another bucket`)));
  assert.ok(aimsFor(O).length >= 3 && first.length === aimsFor(O).length, `aims that fit: ${aimsFor(O).length}`);
  const ranFirst = shards.flatMap((plans) => plans.filter((p) => first.includes(JSON.stringify(p))));
  assert.deepEqual(ranFirst.map((p) => JSON.stringify(p)).sort(), [...first].sort());
  // Shard 3 of 4 again with the same seed: the same plans in the same order.
  assert.deepEqual(await shardPlans(seed, { index: 3, total, from: 'test' }, runs), shards[2]);
});

test('fault kinds dealt round the shards: each kind leads as many shards, every plan holds a kind its shard leads, the kinds covered evenly', async () => {
  // Shards per kind and kinds per shard as even as the counts allow; one kind or one shard: no split.
  const K = ['client-pause', 'kill', 'partition', 'clock-bump'];
  assert.deepEqual([1, 2, 3, 4].map((index) => shardKinds(K, { index, total: 4 })), [['client-pause'], ['kill'], ['partition'], ['clock-bump']]);
  assert.deepEqual([1, 2, 3, 4, 5, 6].map((index) => shardKinds(K.slice(0, 3), { index, total: 6 })).flat(), [...K.slice(0, 3), ...K.slice(0, 3)]);
  assert.deepEqual([1, 2, 3].map((index) => shardKinds(K, { index, total: 3 })), [['client-pause', 'clock-bump'], ['kill'], ['partition']]);
  assert.deepEqual(shardKinds(['client-pause'], { index: 3, total: 4 }), ['client-pause']);
  assert.deepEqual(shardKinds(K, { index: 1, total: 1 }), K);
  // Four kinds, one of which no aim composes (partition, on one Redis node): unsharded, it is in far fewer plans.
  const o: WorkloadOptions = { ...O, faults: K };
  const seed = 77, runs = 120;
  const shards = await Promise.all([1, 2, 3, 4].map((index) => shardPlans(seed, { index, total: 4, from: 'test' }, runs, o)));
  const holding = (plans: RunPlan[], k: string) => plans.filter((p) => p.faults.some((f) => f.kind === k)).length;
  shards.forEach((plans, i) => {
    const lead = shardKinds(K, { index: i + 1, total: 4 });
    assert.equal(holding(plans, lead[0]!), plans.length, `shard ${i + 1}: every plan holds ${lead[0]}`);
  });
  const counts = K.map((k) => shards.reduce((n, plans) => n + holding(plans, k), 0));
  assert.ok(Math.min(...counts) > 0.8 * Math.max(...counts), `plans holding each kind over the shards: ${counts.join(', ')}`);
  const unsharded = K.map((k) => holding(fc.sample(planArb(o), { seed, numRuns: 4 * runs }), k));
  assert.ok(unsharded[2]! < 0.6 * Math.max(...unsharded), `unsharded, the kinds are uneven (partition ${unsharded[2]} of ${unsharded.join(', ')}), so the rotation is what evens them`);
  // Still disjoint, every aim's first plan once on a shard leading one of its kinds, and shard 2 of 4 drawn again the same.
  const keys = shards.flat().map((p) => JSON.stringify(p));
  assert.equal(new Set(keys).size, keys.length);
  const first = firstPlans(o, seed).map((p) => JSON.stringify(p));
  assert.equal(first.length, aimsFor(o).length);
  assert.deepEqual(keys.filter((k) => first.includes(k)).sort(), [...first].sort());
  assert.deepEqual(await shardPlans(seed, { index: 2, total: 4, from: 'test' }, runs, o), shards[1]);
});

// --- merge, on hand-made run dirs ---

const TEST = { lock: 'redis-set-px-lua', lock_spec: { name: 'redis-set-px-lua' }, model: 'mutex', faults: ['client-pause'], clients: 3, ttl_ms: 800, keys: 1, time_s: 60, versions: { lockpick: '0.1.0' }, plan: null };
const coverage = (o: Partial<{ runs: number; contended: number; pause: number; released: number }> = {}) => ({
  runs: o.runs ?? 10, conclusive: o.runs ?? 10, acquires: 20, okAcquires: 15, released: o.released ?? 15, contended: o.contended ?? 5,
  faultsApplied: { 'client-pause': o.pause ?? 8 }, inconclusiveReasons: {}, lockStats: {}, lockStatsPerOkAcquire: {},
});

function shardDir(root: string, index: number, total: number, results?: Record<string, unknown>, test: Record<string, unknown> = {}): string {
  const dir = join(root, `shard-${index}`, 'redis-set-px-lua', `2026112${index}-run`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'test.json'), JSON.stringify({ ...TEST, shard: { index, total, from: '--shard' }, ...test }));
  if (results) writeFileSync(join(dir, 'results.json'), JSON.stringify(results));
  return dir;
}
const safe = (c = coverage()) => ({ verdict: true, gaps: [], runs: c.runs, coverage: c, failures: [] });
const unsafe = (cls: string, nature = 'inherent', cdir = 'counterexample') => ({
  verdict: false, gaps: [], runs: 3, coverage: coverage(),
  failures: [{ class: cls, nature, cause: `${nature}: ${cls}`, kinds: ['client-pause'], anomalies: cls.split(' · ')[0]!.split(', '), runs: 1, counterexample: `/ci/elsewhere/${cdir}`, confirmed: true }],
});

test('merge: SAFE only with every shard SAFE and the coverage summed, not a shard\'s word for it', async () => {
  const root = tempDir('lockpick-merge-');
  for (let i = 1; i <= 3; i++) shardDir(root, i, 3, safe());
  const m = mergeShards([root]);
  assert.equal(m.verdict, true);
  assert.equal(m.exitCode, 0);
  assert.equal(m.coverage.runs, 30);
  assert.equal(m.coverage.faultsApplied['client-pause'], 24);
  // Each shard calls itself SAFE, yet none applied the fault: no promise.
  const none = tempDir('lockpick-merge-');
  for (let i = 1; i <= 2; i++) shardDir(none, i, 2, safe(coverage({ pause: 0 })));
  const n = mergeShards([none]);
  assert.equal(n.exitCode, 3);
  assert.match(n.gaps.join('\n'), /all shards together: fault 'client-pause' never took effect/);
  // Written out: results.json, junit.xml (the search as one passing case), index.html.
  const out = join(root, 'merged');
  await mergeRuns([root], { out });
  assert.equal(JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')).verdict, true);
  assert.match(readFileSync(join(out, 'junit.xml'), 'utf8'), /tests="1" failures="0" errors="0"/);
});

test('merge: a stored shard total past MAX_SHARDS is refused naming the file (merge names every missing shard: never 2^32 of them)', () => {
  const root = tempDir('lockpick-merge-');
  const dir = shardDir(root, 1, 2 ** 32, safe());
  usage(() => mergeShards([root]), new RegExp(`${join(dir, 'test.json').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: "shard" is not \\{"index": I, "total": N\\} with 1 ≤ I ≤ N ≤ ${MAX_SHARDS}`));
});

test('merge: a shard short only of kinds it does not lead is judged on the sum; short of anything else, or of a kind no shard applied, it is not', () => {
  const cov = (pause: number, kill: number, contended = 5) => ({ ...coverage({ pause, contended }), faultsApplied: { 'client-pause': pause, kill } });
  const kindGap = (k: string) => `fault '${k}' never took effect in a conclusive run`;
  const two = { faults: ['client-pause', 'kill'] };
  const root = tempDir('lockpick-merge-');
  shardDir(root, 1, 2, { verdict: 'unknown', gaps: [kindGap('kill')], runs: 10, coverage: cov(8, 0), failures: [] }, two);
  shardDir(root, 2, 2, { verdict: 'unknown', gaps: [kindGap('client-pause')], runs: 10, coverage: cov(0, 7), failures: [] }, two);
  const m = mergeShards([root]);
  assert.equal(m.exitCode, 0, m.gaps.join('\n'));
  assert.deepEqual(m.coverage.faultsApplied, { 'client-pause': 8, kill: 7 });
  const none = tempDir('lockpick-merge-');
  shardDir(none, 1, 2, { verdict: 'unknown', gaps: [kindGap('kill')], runs: 10, coverage: cov(8, 0), failures: [] }, two);
  shardDir(none, 2, 2, { verdict: 'unknown', gaps: [kindGap('kill'), 'no contention: no acquire met another client\'s hold'], runs: 10, coverage: cov(3, 0, 0), failures: [] }, two);
  const n = mergeShards([none]);
  assert.equal(n.exitCode, 3);
  assert.match(n.gaps.join('\n'), /shard 2\/2 .*inconclusive: .*no contention/);
  assert.doesNotMatch(n.gaps.join('\n'), /shard 1\/2/);
  const never = tempDir('lockpick-merge-');
  for (const i of [1, 2]) shardDir(never, i, 2, { verdict: 'unknown', gaps: [kindGap('kill')], runs: 10, coverage: cov(8, 0), failures: [] }, two);
  const k = mergeShards([never]);
  assert.equal(k.exitCode, 3);
  assert.deepEqual(k.gaps, ["all shards together: fault 'kill' never took effect in a conclusive run"]);
});

test('merge: a shard missing, killed (no results.json), interrupted or inconclusive makes it INCONCLUSIVE, naming the shard', () => {
  const root = tempDir('lockpick-merge-');
  shardDir(root, 1, 5, safe());
  shardDir(root, 2, 5);   // killed: no results.json
  shardDir(root, 4, 5, { verdict: 'unknown', gaps: ['no contention'], runs: 2, coverage: coverage({ contended: 0 }), failures: [] });
  shardDir(root, 5, 5, { verdict: 'unknown', interrupted: true, reason: 'SIGTERM', gaps: [], runs: 4, coverage: coverage(), failures: [] });
  const m = mergeShards([root]);
  assert.equal(m.exitCode, 3);
  const why = m.gaps.join('\n');
  assert.match(why, /shard 2\/5 .*no results\.json/);
  assert.match(why, /shard 3\/5: missing/);
  assert.match(why, /shard 4\/5 .*inconclusive: no contention/);
  assert.match(why, /shard 5\/5 .*interrupted \(SIGTERM\)/);
  assert.doesNotMatch(why, /shard 1\/5/);
});

test('merge: UNSAFE when any shard broke the lock; each distinct failure once, with its counterexample found where it was downloaded', async () => {
  const root = tempDir('lockpick-merge-');
  const d1 = shardDir(root, 1, 3, unsafe('double-holder, stale-release · client-pause'));
  mkdirSync(join(d1, 'counterexample'));
  writeFileSync(join(d1, 'counterexample', 'timeline.html'), '<html></html>');
  shardDir(root, 2, 3, unsafe('double-holder, stale-release · client-pause'));
  shardDir(root, 3, 3, unsafe('lost-update · client-pause', 'bug'));
  const out = join(root, 'merged');
  const m = await mergeRuns([join(root, 'shard-1'), join(root, 'shard-2'), join(root, 'shard-3')], { out });
  assert.equal(m.exitCode, 1);
  // A bug of this lock first, then what is inherent to its design.
  assert.deepEqual(m.failures.map((f) => [f.class, f.nature, f.shards, f.runs]), [
    ['lost-update · client-pause', 'bug', ['3/3'], 1],
    ['double-holder, stale-release · client-pause', 'inherent', ['1/3', '2/3'], 2],
  ]);
  m.failures.reverse();
  assert.equal(m.failures[0]!.timeline, join(d1, 'counterexample', 'timeline.html'));
  assert.equal(m.failures[0]!.replay, d1, 'the first counterexample replays from its run dir\'s test.json');
  const junit = readFileSync(join(out, 'junit.xml'), 'utf8');
  assert.equal(junit.match(/<testcase /g)?.length, 2, 'one test case per distinct failure');
  assert.match(junit, /name="double-holder, stale-release · client-pause"/);
  assert.match(readFileSync(join(out, 'index.html'), 'utf8'), /href="\.\.\/shard-1\/redis-set-px-lua\/20261121-run\/counterexample\/timeline\.html"/);
});

test('merge: shards of other versions, locks or options, a shard twice, or a run that is no shard are refused (exit 2 naming it)', () => {
  const mk = (test: Record<string, unknown>) => { const r = tempDir('lockpick-merge-'); shardDir(r, 1, 2, safe()); shardDir(r, 2, 2, safe(), test); return r; };
  usage(() => mergeShards([mk({ versions: { lockpick: '0.2.0' } })]), /"versions\.lockpick"/);
  usage(() => mergeShards([mk({ lock: 'redis-set-px-del' })]), /"lock"/);
  usage(() => mergeShards([mk({ ttl_ms: 900 })]), /"ttl_ms"/);
  usage(() => mergeShards([mk({ shard: { index: 2, total: 3 } })]), /"shard\.total"/);
  usage(() => mergeShards([mk({ shard: { index: 1, total: 2 } })]), /shard 1\/2 twice/);
  // The same run copied (store/<lock>/latest as an artifact upload follows it) is one shard, not two.
  const copied = mk({});
  const latest = join(copied, 'shard-2', 'redis-set-px-lua', 'latest');
  mkdirSync(latest);
  for (const f of ['test.json', 'results.json']) writeFileSync(join(latest, f), readFileSync(join(copied, 'shard-2', 'redis-set-px-lua', '20261122-run', f)));
  assert.deepEqual(mergeShards([copied]).shards.map((s) => s.dir), [join(copied, 'shard-1', 'redis-set-px-lua', '20261121-run'), join(copied, 'shard-2', 'redis-set-px-lua', '20261122-run')]);
  usage(() => mergeShards([mk({ shard: undefined })]), /"shard" is missing/);
  const bad = tempDir('lockpick-merge-');
  shardDir(bad, 1, 1, { verdict: 'maybe' });
  usage(() => mergeShards([bad]), /results\.json: "verdict"/);
  usage(() => mergeShards([tempDir('lockpick-merge-')]), /holds no run directory/);
});

test('merge writes through the output layer: --out that cannot be made exit 2 naming it, a full disk exit 3, no half file', async () => {
  const root = tempDir('lockpick-merge-');
  for (let i = 1; i <= 2; i++) shardDir(root, i, 2, safe());
  const inTheWay = join(root, 'a-file');
  writeFileSync(inTheWay, 'x');
  await assert.rejects(mergeRuns([root], { out: join(inTheWay, 'merged') }), (e: Error & { exitCode?: number }) => e.exitCode === 2 && /--out .*a-file/.test(e.message));
  if (existsSync('/dev/full')) {
    await assert.rejects(mergeRuns([root], { junit: '/dev/full' }), (e: Error & { exitCode?: number }) => e.exitCode === 3 && /\/dev\/full: .*no verdict could be delivered/s.test(e.message));
  }
  const out = join(root, 'merged');
  await mergeRuns([root], { out });
  assert.deepEqual(readdirSync(out).sort(), ['index.html', 'junit.xml', 'results.json'], 'no temporary file left beside them');
});

test('merge: the shards\' fault cells summed; a shard short of --min-coverage alone is judged on the sum', () => {
  const known = ['client-pause@in-critical-section/waiting', 'client-pause@in-critical-section/alone', 'client-pause@send:release:1/waiting', 'client-pause@send:release:1/alone'];
  const cells = (hits: Record<string, number>) => ({ known, hits, hit: 0, total: known.length, percent: 0, missing: [] });
  const gap = 'fault-space coverage 2 of 4 cells (50 %) is below --min-coverage 100 %; never hit: …';
  const root = tempDir('lockpick-merge-');
  shardDir(root, 1, 2, { verdict: 'unknown', gaps: [gap], runs: 10, coverage: { ...coverage(), cells: cells({ [known[0]!]: 3, [known[1]!]: 1 }) }, failures: [] }, { min_coverage: 100 });
  shardDir(root, 2, 2, { verdict: 'unknown', gaps: [gap], runs: 10, coverage: { ...coverage(), cells: cells({ [known[2]!]: 2, [known[3]!]: 1, [known[0]!]: 1 }) }, failures: [] }, { min_coverage: 100 });
  const m = mergeShards([root]);
  assert.equal(m.exitCode, 0, m.gaps.join('\n'));
  assert.deepEqual({ hit: m.coverage.cells!.hit, total: m.coverage.cells!.total, percent: m.coverage.cells!.percent }, { hit: 4, total: 4, percent: 100 });
  assert.equal(m.coverage.cells!.hits[known[0]!], 4);
  const short = tempDir('lockpick-merge-');
  for (const i of [1, 2]) shardDir(short, i, 2, { verdict: 'unknown', gaps: [gap], runs: 10, coverage: { ...coverage(), cells: cells({ [known[0]!]: 1 }) }, failures: [] }, { min_coverage: 100 });
  const n = mergeShards([short]);
  assert.equal(n.exitCode, 3);
  assert.match(n.gaps.join('\n'), /^all shards together: fault-space coverage 1 of 4 cells \(25 %\) is below --min-coverage 100 %; never hit: client-pause@in-critical-section\/alone/);
});

test('merge: an output that is an input or inside a shard\'s run dir, or that cannot be written, is refused before anything is read (exit 2); no shard file changes', async () => {
  const root = tempDir('lockpick-merge-');
  const dirs = [1, 2].map((i) => shardDir(root, i, 2, safe()));
  const before = readFileSync(join(dirs[0]!, 'results.json'), 'utf8');
  const refused = async (o: { out?: string; junit?: string }, word: RegExp, inputs = dirs) =>
    assert.rejects(mergeRuns(inputs, o), (e: Error & { exitCode?: number }) => e.exitCode === 2 && word.test(e.message) && !/\n\s+at /.test(e.message));
  await refused({ out: dirs[0] }, /--out .*: is the input .*shard-1.*\n {2}fix: give --out a directory outside the shards' run dirs/);
  await refused({ out: join(dirs[1]!, 'merged') }, /--out .*: is inside the shard's run dir .*shard-2/);
  await refused({ out: join(dirs[1]!, '..', '..', '..', 'shard-2', 'redis-set-px-lua', '20261122-run', 'x') }, /is inside the shard's run dir/);
  await refused({ junit: join(dirs[0]!, 'junit.xml') }, /--junit .*junit\.xml: is inside the shard's run dir/);
  await refused({ out: root }, /--out .*: is the input/, [root]);
  // Through a symlink to a run dir too.
  const link = join(tempDir('lockpick-merge-link-'), 'to-shard');
  symlinkSync(dirs[0]!, link);
  await refused({ out: link }, /is the input|is the shard's run dir/);
  if (existsSync('/proc/self')) await refused({ out: '/proc/lockpick-merged' }, /--out \/proc\/lockpick-merged: cannot create the directory: no directory can be made in \/proc/);
  const file = join(root, 'a-file');
  writeFileSync(file, 'x');
  await refused({ out: file }, /--out .*a-file: is a file, not a directory/);
  assert.equal(readFileSync(join(dirs[0]!, 'results.json'), 'utf8'), before, 'the shard\'s results.json untouched');
  assert.ok(!existsSync(join(dirs[0]!, 'index.html')));
  // Beside the shards in the folder holding them (a store): allowed, as docs/ci.md's recipes do.
  const m = await mergeRuns([root], { out: join(root, 'merged') });
  assert.equal(m.exitCode, 0);
});
