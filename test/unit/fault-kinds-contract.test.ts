// The contract every registered fault kind keeps (a new kind cannot be forgotten):
// its generator draws specs the nemesis accepts on every topology it applies to,
// each spec reads in words, and one-shot kinds carry no duration. Starting and
// healing each kind on real servers is test/integration/run-fault-kinds.test.ts.
import { test } from 'node:test';
import { cutPairs, parseGrudge } from '../../nemesis/grudge.ts';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { KINDS, checkFaultSpec, describeFault, planSchedule, specNeeds, topologyProblem } from '../../nemesis/index.ts';
import { checkKindOptions } from '../../src/options.ts';
import { UsageError } from '../../src/errors.ts';
import { faultArb, planArb } from '../../src/workload/arbitraries.ts';
import { isAnchoredPause } from '../../src/workload/plan.ts';
import { topologyDef, topologyNames } from '../../src/env/topologies.ts';
import { declared } from '../../src/env/topology.ts';

/** The data nodes drawn on for each topology: the largest shape of the built-ins, one node for any other (a new entry is checked too). */
const NODES: Record<string, string[]> = {
  redis: ['n1', 'n2', 'n3', 'n4', 'n5'], 'redis-sentinel': ['n1', 'n2', 'n3'], zookeeper: ['n1', 'n2', 'n3'], etcd: ['n1', 'n2', 'n3'],
};
const TOPOLOGIES: Record<string, string[]> = Object.fromEntries(topologyNames().map((t) => [t, NODES[t] ?? ['n1']]));

test('the kinds are drawn on every registered topology, the built-ins among them', () => {
  for (const t of ['redis', 'redis-sentinel', 'zookeeper', 'mariadb', 'postgres', 'postgres-pgbouncer', 'etcd']) assert.ok(topologyNames().includes(t), t);
  for (const t of Object.keys(NODES)) assert.ok(t in TOPOLOGIES, `${t}: a shape for a topology no longer registered`);
});

for (const def of KINDS) {
  const kind = def.schema.kind;
  test(`fault kind '${kind}': generated specs are valid, scheduled and said in words`, () => {
    const where = Object.keys(TOPOLOGIES).filter((t) => !topologyProblem(kind, t));
    assert.ok(where.length > 0, `${kind} applies to no topology`);
    for (const topology of where) {
      const o = { clients: 3, faults: [kind], ttlMs: 800, nodes: TOPOLOGIES[topology]!, points: ['in-critical-section', 'after-compare'], topology };
      fc.assert(fc.property(faultArb(kind, o), (group) => {
        assert.ok(group.length >= 1);
        assert.ok(group.some((s) => s.kind === kind), `the group holds a '${kind}' spec`);
        for (const s of group) {
          if (!isAnchoredPause(s)) checkFaultSpec(s);
          if (def.schema.oneShot && s.kind === kind) assert.equal(s.duration_ms, undefined);
          const words = describeFault(s);
          assert.match(words, /\d+ ms/, `${kind} says when: ${words}`);
          assert.ok(!words.includes('{') && !words.includes('undefined'), `${kind} reads in words: ${words}`);
        }
        planSchedule(group.filter((s) => !isAnchoredPause(s)));
      }), { numRuns: 60 });
      // Aimed where locks break: targets are the topology's nodes, a ZooKeeper ensemble's
      // leader (resolved at start), or the run's clients.
      // A grudge's targets are the endpoints it names (params.grudge, nemesis/grudge.ts).
      const targets = fc.sample(faultArb(kind, o), { numRuns: 60, seed: 1 }).flat().flatMap((s) => (s.target === undefined ? []
        : s.target === 'grudge' ? cutPairs(parseGrudge(String(s.params?.grudge))).flat() : [s.target].flat()));
      for (const t of targets) assert.ok(o.nodes.includes(t) || /^(client:)?c[1-3]$/.test(t) || (t === 'leader' && declared(topologyDef(topology)?.leader) !== undefined && o.nodes.length >= 3), `${kind} targets ${t}`);
    }
  });
}

test('a kind that acts on a lock connection applies only to a lock that declares it', () => {
  assert.match(topologyProblem('keepalive-cut', 'redis', [])!, /needs a lock with a 'keepalive' connection of its own \(LockRecipe.channels\); this lock has none/);
  assert.equal(topologyProblem('keepalive-cut', 'etcd', ['keepalive']), undefined);
  assert.equal(topologyProblem('partition', 'redis', []), undefined);
});

test('a kind that needs a topology says so; others apply everywhere', () => {
  assert.match(topologyProblem('failover', 'redis')!, /fault 'failover' needs a redis-sentinel topology; this lock runs on redis/);
  assert.equal(topologyProblem('failover', 'redis-sentinel'), undefined);
  assert.equal(topologyProblem('partition', 'zookeeper'), undefined);
});

test('kill forgets Redis keys (persistence none) but leaves other servers as started', () => {
  const redis = fc.sample(faultArb('kill', { clients: 2, faults: ['kill'], ttlMs: 800, nodes: ['n1'], topology: 'redis' }), 20).flat();
  assert.ok(redis.every((s) => s.params?.persistence === 'none'));
  const zk = fc.sample(faultArb('kill', { clients: 2, faults: ['kill'], ttlMs: 800, nodes: ['n1'], topology: 'zookeeper' }), 20).flat();
  assert.ok(zk.every((s) => s.params === undefined));
});

test("on a ZooKeeper ensemble, pause and partition also aim at the leader; not on one server, not on Redis", () => {
  const targetsOf = (kind: string, topology: string, nodes: string[]) =>
    fc.sample(faultArb(kind, { clients: 2, faults: [kind], ttlMs: 800, nodes, topology }), { numRuns: 200, seed: 7 }).flat().map((s) => s.target);
  for (const kind of ['pause', 'partition']) {
    assert.ok(targetsOf(kind, 'zookeeper', ['n1', 'n2', 'n3']).includes('leader'), `${kind} on zookeeper x3`);
    assert.ok(!targetsOf(kind, 'zookeeper', ['n1']).includes('leader'), `${kind} on one zookeeper server`);
    assert.ok(!targetsOf(kind, 'redis', ['n1', 'n2', 'n3']).includes('leader'), `${kind} on redis`);
  }
});

test('--restart-delay: every generated kill (and the Redlock restart aim) keeps its node down that long, and says so', async () => {
  const o = { clients: 2, faults: ['partition', 'kill'], ttlMs: 800, nodes: ['n1', 'n2', 'n3', 'n4', 'n5'], topology: 'redis', restartDelayMs: 1200 };
  const kills = fc.sample(planArb(o), { numRuns: 100, seed: 2 }).flatMap((p) => p.faults).filter((f) => f.kind === 'kill');
  assert.ok(kills.length > 20);
  for (const k of kills) {
    assert.deepEqual([k.params?.restart_delay_ms, k.params?.persistence], [1200, 'none']);
    assert.match(describeFault(k), /not before 1200 ms\) without persistence/);
  }
});

test('server-term: a graceful stop kept down --restart-delay too, restarting the node as it was started (no persistence param)', () => {
  const o = { clients: 2, faults: ['server-term'], ttlMs: 800, nodes: ['n1', 'n2'], topology: 'redis', restartDelayMs: 1200 };
  const terms = fc.sample(faultArb('server-term', o), { numRuns: 30, seed: 3 }).flat();
  for (const t of terms) {
    assert.deepEqual(t.params, { restart_delay_ms: 1200 });
    assert.match(describeFault(t), /stop \(SIGTERM\) node n[12], restart it after \d+ ms \(not before 1200 ms\)$/);
  }
  assert.deepEqual(specNeeds({ kind: 'server-term' }), ['term']);
});

test('a run option a kind takes (KindDef.takes) is refused without one of its kinds, named by each taker', async () => {
  const takers = KINDS.filter((k) => k.takes?.restartDelayMs).map((k) => k.schema.kind);
  assert.ok(takers.includes('kill') && takers.includes('server-term'), `takers: ${takers}`);
  for (const k of takers) await checkKindOptions({ restartDelayMs: 1000 }, [k], () => '--restart-delay', 'x');
  await checkKindOptions({ restartDelayMs: undefined }, ['partition'], () => '--restart-delay', 'x');
  await assert.rejects(checkKindOptions({ restartDelayMs: 1000 }, ['partition'], () => '--restart-delay', '--faults partition'),
    (e: Error) => e instanceof UsageError && takers.every((k) => e.message.includes(k)) && /^--restart-delay is an option of .*got --faults partition$/.test(e.message));
});

test('clock-reset comes after the jump it undoes, on the same node', () => {
  for (const g of fc.sample(faultArb('clock-reset', { clients: 2, faults: ['clock-reset'], ttlMs: 800, nodes: ['n1', 'n2'] }), 30)) {
    const [bump, reset] = g;
    assert.equal(bump!.kind, 'clock-bump');
    assert.equal(reset!.kind, 'clock-reset');
    assert.equal(bump!.target, reset!.target);
    assert.ok(reset!.at_ms > bump!.at_ms);
  }
});

test('every kind at once: plans stay valid schedules', () => {
  const all = KINDS.map((k) => k.schema.kind).filter((k) => !topologyProblem(k, 'redis'));
  fc.assert(fc.property(planArb({ clients: 3, faults: all, ttlMs: 800, nodes: ['n1'] }), (plan) => {
    planSchedule(plan.faults.filter((f) => !isAnchoredPause(f)));
  }), { numRuns: 100 });
});

test('an unknown kind has no generator: the error lists the known ones', () => {
  assert.throws(() => faultArb('gremlins', { clients: 1, faults: [], ttlMs: 800, nodes: ['n1'] }), /no fault kind 'gremlins' \(known: partition, latency/);
});

test('every kind declares the capabilities it needs, and a kind without them is refused', async () => {
  const { CAPABILITIES } = await import('../../src/env/capabilities.ts');
  const { LOCAL } = await import('../../src/env/env-kinds.ts');
  const { capabilityProblem, specNeeds } = await import('../../nemesis/kinds.ts');
  for (const def of KINDS) {
    const kind = def.schema.kind;
    assert.ok(Array.isArray(def.needs) && def.needs.length > 0, `${kind} declares needs`);
    for (const c of [...def.needs, ...Object.values(def.paramNeeds ?? {})]) assert.ok(Object.hasOwn(CAPABILITIES, c), `${kind} needs a known capability, got '${c}'`);
    for (const p of Object.keys(def.paramNeeds ?? {})) assert.ok(p in def.schema.params, `${kind}: paramNeeds names its own param, got '${p}'`);
    assert.equal(capabilityProblem(kind, LOCAL), undefined, `the local environment runs ${kind}`);
    const without = { name: 'bare', summary: '', capabilities: Object.keys(CAPABILITIES).filter((c) => !def.needs.includes(c as never)) as never[] };
    assert.match(capabilityProblem(kind, without)!, new RegExp(`fault '${kind}' needs '${def.needs[0]}' \\(.+\\), which the bare environment does not have`));
  }
  // A param can need more than its kind: kill with a persistence choice needs restart-persistence.
  assert.deepEqual(specNeeds({ kind: 'kill', params: { persistence: 'none' } }), ['kill', 'restart-persistence']);
  assert.deepEqual(specNeeds({ kind: 'kill' }), ['kill']);
  const killOnly = { name: 'k', summary: '', capabilities: ['kill'] as const };
  assert.match(capabilityProblem({ kind: 'kill', params: { persistence: 'none' } }, killOnly)!, /'restart-persistence'/);
});

// --parallel runs plans of client-scoped faults side by side: a kind that says 'client'
// must act through the run's own client processes only (its needs say so), never on a
// server, a link or a proxy that every run shares.
test('every kind declares its scope, and a client-scoped kind needs nothing but its client processes', () => {
  for (const def of KINDS) {
    const kind = def.schema.kind;
    assert.ok(def.scope === 'client' || def.scope === 'server', `${kind} declares scope 'client' or 'server', got ${String(def.scope)}`);
    assert.equal(def.scope === 'client', def.needs.every((c) => c === 'client-process'), `${kind}: scope '${def.scope}' with needs ${def.needs.join(', ')}`);
  }
  // The built-in client kinds stay client-scoped (a new kind is free to be either).
  for (const k of ['client-clock', 'client-kill', 'client-pause']) assert.equal(KINDS.find((d) => d.schema.kind === k)?.scope, 'client', k);
});

test('an anchored kind waits for a point only when its spec names one; the rest go to the nemesis by time', () => {
  const anchored = KINDS.filter((k) => k.anchored).map((k) => k.schema.kind).sort();
  assert.deepEqual(anchored.filter((k) => ['client-kill', 'client-pause', 'partition'].includes(k)), ['client-kill', 'client-pause', 'partition']);
  for (const def of KINDS.filter((k) => k.anchored)) {
    const kind = def.schema.kind;
    assert.equal(def.anchored!.is({ kind, at_ms: 0, target: 'client:c1' }), false, `${kind} without params.point`);
    assert.equal(def.anchored!.is({ kind, at_ms: 0, target: 'client:c1', params: { point: 'in-critical-section' } }), true, `${kind} at a point`);
  }
  // A partition anchors only when it cuts one client (a server cut waits for no client).
  assert.equal(KINDS.find((k) => k.schema.kind === 'partition')!.anchored!.is({ kind: 'partition', at_ms: 0, target: 'n1', params: { point: 'in-critical-section' } }), false);
});
