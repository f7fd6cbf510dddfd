// test-lane: beside (each shard starts its own redis-server; the verdict is a violation both find in seconds)
// One search as two shards, run as local processes the way CI engines start them (GitLab's
// variables for one, a Kubernetes Indexed Job's for the other), then merged into one verdict.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { lockpick, runDirs, tempStore } from './run-helpers.ts';

const NO_ENGINE = { CI_NODE_INDEX: '', CI_NODE_TOTAL: '', BUILDKITE_PARALLEL_JOB: '', BUILDKITE_PARALLEL_JOB_COUNT: '', JOB_COMPLETION_INDEX: '', LOCKPICK_SHARD_TOTAL: '' };

test('2 shards of redis-set-px-del under client pauses (GitLab and Kubernetes variables) merge to UNSAFE, each failure once', async () => {
  const stores = [tempStore(), tempStore()];
  const run = ['run', '--lock', 'redis-set-px-del', '--faults', 'client-pause', '--time', '10', '--shrink-time', '5', '--seed', '11', '--json'];
  const [a, b] = await Promise.all([
    lockpick([...run, '--shard', 'auto', '--store', stores[0]!], 150_000, { ...NO_ENGINE, CI_NODE_INDEX: '1', CI_NODE_TOTAL: '2' }),
    lockpick([...run, '--shard-total', '2', '--store', stores[1]!], 150_000, { ...NO_ENGINE, JOB_COMPLETION_INDEX: '1' }),
  ]);
  assert.match(a.stderr, /shard 1\/2 \(from CI_NODE_INDEX\/CI_NODE_TOTAL \(GitLab\)\)/);
  assert.match(b.stderr, /shard 2\/2 \(from JOB_COMPLETION_INDEX \(Kubernetes\) of --shard-total\)/);
  for (const [r, store, index] of [[a, stores[0]!, 1], [b, stores[1]!, 2]] as const) {
    const [dir] = runDirs(store);
    assert.ok(dir, `shard ${index} wrote no run dir\n${r.stderr}`);
    assert.deepEqual(JSON.parse(readFileSync(path.join(dir, 'test.json'), 'utf8')).shard.index, index);
    assert.equal(JSON.parse(readFileSync(path.join(dir, 'results.json'), 'utf8')).shard.total, 2);
  }
  const found = [a, b].filter((r) => r.code === 1).length;
  assert.ok(found >= 1, `no shard found the DEL unlock's violation: exits ${a.code}, ${b.code}`);

  const out = path.join(stores[0]!, 'merged');
  const m = await lockpick(['merge', ...stores, '--out', out, '--json'], 30_000);
  assert.equal(m.code, 1, m.stderr);
  const merged = JSON.parse(m.stdout) as { verdict: unknown; failures: { class: string; shards: string[]; timeline?: string }[]; shards: unknown[] };
  assert.equal(merged.verdict, false);
  assert.equal(merged.shards.length, 2);
  const classes = merged.failures.map((f) => f.class);
  assert.ok(classes.length >= 1 && new Set(classes).size === classes.length, `each distinct failure once: ${classes.join(' | ')}`);
  const violating = [a, b].flatMap((r, i) => (r.code === 1 ? [`${i + 1}/2`] : []));
  assert.deepEqual([...new Set(merged.failures.flatMap((f) => f.shards))].sort(), violating, 'every violating shard counted under its failures');
  assert.ok(merged.failures.every((f) => f.timeline), 'each failure links its timeline');
  const junit = readFileSync(path.join(out, 'junit.xml'), 'utf8');
  assert.equal(junit.match(/<failure /g)?.length, classes.length);
  assert.match(readFileSync(path.join(out, 'index.html'), 'utf8'), /timeline\.html/);
});

test('2 shards of redis-set-px-lua reporting its validity (--lock-opt validity=reported) under client pauses merge to SAFE for the lock, the coverage summed', async () => {
  const stores = [tempStore(), tempStore()];
  const run = ['run', '--lock', 'redis-set-px-lua', '--lock-opt', 'validity=reported', '--property', 'lock', '--faults', 'client-pause', '--time', '12', '--seed', '5', '--json'];
  const shards = await Promise.all([1, 2].map((i) => lockpick([...run, '--shard', `${i}/2`, '--store', stores[i - 1]!], 150_000, NO_ENGINE)));
  // A shard's own verdict is SAFE, or INCONCLUSIVE for a gap the other shard may fill (never UNSAFE: a careful client stops at the validity).
  for (const r of shards) assert.ok(r.code === 0 || r.code === 3, `a shard exited ${r.code}\n${r.stderr.slice(-2000)}`);
  const m = await lockpick(['merge', ...stores, '--out', path.join(stores[0]!, 'merged'), '--json'], 30_000);
  type Outcomes = { ops: { acquire: { ok: number; fail: number; info: number } } };
  const merged = JSON.parse(m.stdout) as { verdict: unknown; gaps: string[]; coverage: { runs: number; contended: number; faultsApplied: Record<string, number>; outcomes: Outcomes }; shards: { runs: number }[] };
  assert.equal(m.code, 0, `merged: ${m.stderr}`);
  assert.equal(merged.verdict, true);
  assert.equal(merged.coverage.runs, merged.shards.reduce((n, s) => n + s.runs, 0), 'the runs summed');
  // Every outcome summed too (issue 41): the shards' acquire outcomes, from their --json summaries.
  const acquires = shards.map((r) => (r.summary as unknown as { coverage: { outcomes: Outcomes } }).coverage.outcomes.ops.acquire);
  assert.deepEqual(merged.coverage.outcomes.ops.acquire, { ok: acquires[0]!.ok + acquires[1]!.ok, fail: acquires[0]!.fail + acquires[1]!.fail, info: acquires[0]!.info + acquires[1]!.info });
  assert.ok(merged.coverage.outcomes.ops.acquire.ok > 0);
  assert.ok(merged.coverage.faultsApplied['client-pause']! > 0 && merged.coverage.contended > 0);
});
