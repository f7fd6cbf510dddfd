// Partitions drawn as grudges over a topology's servers and clients (nemesis/grudge.ts): Jepsen's
// shapes, clients joining a side or reaching only k of n servers, and the links a grudge cuts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { cutPairs, describeGrudge, grudgeArb, grudgeText, parseGrudge, shapesFor } from '../../nemesis/grudge.ts';
import { kindDef } from '../../nemesis/kinds.ts';
import { resolveLinks } from '../../nemesis/targets.ts';
import { validateFaultSpec } from '../../nemesis/spec.ts';
import { SCHEMAS } from '../../nemesis/kinds.ts';
import type { Environment, Link } from '../../src/env/types.ts';
import type { FaultSpec, NemesisContext } from '../../nemesis/types.ts';

const masters = ['n1', 'n2', 'n3', 'n4', 'n5'];
const clients = ['c1', 'c2', 'c3'];
const sample = <T>(a: fc.Arbitrary<T>, n = 400) => fc.sample(a, { numRuns: n, seed: 7 });
const reach = (g: Map<string, Set<string>>, c: string, servers: string[]) => servers.filter((s) => !g.get(c)?.has(s));

test('a grudge reads and prints as FROM:TO items, each pair once; bad items are named', () => {
  const g = parseGrudge('c1:n4,n5  n1:n3 n3:n1');
  assert.deepEqual(cutPairs(g).map((p) => p.join('-')).sort(), ['c1-n4', 'c1-n5', 'n1-n3']);
  assert.equal(grudgeText(g), 'c1:n4,n5 n1:n3');
  assert.equal(grudgeText(parseGrudge(grudgeText(g))), 'c1:n4,n5 n1:n3');
  assert.throws(() => parseGrudge('c1->n4'), /grudge item 'c1->n4' is not FROM:TO/);
  assert.throws(() => parseGrudge('  '), /the grudge is empty/);
  assert.equal(describeGrudge(parseGrudge('c1:n4,n5'), masters), 'c1 reaches only n1,n2,n3');
});

test('shapes follow the structure: none on one server; rings only from five; no client, no shape', () => {
  assert.deepEqual(shapesFor({ servers: ['n1'], clients, peerLinks: false }), []);
  assert.deepEqual(shapesFor({ servers: masters, clients: [], peerLinks: false }), []);
  assert.deepEqual(shapesFor({ servers: ['n1', 'n2', 'n3'], clients, peerLinks: true }), ['isolated', 'halves', 'bridge', 'clients']);
  assert.ok(shapesFor({ servers: masters, clients, peerLinks: true }).includes('majorities-ring'));
});

test('independent masters: clients reach only a minority, and two clients split the votes', () => {
  const draws = sample(grudgeArb({ servers: masters, clients, peerLinks: false }));
  let minority = 0, split = 0;
  for (const { grudge } of draws) {
    // No peer links: only client links are cut, and something always is.
    assert.ok(grudge.size > 0);
    for (const from of grudge.keys()) assert.match(from, /^c\d$/);
    const r = clients.map((c) => reach(grudge, c, masters));
    if (r.some((x) => x.length > 0 && x.length <= 2)) minority++;
    // Two clients whose reachable masters do not overlap, each with 2 of 5 (a quorum of floor(n/2) lets both win).
    if (r.some((a, i) => r.some((b, j) => j > i && a.length === 2 && b.length === 2 && a.every((x) => !b.includes(x))))) split++;
  }
  assert.ok(minority / draws.length > 0.3, `a client reaches only a minority in ${minority} of ${draws.length} draws`);
  assert.ok(split > 5, `two clients with disjoint pairs of masters in ${split} of ${draws.length} draws`);
});

test('with peer links, server shapes cut between servers: halves, a bridge that sees both, a ring of majorities', () => {
  const draws = sample(grudgeArb({ servers: masters, clients: ['c1'], peerLinks: true }), 600);
  const seen = new Set<string>();
  for (const { shape, grudge } of draws) {
    seen.add(shape);
    const serverCut = cutPairs(grudge).filter(([a, b]) => !a.startsWith('c') && !b.startsWith('c'));
    const cutOf = (s: string) => serverCut.filter((p) => p.includes(s)).length;
    if (shape === 'halves') assert.equal(serverCut.length, 6);            // 2 × 3
    if (shape === 'isolated') assert.equal(serverCut.length, 4);
    if (shape === 'bridge') {
      assert.equal(serverCut.length, 4);                                   // 2 × 2, the bridge cut from nobody
      assert.equal(masters.filter((m) => cutOf(m) === 0).length, 1);
    }
    if (shape === 'majorities-ring') for (const m of masters) assert.equal(cutOf(m), 2, `${m} sees itself and two neighbours`);
  }
  assert.deepEqual([...seen].sort(), ['bridge', 'clients', 'halves', 'isolated', 'majorities-ring']);
});

test("the partition kind draws grudges on Redlock's masters, valid specs whose words say who reaches what", () => {
  const gen = kindDef('partition')!.generate({ ttlMs: 800, clients, nodes: masters, servers: masters, peerLinks: false, points: ['in-critical-section'], topology: 'redis' });
  const specs = sample(gen, 300).flat();
  const grudges = specs.filter((s) => s.target === 'grudge');
  assert.ok(grudges.length > specs.length / 3, `${grudges.length} of ${specs.length}`);
  for (const s of grudges) validateFaultSpec(s, SCHEMAS);
  const words = grudges.map((s) => kindDef('partition')!.describe(s));
  assert.ok(words.some((w) => /partition \((halves|clients|bridge|isolated|majorities-ring)\) c\d cut from n\d/.test(w)), words[0]);
  // One server: no grudge (a client cut from it is the plain client target).
  const one = sample(kindDef('partition')!.generate({ ttlMs: 800, clients, nodes: ['n1'], points: [], topology: 'redis' }), 50).flat();
  assert.ok(one.every((s) => s.target !== 'grudge'));
});

function fakeCtx(): NemesisContext {
  const ep = { id: 'x', host: '127.0.0.1', port: 1 };
  const links: Link[] = [];
  const nodes = ['n1', 'n2', 'n3'].map((id) => ({ id, role: 'redis' }));
  for (const a of nodes) for (const b of nodes) if (a !== b) links.push({ name: `${a.id}->${b.id}`, from: a.id, to: b.id, listen: ep, upstream: ep });
  const env = {
    topology: 'redis-sentinel', nodes, links, proxyUrl: '',
    async clientEndpoints(c: string) {
      for (const n of nodes) if (!links.some((l) => l.from === `client:${c}` && l.to === n.id)) links.push({ name: `client:${c}->${n.id}`, from: `client:${c}`, to: n.id, listen: ep, upstream: ep });
      return [];
    },
  } as unknown as Environment;
  return { env, clients: { ids: () => ['c1', 'c2'] } as NemesisContext['clients'], record() {} };
}

test('a grudge cuts exactly the links between its pairs, both directions, making client links first', async () => {
  const ctx = fakeCtx();
  const spec: FaultSpec = { kind: 'partition', at_ms: 0, duration_ms: 100, target: 'grudge', params: { grudge: 'c1:n3 n1:n3', shape: 'halves' } };
  const { links, shape } = await resolveLinks(spec, ctx);
  assert.deepEqual(links.map((l) => l.name).sort(), ['client:c1->n3', 'n1->n3', 'n3->n1']);
  assert.equal(shape, 'halves: c1 cut from n3; servers cut n1-/-n3');
  await assert.rejects(resolveLinks({ ...spec, params: { grudge: 'c9:n1' } }, ctx), /no client 'c9'/);
  await assert.rejects(resolveLinks({ ...spec, params: { grudge: 'c1:n7' } }, ctx), /no node 'n7'/);
  await assert.rejects(resolveLinks({ ...spec, target: ['grudge', 'n1'] }, ctx), /'grudge' stands alone/);
});

test('split-votes: two clients on two sides sized by the quorum, both acquiring during the cut', async () => {
  const { splitVotes } = await import('../../src/workload/aims/split-votes.ts');
  const o = { clients: 3, faults: ['partition'], ttlMs: 800, nodes: masters, servers: masters, peerLinks: false, topology: 'redis' };
  assert.ok(splitVotes.applies(o));
  assert.ok(!splitVotes.applies({ ...o, nodes: ['n1'], servers: ['n1'] }));
  const plans = sample(splitVotes.plan(o), 200);
  const sizes = new Set<string>();
  for (const p of plans) {
    const f = p.faults[0]!;
    validateFaultSpec(f, SCHEMAS);
    const g = parseGrudge(String(f.params!.grudge));
    const r1 = reach(g, 'c1', masters), r2 = reach(g, 'c2', masters);
    assert.ok([2, 3].includes(r1.length) && [2, 3].includes(r2.length));
    sizes.add(`${r1.length}+${r2.length}`);
    // The cut lasts past both clients' attempts, which start within TTL/8 of each other.
    const [a1, a2] = [p.clients[0]!.attempts[0]!, p.clients[1]!.attempts[0]!];
    assert.ok(f.at_ms === 0 && f.duration_ms! >= Math.max(a1.delayMs + a1.waitMs + a1.holdMs, a2.delayMs + a2.waitMs + a2.holdMs));
    assert.ok(Math.abs(a1.delayMs - a2.delayMs) <= 100);
  }
  assert.deepEqual([...sizes].sort(), ['2+2', '2+3', '3+2', '3+3']);
  // With peer links the servers of the two sides lose each other too.
  const zk = sample(splitVotes.plan({ ...o, nodes: ['n1', 'n2', 'n3'], servers: ['n1', 'n2', 'n3'], peerLinks: true, topology: 'zookeeper' }), 50);
  assert.ok(zk.some((p) => cutPairs(parseGrudge(String(p.faults[0]!.params!.grudge))).some(([a, b]) => a.startsWith('n') && b.startsWith('n'))));
});

test('torn-acquire: from a learned point in c1\'s acquire on, c1 reaches only a minority and c2 only the majority c1 lost', async () => {
  const { tornAcquire } = await import('../../src/workload/aims/torn-acquire.ts');
  const { validatePlan } = await import('../../src/workload/plan.ts');
  const learned = ['in-critical-section', 'send:acquire:1', 'reply:acquire:1', 'reply:acquire:2', 'reply:acquire:3', 'send:release:1'];
  const o = { clients: 3, faults: ['partition'], ttlMs: 800, nodes: masters, servers: masters, peerLinks: false, topology: 'redis', points: learned, grantedAcquireReplies: 3 };
  assert.ok(tornAcquire.applies(o));
  // Replies only a waiting acquire gets (none reached by a granted one) are never drawn.
  assert.ok(!tornAcquire.applies({ ...o, grantedAcquireReplies: 1 }));
  // Not without several learned replies of an acquire (nothing to tear), nor on one server.
  assert.ok(!tornAcquire.applies({ ...o, points: ['in-critical-section', 'reply:acquire:1'] }));
  assert.ok(!tornAcquire.applies({ ...o, nodes: ['n1'], servers: ['n1'] }));
  const points = new Set<string>();
  for (const p of sample(tornAcquire.plan(o), 200)) {
    validatePlan(p, 'torn-acquire');
    const f = p.faults[0]!;
    validateFaultSpec(f, SCHEMAS);
    assert.equal(f.anchor?.client, 'c1');
    points.add(f.anchor!.point);
    const g = parseGrudge(String(f.params!.grudge));
    const r1 = reach(g, 'c1', masters), r2 = reach(g, 'c2', masters);
    assert.ok(r1.length >= 1 && r1.length < 3, `c1 keeps a minority: ${r1}`);
    assert.deepEqual([...r2].sort(), masters.filter((m) => !r1.includes(m)).sort(), 'c2 reaches exactly what c1 lost');
    const [a1, a2] = [p.clients[0]!.attempts[0]!, p.clients[1]!.attempts[0]!];
    assert.ok(a2.delayMs > a1.delayMs && a2.waitMs >= 3 * 800, 'c2 comes after c1 and waits out its leases');
  }
  assert.deepEqual([...points].sort(), ['reply:acquire:1', 'reply:acquire:2', 'reply:acquire:3']);
});
