// etcd locks on a real 3-member cluster (peer links through the proxy): the etcd3
// package's lease lock breaks when its holder is paused past its lease (Jepsen's etcd
// 3.4.3 finding), replayed from the demo's fixed plan; the same pause against the
// Go concurrency.Mutex algorithm fenced by the key's create revision keeps the
// resource right; the mutex without faults, and under member partitions, is safe.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { anomalyTypes, lockpick, repoRoot, tempStore } from './run-helpers.ts';

const replay = (scenario: string) => lockpick(['run', '--replay', path.join(repoRoot, 'scenarios', scenario), '--store', tempStore(), '--json'], 180_000);

test('etcd-lease-lock, holder paused 4 s past its 1 s lease: double holder (exit 1)', async () => {
  const r = await replay('etcd-lease-lock-pause');
  assert.equal(r.code, 1, `exit ${r.code}\n${r.stderr}`);
  assert.ok(anomalyTypes(r).includes('double-holder'), anomalyTypes(r).join(', '));
});

test('etcd-mutex-fenced, the same pause, --property resource: the create revision fences the stale write (exit 0)', async () => {
  const r = await replay('etcd-mutex-fenced-pause');
  assert.equal(r.code, 0, `exit ${r.code}\n${r.stderr}`);
  assert.match(r.stderr, /stale step\(s\) rejected by the fencing check/);
});

// keepalive-cut: only the holder's Lease connection is cut (its other calls go through); its lease
// lapses while it works on. Each replay is one run on a 3-member cluster (about 9 s with the start).
test('etcd-lease-lock, its keep-alive connection cut for 4 s while it holds: double holder (exit 1), its other links untouched', async () => {
  const r = await lockpick(['run', '--replay', path.join(repoRoot, 'scenarios', 'etcd-lease-lock-keepalive-cut'), '--store', tempStore(), '--json'], 120_000);
  assert.equal(r.code, 1, `exit ${r.code}\n${r.stderr}`);
  assert.ok(anomalyTypes(r).includes('double-holder'), anomalyTypes(r).join(', '));
  const start = readFileSync(path.join(r.summary!.dir, 'history.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { f: string; value?: { links?: string[] } })
    .find((e) => e.f === 'keepalive-cut-start');
  assert.deepEqual([...(start?.value?.links ?? [])].sort(), ['client:c1->n1:keepalive', 'client:c1->n2:keepalive', 'client:c1->n3:keepalive']);
});

test('etcd-mutex-fenced, the same keep-alive cut, --property resource: the stale write is refused (exit 0)', async () => {
  const r = await lockpick(['run', '--replay', path.join(repoRoot, 'scenarios', 'etcd-mutex-fenced-keepalive-cut'), '--runs', '1', '--store', tempStore(), '--json'], 120_000);
  assert.equal(r.code, 0, `exit ${r.code}\n${r.stderr}`);
  assert.match(r.stderr, /1 stale step\(s\) rejected by the fencing check/);
  assert.match(r.stderr, /faults applied: keepalive-cut 1/);
});

test('etcd-mutex without faults: safe (exit 0); the members\' timing and shortest lease read at start', async () => {
  // A number of runs, not a time: a loaded machine makes few runs in a fixed time, too few to meet contention.
  const r = await lockpick(['run', '--lock', 'etcd-mutex', '--first-failure', '--runs', '8', '--time', '90', '--shrink-time', '5', '--store', tempStore(), '--json'], 150_000);
  assert.equal(r.code, 0, `exit ${r.code}\n${r.stderr}`);
  // What lockpick's members run with (etcd.ts), read back from them, and the 800 ms default lease raised to the 1 s they grant.
  assert.match(r.stderr, /3 of 3 answered \/debug\/vars\): heartbeat 50 ms, election timeout 500 ms/);
  assert.match(r.stderr, /a lease asked for 1 s as 1 s/);
  assert.match(r.stderr, /lease: 1000 ms/);
});

test('etcd-mutex while the members are split (a minority cut off, then the leader isolated): safe (exit 0)', async () => {
  const dir = tempStore();
  const attempt = (delayMs: number) => ({ key: 'k0', delayMs, waitMs: 3000, holdMs: 300, renew: false });
  const plan = {
    ttlMs: 1000,
    // The last attempts come after both cuts have healed: a call to the cut-off minority member
    // times out (its outcome unknown) and a holder whose unlock did so keeps the lock until its lease
    // lapses, so the cut windows alone may hold no successful release, which a SAFE verdict needs.
    clients: [0, 1, 2].map((c) => ({ attempts: [attempt(c * 100), attempt(200), attempt(200), attempt(200), attempt(200), attempt(1500 + c * 400)] })),
    faults: [{ kind: 'partition', at_ms: 300, duration_ms: 1500, target: 'minority' }, { kind: 'partition', at_ms: 2500, duration_ms: 1500, target: 'leader' }],
  };
  writeFileSync(path.join(dir, 'test.json'), JSON.stringify({ lock: 'etcd-mutex', lock_spec: { name: 'etcd-mutex' }, property: 'lock', lock_options: {}, plan }));
  const r = await lockpick(['run', '--replay', dir, '--runs', '2', '--store', tempStore(), '--json'], 180_000);
  assert.equal(r.code, 0, `exit ${r.code}\n${r.stderr}`);
  const events = readFileSync(path.join(r.summary!.dir, 'history.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { process: unknown; f: string });
  assert.ok(events.filter((e) => e.process === 'nemesis' && e.f === 'partition-start').length >= 2, 'both partitions took effect');
});
