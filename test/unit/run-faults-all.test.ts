// `--faults all`: every kind the lock's topology and the environment kind can do, no more.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { allFaults, parseFaults, recipeFor, refuseTopologyFaults } from '../../src/options.ts';
import { KINDS } from '../../nemesis/index.ts';

test("'all' expands per topology and environment kind; it stands alone", async () => {
  const redis = await allFaults(await parseFaults('all'), await recipeFor({ name: 'redis-set-px-lua' }), 'local');
  for (const k of ['partition', 'pause', 'kill', 'clock-bump', 'client-pause', 'client-kill']) assert.ok(redis.includes(k), k);
  assert.ok(!redis.includes('failover'), 'failover needs redis-sentinel');
  assert.ok(!redis.includes('keepalive-cut'), 'keepalive-cut needs a lock with a keepalive connection');
  assert.ok((await allFaults(['all'], await recipeFor({ name: 'etcd-lease-lock' }), 'local')).includes('keepalive-cut'), 'etcd-lease-lock has one');
  const sentinel = await allFaults(['all'], await recipeFor({ name: 'redis-sentinel' }), 'local');
  assert.deepEqual(sentinel, KINDS.map((k) => k.schema.kind).filter((k) => k === 'failover' || redis.includes(k)));
  const external = await allFaults(['all'], await recipeFor({ name: 'redis-set-px-lua' }), 'external');
  assert.ok(external.includes('client-pause') && !external.includes('kill') && !external.includes('pause'), external.join());
  assert.deepEqual(await allFaults(['kill'], await recipeFor({ name: 'redis-set-px-lua' }), 'local'), ['kill']);
  await assert.rejects(parseFaults('all,kill'), /--faults all stands alone/);
});

test("'all' leaves out a kind the lock lacks: client-clock for a process client whose runtime reads its clock without libc", async () => {
  const { resolve } = await import('node:path');
  const go = await allFaults(['all'], await recipeFor({ path: resolve('test/fixtures/process-clients/go-binary.json') }), 'local');
  assert.ok(!go.includes('client-clock') && go.includes('client-pause'), go.join());
  const python = await allFaults(['all'], await recipeFor({ name: 'exec:/usr/bin/python3 x.py' }), 'local');
  assert.ok(python.includes('client-clock'), python.join());
});

test('a server clock fault is refused where holds expire by another clock (TopologyDef.expiryClock), and left out of all', async () => {
  const { topologyProblem } = await import('../../nemesis/index.ts');
  const { TOPOLOGY_DEFS } = await import('../../src/env/topologies.ts');
  for (const t of TOPOLOGY_DEFS) {
    for (const k of ['clock-bump', 'clock-strobe', 'clock-reset']) {
      const p = topologyProblem(k, t.name);
      if (t.expiryClock === 'wall') assert.equal(p, undefined, `${k} on ${t.name}`);
      else assert.match(p ?? '', new RegExp(`fault '${k}' moves the servers' wall clock, and ${t.name}'s holds expire by .*: it would change nothing there`), `${k} on ${t.name}`);
    }
  }
  // etcd's lessor: Go's monotonic clock, read without libc; declared by what it is, not by the server's name.
  assert.match(topologyProblem('clock-bump', 'etcd') ?? '', /its own clock, which it reads without libc .*so the clock shim cannot move it/);
  assert.match(topologyProblem('clock-bump', 'memcached') ?? '', /its own monotonic clock/);
  assert.match(topologyProblem('clock-bump', 'zookeeper') ?? '', /server sessions/);
  const etcd = await allFaults(['all'], await recipeFor({ name: 'etcd-lease-lock' }), 'local');
  assert.ok(!etcd.includes('clock-bump') && etcd.includes('kill') && etcd.includes('client-clock'), etcd.join());
  await assert.rejects(refuseTopologyFaults(['clock-bump'], await recipeFor({ name: 'etcd-lease-lock' })), /--faults: fault 'clock-bump' moves the servers' wall clock, and etcd's holds expire by its own clock, which it reads without libc/);
});
