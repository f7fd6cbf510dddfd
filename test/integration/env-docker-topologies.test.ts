// --env docker beyond single Redis servers: the Sentinel ensemble, a 3-node
// ZooKeeper and MariaDB as containers on a private network, every node→node
// link (replication, Sentinel, quorum) through the fault proxy by a nat rule in
// each node's namespace. Random search only (no --replay, no fixed plan).
// Skipped, saying so, when no Docker engine answers.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { anomalyTypes, lockpick, tempStore, type CliResult } from './run-helpers.ts';
import { dockerSkip } from './docker-helpers.ts';
import { leftovers, removeLeftovers } from './docker-leftovers.ts';

const skip = dockerSkip('env-docker-topologies');

/** The nemesis events of the run's history whose f is `f`, with their values. */
function nemesis(r: CliResult, f: string): Record<string, unknown>[] {
  return readFileSync(path.join(r.summary!.dir, 'history.jsonl'), 'utf8').split('\n').filter(Boolean)
    .map((l) => JSON.parse(l) as { process?: unknown; f?: string; value?: Record<string, unknown> })
    .filter((e) => e.process === 'nemesis' && e.f === f).map((e) => e.value ?? {});
}

after(() => {
  if (skip) return;
  assert.deepEqual(removeLeftovers(), [], 'no container, network or volume is left after the tests');
});

test('docker: redis-sentinel + failover: random search finds the unreplicated-key double holder (exit 1)', { skip }, async () => {
  const r = await lockpick(['run', '--env', 'docker', '--lock', 'redis-sentinel', '--faults', 'failover', '--first-failure', '--time', '150', '--shrink-time', '5',
    '--store', tempStore(), '--json'], 400_000);
  assert.equal(r.code, 1, r.stderr);
  assert.ok(anomalyTypes(r).includes('double-holder'), `anomalies: ${anomalyTypes(r)}`);
  // The plans were sized by what the Sentinels in the containers said, not assumed.
  assert.match(r.stderr, /timescales read at start: Sentinel s\d: down-after-milliseconds 1000, failover-timeout 3000 \(a promotion planned within 8\.0 s\)/);
  // The failover really happened on the containers: Sentinel promoted another node.
  const promoted = nemesis(r, 'failover-start').filter((v) => typeof v.new_primary === 'string' && v.new_primary !== v.old_primary);
  assert.ok(promoted.length > 0, 'a failover promoted a replica');
  console.log(`sentinel failover under docker: first violation after ${r.summary!.firstAfterMs} ms of search`);
  assert.deepEqual(leftovers(), []);
});

test('docker: a 3-node ZooKeeper ensemble in containers; the Redis and ZooKeeper post\'s ZooKeeper code (afterWait=assume-held) is found UNSAFE', { skip }, async () => {
  const r = await lockpick(['run', '--env', 'docker', '--lock', 'zk-ephemeral-sequential', '--lock-opt', 'afterWait=assume-held',
    '--first-failure', '--time', '120', '--shrink-time', '5', '--store', tempStore(), '--json'], 400_000);
  assert.equal(r.code, 1, r.stderr);
  // As on local servers (run-zk-sessions.test.ts): no fault needed, a wait that runs out is enough.
  // The shrunk run may show the fencing symptom alone (stale-token); the first violation has the double holder.
  const first = [...anomalyTypes(r), ...((r.summary?.firstAnomalies ?? []) as { type: string }[]).map((a) => a.type)];
  assert.ok(first.includes('double-holder'), `anomalies: ${first}`);
  console.log(`zookeeper under docker: first violation after ${r.summary!.firstAfterMs} ms of search`);
  assert.deepEqual(leftovers(), []);
});

test("docker: ZooKeeper quorum links go through the proxy: partition 'leader' and pause 'leader' each get a new leader elected", { skip }, async () => {
  const { startEnv } = await import('../../src/env/env-kinds.ts');
  const { zookeeperMode } = await import('../../src/env/zookeeper.ts');
  const { createFault, processClients } = await import('../../nemesis/index.ts');
  const env = await startEnv({ kind: 'docker' }, 'zookeeper', { nodes: 3 });
  const events: { f: string; value: Record<string, unknown> }[] = [];
  const ctx = { env, clients: processClients(new Map()), record: (f: string, value: unknown) => events.push({ f, value: value as Record<string, unknown> }) };
  /** The node saying Mode: leader other than `not`, waiting up to 40 s for an election. */
  const newLeader = async (not?: string): Promise<string | undefined> => {
    for (let i = 0; i < 400; i++) {
      const modes = await Promise.all(env.nodes.map(async (n) => [n.id, await zookeeperMode(n.port, n.host)] as const));
      const id = modes.find(([nid, m]) => m === 'leader' && nid !== not)?.[0];
      if (id) return id;
      await new Promise((r) => setTimeout(r, 100));
    }
    return undefined;
  };
  try {
    assert.equal(env.links.filter((l) => !l.from.startsWith('client:')).length, 12, 'n→n quorum and election links, both ways');
    for (const kind of ['partition', 'pause']) {
      const before = await newLeader();
      assert.ok(before, 'a leader is elected');
      const f = createFault({ kind, at_ms: 0, target: 'leader' }, ctx);
      await f.start();
      try {
        const started = events.filter((e) => e.f === `${kind}-start`).at(-1)!.value as { nodes?: string[]; links?: string[] };
        if (kind === 'pause') assert.deepEqual(started.nodes, [before]);
        else assert.ok(started.links!.filter((l) => !l.startsWith('client:')).length === 8 && started.links!.every((l) => l.split('->').some((e) => e.replace(/:election$/, '') === before)), `the leader's links: ${started.links}`);
        assert.ok(await newLeader(before), `${kind} of leader ${before}: the two others elect a new leader`);
      } finally {
        await f.stop();
      }
    }
  } finally {
    await env.down();
  }
  assert.deepEqual(leftovers(), []);
});

test('docker: MariaDB in a container: mysql-get-lock + a partitioned holder whose session the server drops is found UNSAFE', { skip }, async () => {
  const r = await lockpick(['run', '--env', 'docker', '--lock', 'mysql-get-lock', '--faults', 'partition', '--clients', '3', '--first-failure', '--time', '90', '--shrink-time', '3',
    '--store', tempStore(), '--json'], 300_000);
  assert.equal(r.code, 1, r.stderr);
  const first = [...anomalyTypes(r), ...((r.summary?.firstAnomalies ?? []) as { type: string }[]).map((a) => a.type)];
  assert.ok(first.includes('double-holder'), `anomalies: ${first}`);
  console.log(`mariadb under docker: first violation after ${r.summary!.firstAfterMs} ms of search`);
  assert.deepEqual(leftovers(), []);
});
