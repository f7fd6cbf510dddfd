// The contract every registered aim keeps, and the shape each one promises:
// plans the nemesis accepts, built only from the kinds the aim composes, drawn
// only when all of them were asked for (a slot by any kind that fills it), and lined up as the failure needs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { checkSchedule, describeFault } from '../../nemesis/index.ts';
import { AIMS, aimsFor } from '../../src/workload/aims.ts';
import { planArb, type WorkloadOptions } from '../../src/workload/arbitraries.ts';
import { isAnchoredPause, validatePlan, type RunPlan } from '../../src/workload/plan.ts';
import { FAILOVER_LEASE_MS, failoverLeaseMs } from '../../src/workload/aims/sentinel-failover.ts';
import { aimKindWords, kindsFor, type Aim } from '../../src/workload/aim.ts';
import type { KindDef } from '../../nemesis/fault.ts';

/** Every registered kind that can fill each of the aim's faults (a slot such as `{ breaks: 'restart' }`: all that restart servers). */
const asked = (aim: Aim): string[] => aim.kinds.flatMap(kindsFor);

const FITS: WorkloadOptions[] = [
  { clients: 3, faults: [], ttlMs: 800, nodes: ['n1', 'n2', 'n3', 'n4', 'n5'], topology: 'redis' },
  { clients: 3, faults: [], ttlMs: 800, nodes: ['n1', 'n2', 'n3'], topology: 'redis-sentinel' },
  { clients: 3, faults: [], ttlMs: 800, nodes: ['n1'], topology: 'redis', points: ['after-compare', 'send', 'reply'] },
  { clients: 3, faults: [], ttlMs: 800, nodes: ['n1', 'n2', 'n3'], topology: 'zookeeper', sessionMs: 2000, renew: true, leased: false },
  // Learned from a calibration run: a Redlock's acquire (a SET and a reply per master), a GET-then-SET acquire.
  { clients: 3, faults: [], ttlMs: 800, nodes: ['n1', 'n2', 'n3', 'n4', 'n5'], topology: 'redis', grantedAcquireReplies: 5,
    points: ['in-critical-section', ...[1, 2, 3, 4, 5].map((k) => `reply:acquire:${k}`)] },
  { clients: 3, faults: [], ttlMs: 800, nodes: ['n1'], topology: 'redis', grantedAcquireSends: 2, points: ['in-critical-section', 'send:acquire:1', 'send:acquire:2'] },
  // A server whose locks live in client sessions (TopologyDef.leased false) that do not time out by themselves.
  { clients: 3, faults: [], ttlMs: 800, nodes: ['n1'], topology: 'postgres', leased: false },
  // A lock whose client keeps its lease alive (etcd's): holds may span several leases.
  { clients: 3, faults: [], ttlMs: 1000, nodes: ['n1', 'n2', 'n3'], topology: 'etcd', keepsAlive: true },
  // Its acquire as a calibration run saw it: 4 requests when the lock is free, more polls while it waits.
  { clients: 3, faults: [], ttlMs: 1000, nodes: ['n1', 'n2', 'n3'], topology: 'etcd', keepsAlive: true, grantedAcquireSends: 4,
    points: ['before-release', ...[1, 2, 3, 4, 5].map((k) => `send:acquire:${k}`)] },
  // A Redlock as a calibration run saw it: 5 SETs and 5 replies when the lock is free, its own point, a validity reported.
  { clients: 3, faults: [], ttlMs: 800, nodes: ['n1', 'n2', 'n3', 'n4', 'n5'], topology: 'redis', grantedAcquireSends: 5, grantedAcquireReplies: 5, reportsValidity: true,
    points: ['in-critical-section', 'before-write', 'before-release', 'before-validity-check', 'send:release:1', ...[1, 2, 3, 4, 5].flatMap((k) => [`send:acquire:${k}`, `reply:acquire:${k}`])] },
];

test('keep-alives lapse: c1 holds for 2-3 leases, its keep-alives cut in its critical section for all of it, c2 waiting', () => {
  const aim = AIMS.find((a) => a.name === 'keepalive-lapse')!;
  const o: WorkloadOptions = { clients: 3, faults: asked(aim), ttlMs: 1000, nodes: ['n1'], topology: 'etcd', keepsAlive: true };
  assert.ok(!aim.applies({ ...o, keepsAlive: false }), 'only where the client keeps its lease alive');
  fc.assert(fc.property(aim.plan(o), (plan) => {
    const [cut] = plan.faults;
    const [a1] = plan.clients[0]!.attempts;
    const [a2] = plan.clients[1]!.attempts;
    assert.deepEqual([cut!.kind, cut!.target, cut!.params], ['keepalive-cut', 'c1', { point: 'in-critical-section' }]);
    assert.ok(a1!.holdMs >= 2 * plan.ttlMs && cut!.duration_ms === a1!.holdMs, 'the cut lasts the hold, past the lease');
    assert.ok(a2!.delayMs > a1!.delayMs && a2!.delayMs + a2!.waitMs > a1!.delayMs + 1.5 * plan.ttlMs, 'c2 waits past the lapse');
  }), { numRuns: 100 });
});

test('holder vanished: c1 is cut off by a black hole in its critical section and dies while cut; c2 waits past the liveness bound after the death', () => {
  const aim = AIMS.find((a) => a.name === 'holder-vanished')!;
  const o: WorkloadOptions = { clients: 3, faults: asked(aim), ttlMs: 800, nodes: ['n1'], topology: 'postgres', leased: false };
  assert.ok(!aim.applies({ ...o, leased: true }), 'not on leases');
  assert.ok(!aim.applies({ ...o, topology: 'zookeeper', sessionMs: 2000 }), 'not where the session times out by itself');
  fc.assert(fc.property(aim.plan(o), (plan) => {
    const cut = plan.faults.find((f) => f.kind === 'partition')!;
    const kill = plan.faults.find((f) => f.kind === 'client-kill')!;
    assert.deepEqual([cut.target, cut.params], ['client:c1', { point: 'in-critical-section', mode: 'blackhole' }]);
    assert.equal(kill.target, 'c1');
    const [a1] = plan.clients[0]!.attempts;
    const [a2] = plan.clients[1]!.attempts;
    assert.ok(a2!.delayMs < kill.at_ms && kill.at_ms < a1!.delayMs + a1!.holdMs, 'c2 waits before c1 dies, in its hold');
    assert.ok(a2!.delayMs + a2!.waitMs - kill.at_ms > 2 * plan.ttlMs, "c2's wait outlasts the bound (2 leases) after the death");
    assert.ok(cut.duration_ms! > a2!.delayMs + a2!.waitMs, 'the cut outlasts the wait');
  }), { numRuns: 100 });
});

for (const aim of AIMS) {
  test(`aim '${aim.name}': valid plans of its own kinds, drawn only when they were all asked for`, () => {
    const o = FITS.map((f) => ({ ...f, faults: asked(aim) })).find((f) => aim.applies(f));
    assert.ok(o, `${aim.name} fits one of the test topologies`);
    assert.ok(aimsFor(o).includes(aim));
    for (const k of aim.kinds) assert.ok(!aimsFor({ ...o, faults: asked(aim).filter((x) => !kindsFor(k).includes(x)) }).includes(aim), `not drawn without '${aimKindWords(k)}'`);
    assert.ok(!aim.applies({ ...o, clients: 1 }), 'needs two clients');
    fc.assert(fc.property(aim.plan(o), (plan) => {
      validatePlan(plan, aim.name);
      assert.equal(plan.clients.length, o.clients);
      assert.ok(plan.faults.every((f) => asked(aim).includes(f.kind)), plan.faults.map((f) => f.kind).join());
      checkSchedule(plan.faults.filter((f) => !isAnchoredPause(f)));
      for (const f of plan.faults) assert.match(describeFault(f), /\d+ ms/);
    }), { numRuns: 100 });
  });
}

const reach = (plan: RunPlan, c: string, nodes: string[]) => {
  const cut = plan.faults.find((f) => f.kind === 'partition' && Array.isArray(f.target) && f.target[0] === `client:${c}`)!;
  return nodes.filter((n) => !(cut.target as string[]).includes(n));
};

test('redlock split: two majorities sharing exactly the node that forgets, c1 locks before it forgets, c2 after, inside the lease', () => {
  const nodes = ['n1', 'n2', 'n3', 'n4', 'n5'];
  for (const [name, kind] of [['redlock-split-restart', 'kill'], ['redlock-split-clock', 'clock-bump']] as const) {
    const aim = AIMS.find((a) => a.name === name)!;
    fc.assert(fc.property(aim.plan({ clients: 3, faults: asked(aim), ttlMs: 800, nodes, topology: 'redis' }), (plan) => {
      const r1 = reach(plan, 'c1', nodes);
      const r2 = reach(plan, 'c2', nodes);
      assert.equal(r1.length, 3);
      assert.equal(r2.length, 3);
      const shared = r1.filter((n) => r2.includes(n));
      const f = plan.faults.find((x) => x.kind === kind)!;
      assert.deepEqual(shared, [f.target]);
      const [a1] = plan.clients[0]!.attempts;
      const [a2] = plan.clients[1]!.attempts;
      assert.ok(a1!.delayMs < f.at_ms && f.at_ms < a1!.delayMs + a1!.holdMs, 'the node forgets during c1\'s hold');
      assert.ok(a2!.delayMs >= f.at_ms && a2!.delayMs < a1!.delayMs + a1!.holdMs, 'c2 tries after, while c1 holds');
      assert.ok(a1!.holdMs <= 0.7 * plan.ttlMs, 'c1 never outlives its lease by design');
      if (kind === 'kill') assert.equal(f.params!.persistence, 'none');
      else assert.ok((f.params!.delta_ms as number) > plan.ttlMs);
      assert.deepEqual(plan.clients[2]!.attempts, []);
    }), { numRuns: 200 });
  }
});

test('sentinel failover: c1 locks between the replication cut and the failover, holds past c2\'s try; the lease fits the promotion', () => {
  const aim = AIMS.find((a) => a.name === 'sentinel-failover-in-hold')!;
  const o: WorkloadOptions = { clients: 2, faults: ['failover'], ttlMs: 800, nodes: ['n1', 'n2', 'n3'], topology: 'redis-sentinel' };
  fc.assert(fc.property(aim.plan(o), (plan) => {
    assert.equal(plan.ttlMs, FAILOVER_LEASE_MS);
    const [f] = plan.faults;
    const lead = f!.params!.lead_ms as number;
    const [a1] = plan.clients[0]!.attempts;
    const [a2] = plan.clients[1]!.attempts;
    assert.ok(f!.at_ms < a1!.delayMs && a1!.delayMs < f!.at_ms + lead);
    assert.ok(a2!.delayMs > f!.at_ms + lead);
    assert.ok(a1!.delayMs + a1!.holdMs >= Math.min(a2!.delayMs + a2!.waitMs, a1!.delayMs + plan.ttlMs - 1000));
    assert.ok(a1!.holdMs <= plan.ttlMs - 1000);
  }), { numRuns: 200 });
  // --ttl given: the aim keeps it.
  for (const plan of fc.sample(aim.plan({ ...o, ttlMs: 20_000, ttlFixed: true }), 20)) assert.equal(plan.ttlMs, 20_000);
});

test('planArb mixes aimed and uniformly random plans when the kinds compose a known failure', () => {
  const o: WorkloadOptions = { clients: 3, faults: ['partition', 'kill'], ttlMs: 800, nodes: ['n1', 'n2', 'n3', 'n4', 'n5'], topology: 'redis' };
  const plans = fc.sample(planArb(o), { numRuns: 300, seed: 3 });
  const aimed = plans.filter((p) => p.faults.some((f) => Array.isArray(f.target) && f.target.length === 3)).length;
  assert.ok(aimed > 100 && aimed < 280, `${aimed} of 300 aimed`);
  // Kill alone composes nothing: every plan is the random kind.
  assert.equal(fc.sample(planArb({ ...o, faults: ['kill'] }), 100).filter((p) => p.faults.some((f) => f.kind === 'partition')).length, 0);
});

for (const [lag, keepsAlive] of [[0, false], [500, true]] as const) test(`stale release (servers acting ${lag} ms late on a lapsed lease${keepsAlive ? ', a lease kept alive' : ''}): c1 wakes inside its release after its lease ran out, while the first waiter to get the lock still holds and the other still waits`, () => {
  const aim = AIMS.find((a) => a.name === 'stale-release')!;
  const o: WorkloadOptions = { clients: 6, faults: ['client-pause'], ttlMs: 800, nodes: ['n1'], topology: 'redis', points: ['in-critical-section', 'after-compare', 'send', 'reply'], ...(lag ? { leaseLagMs: lag } : {}), keepsAlive };
  // Kept alive every third of a lease, c1's lease runs out as early as two thirds of a lease into its pause.
  const earliest = keepsAlive ? Math.ceil(o.ttlMs / 3) + lag : 0;
  fc.assert(fc.property(aim.plan(o), (plan) => {
    const [p] = plan.faults;
    assert.equal(p!.target, 'c1');
    assert.notEqual(p!.params!.point, 'in-critical-section');
    assert.match(String(p!.params!.point), /^(after-compare|send:release:[1-3])$/);
    const [a1] = plan.clients[0]!.attempts;
    const wake = a1!.delayMs + a1!.holdMs + p!.duration_ms!;
    const lapse = a1!.delayMs + plan.ttlMs + lag;   // when the servers have surely dropped c1's lease
    assert.ok(wake >= lapse + 100, 'wakes after its lease ran out and a 50 ms poll got the next holder in');
    const [c3] = plan.clients[2]!.attempts;
    const waiters = c3!.delayMs < lapse ? [1, 2] : [1];
    for (const c of waiters) {
      const [w] = plan.clients[c]!.attempts;
      assert.ok(w!.delayMs < lapse, 'waiting before the lease runs out');
      assert.ok(w!.delayMs + w!.waitMs > wake + 100, 'still waiting (or holding) when c1 wakes');
      assert.ok(lapse - earliest + w!.holdMs > wake + 50, 'the next holder still holds when c1 wakes, however early the lease ran out');
      if (!keepsAlive) assert.ok(w!.holdMs <= 0.7 * plan.ttlMs, 'within its own lease');
    }
    if (waiters.length === 1) {
      // Or c3 comes just after c1 wakes, while c2 (the only waiter, the next holder) still holds.
      const [w] = plan.clients[1]!.attempts;
      assert.ok(c3!.delayMs > wake - 60 && c3!.delayMs < wake + plan.ttlMs / 4, `c3 comes just after c1 wakes (${c3!.delayMs} vs ${wake})`);
      assert.ok(c3!.delayMs < lapse + w!.holdMs, 'inside c2\'s hold');
    }
    for (const c of [3, 4, 5]) assert.deepEqual(plan.clients[c]!.attempts, []);
  }), { numRuns: 200 });
  const thirds = fc.sample(aim.plan(o), 200).map((p) => p.clients[2]!.attempts[0]!.delayMs < p.clients[0]!.attempts[0]!.delayMs + p.ttlMs + lag);
  assert.ok(thirds.some((w) => w) && thirds.some((w) => !w), 'c3 waits all along in some plans and comes after c1 wakes in others');
  // Not for session locks, nor with only the critical section to pause in, nor with two clients.
  assert.ok(!aim.applies({ ...o, sessionMs: 4000 }));
  assert.ok(!aim.applies({ ...o, points: ['in-critical-section'] }));
  assert.ok(!aim.applies({ ...o, clients: 2 }));
});

for (const lag of [0, 500, 1500]) test(`waiter lapse (servers acting ${lag} ms late on a lapsed lease): c2 stops at a send only a waiting acquire makes, past its lease; c1 releases and c3 holds past c2's waking`, () => {
  const aim = AIMS.find((a) => a.name === 'waiter-lapse')!;
  // etcd-mutex as a calibration run saw it: a free lock's acquire sends 4 requests, a waiting one polls on.
  const o: WorkloadOptions = { clients: 3, faults: ['client-pause'], ttlMs: 1000, nodes: ['n1', 'n2', 'n3'], topology: 'etcd', keepsAlive: true,
    grantedAcquireSends: 4, points: ['before-release', ...[1, 2, 3, 4, 5].map((k) => `send:acquire:${k}`), 'send:release:1', 'send:release:2'], ...(lag ? { leaseLagMs: lag } : {}) };
  fc.assert(fc.property(aim.plan(o), (plan) => {
    const [p] = plan.faults;
    assert.deepEqual([p!.kind, p!.target, p!.params], ['client-pause', 'c2', { point: 'send:acquire:5' }]);
    const ttl = plan.ttlMs;
    const [a1] = plan.clients[0]!.attempts;
    const [a2] = plan.clients[1]!.attempts;
    const [a3] = plan.clients[2]!.attempts;
    assert.ok(p!.duration_ms! >= 2 * ttl, 'past its lease, and past a server that drops expired claims late');
    assert.ok(a2!.delayMs > a1!.delayMs && a2!.delayMs < a1!.delayMs + a1!.holdMs, 'c2 comes while c1 holds: it waits');
    // c2 falls asleep at its first waiting send: a poll soon after it comes, or its look at c1's release at the latest.
    const asleep = [a2!.delayMs, a1!.delayMs + a1!.holdMs] as const;
    assert.ok(asleep[1] - asleep[0] <= ttl / 8, 'c1 releases soon after c2 comes');
    assert.ok(a1!.delayMs + a1!.holdMs < a2!.delayMs + p!.duration_ms!, 'c1 releases while c2 is stopped');
    assert.ok(a3!.delayMs >= asleep[1] + ttl + lag && a3!.delayMs < asleep[0] + p!.duration_ms!, "c3 comes after c2's lease is surely gone on the servers, before c2 wakes");
    assert.ok(a3!.delayMs + a3!.holdMs > asleep[1] + p!.duration_ms! + 100, 'c3 still holds when c2 wakes, however late it fell asleep');
    assert.ok(a2!.delayMs + a2!.waitMs > asleep[1] + p!.duration_ms! + 100, 'c2 still waits when it wakes');
    for (const a of [a1!, a2!, a3!]) assert.ok(a.holdMs <= 0.7 * ttl, 'every hold within its lease (no keep-alive needed)');
  }), { numRuns: 200 });
  // Only where a waiting acquire sends more than a free lock's does, only for leases, only with a third client.
  assert.ok(!aim.applies({ ...o, grantedAcquireSends: 5 }));
  assert.ok(!aim.applies({ ...o, grantedAcquireSends: undefined }));
  assert.ok(!aim.applies({ ...o, leased: false }));
  assert.ok(!aim.applies({ ...o, sessionMs: 4000 }));
  assert.ok(!aim.applies({ ...o, clients: 2 }));
});

test('sentinel failover: sized by the promotion time the Sentinels said at start (a slower Sentinel gets a longer lease and a later second client)', () => {
  const aim = AIMS.find((a) => a.name === 'sentinel-failover-in-hold')!;
  const o: WorkloadOptions = { clients: 2, faults: ['failover'], ttlMs: 800, nodes: ['n1', 'n2', 'n3'], topology: 'redis-sentinel', promotionMs: 2 * (5000 + 10_000) };
  fc.assert(fc.property(aim.plan(o), (plan) => {
    assert.equal(plan.ttlMs, failoverLeaseMs(30_000));
    const [f] = plan.faults;
    const [a2] = plan.clients[1]!.attempts;
    const after = a2!.delayMs - f!.at_ms - (f!.params!.lead_ms as number);
    assert.ok(after >= 15_000 && after <= 30_000, `c2 comes ${after} ms after the primary went away`);
  }), { numRuns: 100 });
});

test('firstPlans: one plan per aim that fits, the aims composing more of the asked kinds first, the same for a seed', async () => {
  const { firstPlans, aimWeight } = await import('../../src/workload/arbitraries.ts');
  const o: WorkloadOptions = { ...FITS[0]!, faults: ['partition', 'kill'] };
  const aims = aimsFor(o);
  assert.ok(aims.length >= 3, aims.map((a) => a.name).join());
  const plans = firstPlans(o, 7);
  assert.equal(plans.length, aims.length);
  for (const p of plans) validatePlan(p, 'firstPlans');
  // The split whose shared master restarts composes both kinds: it is tried first, and weighs
  // more in the mix than an aim of one kind.
  const top = aims.reduce((a, b) => (aimWeight(b) > aimWeight(a) ? b : a));
  assert.deepEqual(top.kinds, ['partition', 'kill']);
  assert.deepEqual([...new Set(plans[0]!.faults.map((f) => f.kind))].sort(), ['kill', 'partition']);
  assert.ok(aimWeight(top) > Math.max(...aims.filter((a) => a.kinds.length === 1).map(aimWeight)));
  assert.deepEqual(firstPlans(o, 7), plans);
  // No aim fits (no faults): nothing to try first.
  assert.deepEqual(firstPlans({ ...o, faults: [] }, 7), []);
});

test('a lease the servers drop late (Timescales.leaseLagMs): the pauses aimed past a lease outlast the lag too, and the second client waits that long', () => {
  for (const name of ['lease-outlived', 'late-grant']) {
    const aim = AIMS.find((a) => a.name === name)!;
    for (const lag of [0, 500]) {
      const o: WorkloadOptions = { clients: 3, faults: ['client-pause'], ttlMs: 1000, nodes: ['n1'], topology: 'etcd', keepsAlive: true,
        points: ['in-critical-section', 'before-write', 'reply:acquire:1'], grantedAcquireReplies: 1, ...(lag ? { leaseLagMs: lag } : {}) };
      assert.ok(aim.applies(o), name);
      fc.assert(fc.property(aim.plan(o), (plan) => {
        const [p] = plan.faults;
        assert.ok(p!.duration_ms! > plan.ttlMs + lag, `${name}: a ${p!.duration_ms} ms pause outlasts the lease and the lag (${plan.ttlMs} + ${lag})`);
        const [a1] = plan.clients[0]!.attempts;
        const [a2] = plan.clients[1]!.attempts;
        assert.ok(a2!.delayMs + a2!.waitMs > a1!.delayMs + plan.ttlMs + lag, `${name}: c2 still waits when the servers drop c1's lease`);
      }), { numRuns: 100 });
    }
  }
});

test('stepped validity: c1\'s clock steps back inside its acquire of a free lock; it works past the lease plus the step; c2 waits past the lease', () => {
  const aim = AIMS.find((a) => a.name === 'stepped-validity')!;
  const o: WorkloadOptions = { clients: 3, faults: ['client-clock'], ttlMs: 800, nodes: ['n1', 'n2', 'n3', 'n4', 'n5'], topology: 'redis', grantedAcquireSends: 3, grantedAcquireReplies: 2, reportsValidity: true,
    points: ['in-critical-section', 'before-release', 'before-validity-check', ...[1, 2, 3, 4, 5].flatMap((k) => [`send:acquire:${k}`, `reply:acquire:${k}`]), 'send:release:1'] };
  assert.ok(!aim.applies({ ...o, reportsValidity: undefined }), 'only for a lock that reports its validity');
  assert.ok(!aim.applies({ ...o, leased: false }), 'not for session locks');
  assert.ok(!aim.applies({ ...o, keepsAlive: true }), 'not for a lock that keeps its lease alive');
  assert.ok(!aim.applies({ ...o, points: ['in-critical-section', 'before-release', 'send:release:1'] }), 'needs a point inside the acquire');
  const seen = new Set<string>();
  fc.assert(fc.property(aim.plan(o), (plan) => {
    const [step] = plan.faults;
    const [a1] = plan.clients[0]!.attempts;
    const [a2] = plan.clients[1]!.attempts;
    const ttl = plan.ttlMs;
    const point = String(step!.params!.point);
    seen.add(point);
    assert.deepEqual([plan.faults.length, step!.kind, step!.target, step!.at_ms], [1, 'client-clock', 'c1', 0]);
    // Only points an acquire of a free lock reaches: 3 sends, 2 replies; or the recipe's own point.
    assert.match(point, /^(send:acquire:[1-3]|reply:acquire:[12]|before-validity-check)$/);
    const back = -(step!.params!.delta_ms as number);
    assert.ok(back >= ttl / 2 && back <= 2 * ttl, `back by half a lease to two: ${back}`);
    assert.ok(a1!.holdMs > ttl + back, 'c1 would work past any validity it can be told');
    assert.ok(step!.duration_ms! > a1!.holdMs + ttl / 2, 'the step lasts past the hold');
    assert.ok(a2!.delayMs > a1!.delayMs && a2!.delayMs < a1!.delayMs + ttl, 'c2 comes while c1 holds');
    assert.ok(a2!.delayMs + a2!.waitMs > a1!.delayMs + ttl + 200, 'c2 waits past the lease');
    assert.ok(a2!.holdMs < ttl, "c2's own hold fits its lease");
  }), { numRuns: 200 });
  assert.ok(seen.has('send:acquire:1') && seen.has('reply:acquire:2') && seen.has('before-validity-check'), [...seen].join());
});

test('stepped release: the stale-release plan with c1\'s clock stepped back after its acquire, before it wakes, by more than its pause, until past its release', () => {
  const aim = AIMS.find((a) => a.name === 'stepped-release')!;
  const o: WorkloadOptions = { clients: 3, faults: ['client-pause', 'client-clock'], ttlMs: 800, nodes: ['n1'], topology: 'redis', points: ['before-release', 'send:release:1'] };
  assert.ok(!aim.applies({ ...o, sessionMs: 2000 }), 'not for session locks');
  assert.ok(!aim.applies({ ...o, points: ['in-critical-section'] }), 'needs a point inside the release');
  fc.assert(fc.property(aim.plan(o), (plan) => {
    const pause = plan.faults.find((f) => f.kind === 'client-pause')!;
    const step = plan.faults.find((f) => f.kind === 'client-clock')!;
    const [a1] = plan.clients[0]!.attempts;
    assert.match(String(pause.params!.point), /^(before-release|send:release:1)$/);
    assert.ok(pause.duration_ms! > plan.ttlMs - a1!.holdMs, 'asleep past its lease');
    assert.equal(step.target, 'c1');
    assert.equal(step.params!.point, undefined, 'timed: no point of its own');
    // After c1's acquire of the free lock (a quarter of a lease after it comes), before it wakes (past its lease).
    assert.ok(step.at_ms >= a1!.delayMs + plan.ttlMs / 4 && step.at_ms <= a1!.delayMs + plan.ttlMs / 2);
    const back = -(step.params!.delta_ms as number);
    assert.ok(back >= pause.duration_ms! + plan.ttlMs / 4, 'by its own clock, c1 wakes inside its lease');
    assert.ok(step.at_ms + step.duration_ms! >= a1!.delayMs + a1!.holdMs + pause.duration_ms! + plan.ttlMs / 2, 'the step lasts until past its release');
  }), { numRuns: 200 });
});

test('lease-restart is drawn for every topology that declares its restarts forget (not by name), its kill with persistence only where that is an option', async () => {
  const { TOPOLOGY_DEFS } = await import('../../src/env/topologies.ts');
  const restart = AIMS.find((a) => a.name === 'lease-restart')!;
  let forgetting = 0;
  for (const t of TOPOLOGY_DEFS) {
    const o: WorkloadOptions = { clients: 3, faults: ['kill'], ttlMs: 1000, nodes: ['n1'], topology: t.name, points: ['in-critical-section'] };
    const drawn = aimsFor(o).includes(restart);
    assert.equal(drawn, t.restartForgets !== 'never' && t.roles.data.length === 1, t.name);
    if (!drawn) continue;
    forgetting++;
    for (const plan of fc.sample(restart.plan(o), 5)) {
      const kill = plan.faults.find((f) => f.kind === 'kill')!;
      assert.equal(kill.params?.persistence, t.restartForgets === 'without-persistence' ? 'none' : undefined, t.name);
    }
  }
  assert.ok(forgetting >= 1, 'redis at least');
  assert.ok(!aimsFor({ clients: 3, faults: ['kill'], ttlMs: 1000, nodes: ['n1', 'n2', 'n3'], topology: 'redis-sentinel' }).includes(restart), 'a replicated topology: the failover aims');
});

test('lease-restart composes any kind asked for that restarts servers (KindDef.breaks), by that field: server-term alone gets the aimed plan', async () => {
  const { KINDS } = await import('../../nemesis/kinds.ts');
  const restart = AIMS.find((a) => a.name === 'lease-restart')!;
  const base = { clients: 3, ttlMs: 1000, nodes: ['n1'], points: ['in-critical-section'] };
  for (const topology of ['redis', 'memcached']) {
    const o: WorkloadOptions = { ...base, faults: ['server-term'], topology, forgetsAsStarted: true, restartDelayMs: 50 };
    assert.ok(aimsFor(o).includes(restart), topology);
    for (const plan of fc.sample(restart.plan(o), 20)) {
      const [f] = plan.faults;
      const [a1] = plan.clients[0]!.attempts;
      const [a2] = plan.clients[1]!.attempts;
      // The server restarts as started (no persistence param to choose) the moment c1 holds; c2 is already waiting.
      assert.deepEqual([f!.kind, f!.target, f!.params, f!.anchor], ['server-term', 'n1', { restart_delay_ms: 50 }, { client: 'c1', point: 'in-critical-section' }]);
      assert.ok(a2!.delayMs >= a1!.delayMs && a2!.delayMs + a2!.waitMs > a1!.delayMs + a1!.holdMs, 'c2 waits across c1\'s hold');
      checkSchedule(plan.faults.filter((x) => !isAnchoredPause(x)));
    }
  }
  // Servers started with persistence keep their holds over a graceful stop: no aim for it; a kill told persistence: none still forgets.
  const aof: WorkloadOptions = { ...base, faults: ['server-term'], topology: 'redis', forgetsAsStarted: false };
  assert.ok(!aimsFor(aof).includes(restart));
  const both = { ...aof, faults: ['server-term', 'kill'] };
  assert.ok(aimsFor(both).includes(restart));
  assert.deepEqual(new Set(fc.sample(restart.plan(both), 20).map((p) => p.faults[0]!.kind)), new Set(['kill']));
  // Both asked for on servers that forget: either is drawn.
  assert.deepEqual(new Set(fc.sample(restart.plan({ ...both, forgetsAsStarted: true }), 60).map((p) => p.faults[0]!.kind)), new Set(['kill', 'server-term']));
  // A throwaway kind that declares it restarts servers fills the slot too; one that declares nothing does not.
  const throwaway = (kind: string, breaks?: 'restart'): KindDef => ({
    schema: { kind, summary: 'a throwaway of this test', target: 'a node', targetRequired: true, params: {} }, needs: [], scope: 'server', ...(breaks ? { breaks } : {}),
    create: () => ({ start: async () => {}, stop: async () => {} }), generate: () => fc.constant([]), describe: () => kind, band: () => kind,
  });
  const reboot = throwaway('reboot', 'restart');
  const nap = throwaway('nap');
  const kinds = KINDS as KindDef[];
  kinds.push(reboot, nap);
  try {
    assert.ok(aimsFor({ ...base, faults: ['reboot'], topology: 'memcached' }).includes(restart));
    assert.ok(!aimsFor({ ...base, faults: ['nap'], topology: 'memcached' }).includes(restart));
    assert.equal(fc.sample(restart.plan({ ...base, faults: ['reboot', 'nap'], topology: 'memcached' }), 1)[0]!.faults[0]!.kind, 'reboot');
  } finally {
    for (const k of [reboot, nap]) kinds.splice(kinds.indexOf(k), 1);
  }
});
