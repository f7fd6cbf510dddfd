import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { planArb, type WorkloadOptions } from '../../src/workload/arbitraries.ts';
import { aimsFor } from '../../src/workload/aims.ts';
import { anchoredClient, describeFault, describePlan, planOps, validatePlan, isAnchoredPause, type RunPlan } from '../../src/workload/plan.ts';
import { checkSchedule } from '../../nemesis/index.ts';
import { KINDS } from '../../nemesis/kinds.ts';
import { validateFaultSpec } from '../../nemesis/spec.ts';

const base: WorkloadOptions = { clients: 3, faults: ['client-pause', 'client-clock', 'clock-bump', 'kill', 'pause', 'partition', 'latency'], ttlMs: 800, nodes: ['n1'], points: ['in-critical-section', 'after-compare'] };
// The same kinds where no aim fits (a Sentinel group without its failover kind, no named point an aim may anchor at:
// pauses still land in the critical section, the generator's default; no client clocks, which an aim skews on any
// topology): uniformly random plans only.
const unaimed: WorkloadOptions = { ...base, faults: base.faults.filter((k) => k !== 'client-clock'), topology: 'redis-sentinel', nodes: ['n1', 'n2'], points: [] };

test('the unaimed options draw no aim; the base ones do (aims have their own contract: workload-aims.test.ts)', () => {
  assert.deepEqual(aimsFor(unaimed).map((a) => a.name), []);
  assert.deepEqual(aimsFor(base).map((a) => a.name).sort(), ['lease-clock-jump', 'lease-outlived', 'lease-restart', 'skewed-clock', 'stale-release', 'stepped-release']);
  // Aimed or not, every plan is valid and keeps every hold inside its lease.
  fc.assert(fc.property(planArb(base), (plan) => {
    validatePlan(plan, 'generated');
    for (const c of plan.clients) for (const a of c.attempts) assert.ok(a.holdMs <= 0.7 * plan.ttlMs && a.waitMs <= 2 * plan.ttlMs);
    checkSchedule(plan.faults.filter((f) => !isAnchoredPause(f)));
  }), { numRuns: 200 });
});

test('generated plans are valid, bounded, and their faults are aimed beyond the lease', () => {
  fc.assert(fc.property(planArb(unaimed), (plan) => {
    validatePlan(plan, 'generated');
    assert.equal(plan.clients.length, 3);
    assert.ok(plan.faults.length >= 1 && plan.faults.length <= 2);
    // Holds inside the lease; waits mostly outlast a holder, some run out first (≤ TTL/4).
    for (const c of plan.clients) for (const a of c.attempts) assert.ok(a.holdMs <= 200 && (a.waitMs >= 400 || a.waitMs <= 200) && a.waitMs <= 1600);
    for (const f of plan.faults) {
      if (f.kind === 'clock-bump' || f.kind === 'client-clock') assert.ok(Math.abs(f.params!.delta_ms as number) > 800);
      if (f.kind === 'client-pause') assert.ok(['c1', 'c2', 'c3'].includes(f.target as string) && isAnchoredPause(f));
    }
    // Everything but the anchored client pauses is a schedule the nemesis accepts.
    checkSchedule(plan.faults.filter((f) => !isAnchoredPause(f)));
  }), { numRuns: 200 });
});

test('no faults asked: no faults generated', () => {
  fc.assert(fc.property(planArb({ ...base, faults: [] }), (plan) => plan.faults.length === 0), { numRuns: 50 });
});

test('a violation shrinks to few operations and one fault', () => {
  // Stand-in property for "unsafe": some client pauses and some attempt holds ≥ 50 ms.
  const unsafe = (p: RunPlan) => p.faults.some((f) => f.kind === 'client-pause') && p.clients.some((c) => c.attempts.some((a) => a.holdMs >= 50));
  const r = fc.check(fc.property(planArb(unaimed), (p) => !unsafe(p)), { seed: 7, numRuns: 500 });
  assert.ok(r.failed);
  const min = r.counterexample![0];
  assert.equal(min.faults.length, 1);
  // fast-check's own shrinking of the arbitrary (lockpick's shrinker, src/runner/shrink.ts, goes further):
  // one attempt, or two it cannot drop (seeds 1-10: 2 or 4 operations).
  assert.ok(planOps(min) <= 4, `${planOps(min)} operations`);
  assert.match(describePlan(min), /pause client c\d for \d+ ms the next time it reaches/);
});

test('validatePlan names the place and the fix', () => {
  assert.throws(() => validatePlan({ ttlMs: 800, clients: [{ attempts: [{ key: 'k0' }] }], faults: [] }, 'x/test.json'),
    /x\/test\.json: plan\.clients\[0\]\.attempts\[0\]\.delayMs: must be a number of milliseconds; got nothing \(the field is missing\)\n {2}fix:/);
  assert.throws(() => validatePlan(null, 'y'), /y: plan: is missing or not an object/);
});

test('re-entry: only reentrant locks get it; it counts two operations and reads in words', () => {
  const plain = fc.sample(planArb(base), { numRuns: 50, seed: 4 });
  assert.ok(plain.every((p) => p.clients.every((c) => c.attempts.every((a) => !('reenter' in a)))));
  const re = fc.sample(planArb({ ...base, reentrant: true }), { numRuns: 50, seed: 4 });
  const attempts = re.flatMap((p) => p.clients.flatMap((c) => c.attempts));
  assert.ok(attempts.some((a) => a.reenter === true) && attempts.some((a) => a.reenter === false));
  const one: RunPlan = { ttlMs: 800, clients: [{ attempts: [{ key: 'k0', delayMs: 0, waitMs: 800, holdMs: 10, renew: false, reenter: true }] }], faults: [] };
  assert.equal(planOps(one), 4);
  assert.match(describePlan(one), /lock 'k0' .*lock it again and unlock \(re-entry\)/);
  assert.throws(() => validatePlan({ ...one, clients: [{ attempts: [{ ...one.clients[0]!.attempts[0], reenter: 'yes' }] }] }, 'p'), /p: plan\.clients\[0\]\.attempts\[0\]\.reenter: must be true or false/);
});

test('session locks: partitions anchored in the critical section outlast the session; renew in every attempt; some waits run out early', () => {
  const o: WorkloadOptions = { ...base, faults: ['partition'], topology: 'zookeeper', nodes: ['n1', 'n2', 'n3'], sessionMs: 2000, renew: true };
  const plans = fc.sample(planArb(o), { numRuns: 200, seed: 3 });
  // Client-anchored partitions (params.point); event-anchored server faults (anchor) are tested below.
  const anchored = plans.flatMap((p) => p.faults).filter((f) => isAnchoredPause(f) && !f.anchor);
  assert.ok(anchored.length > 20, `${anchored.length} anchored partitions`);
  for (const f of anchored) {
    assert.equal(f.kind, 'partition');
    assert.match(String(f.target), /^client:c[1-3]$/);
    assert.ok(f.duration_ms! > 2000 + 500, `cut for ${f.duration_ms} ms: not past the session timeout`);
  }
  const attempts = plans.flatMap((p) => p.clients.flatMap((c) => c.attempts));
  assert.ok(attempts.every((a) => a.renew));
  assert.ok(attempts.some((a) => a.waitMs < 200) && attempts.some((a) => a.waitMs > 3000));
  // Redis keeps its timed partitions only: a leased lock's hold never outlives its lease by design.
  const redis = fc.sample(planArb({ ...base, faults: ['partition'] }), { numRuns: 100, seed: 3 });
  assert.ok(redis.every((p) => p.faults.every((f) => !isAnchoredPause(f) || f.anchor)));
});

test('event anchors: a server fault sometimes starts when a client reaches a point (its acquire returned, k servers answered it); valid, in words', () => {
  // A Sentinel group without its failover kind: no aim applies, so every fault comes from its kind.
  const o: WorkloadOptions = { ...base, topology: 'redis-sentinel', faults: ['kill', 'pause', 'partition'], nodes: ['n1', 'n2'], points: ['in-critical-section', 'send', 'reply'] };
  const faults = fc.sample(planArb(o), { numRuns: 300, seed: 5 }).flatMap((p) => p.faults);
  const anchored = faults.filter((f) => f.anchor);
  assert.ok(anchored.length > faults.length / 10 && anchored.length < faults.length / 2, `${anchored.length} of ${faults.length} anchored`);
  const points = new Set(anchored.map((f) => f.anchor!.point));
  for (const p of ['in-critical-section', 'reply:acquire:1', 'reply:acquire:2', 'send:release:1']) assert.ok(points.has(p), `anchored at '${p}': ${[...points]}`);
  for (const f of anchored) {
    assert.equal(validateFaultSpec(f, KINDS.map((k) => k.schema)), f);
    assert.ok(!f.kind.startsWith('client-') && f.duration_ms !== undefined && f.at_ms <= o.ttlMs / 4);
    assert.match(describeFault(f), new RegExp(`when client ${f.anchor!.client} reaches '${f.anchor!.point.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}'`));
    assert.equal(anchoredClient(f), f.anchor!.client);
  }
  // Timed ones stay as they were.
  assert.ok(faults.some((f) => !f.anchor && !isAnchoredPause(f)));
  // An anchor is checked like the rest of a spec: the place and the fix.
  const schemas = KINDS.map((k) => k.schema);
  assert.throws(() => validateFaultSpec({ kind: 'kill', at_ms: 0, target: 'n1', anchor: { client: 'c1', point: 'in-critical-section' } }, schemas), /an anchored fault needs duration_ms/);
  assert.throws(() => validateFaultSpec({ kind: 'kill', at_ms: 0, duration_ms: 5, target: 'n1', anchor: { client: 'x', point: 'p' } }, schemas), /anchor\.client must be a client id like "c1"/);
  assert.throws(() => validateFaultSpec({ kind: 'client-pause', at_ms: 0, duration_ms: 5, target: 'c1', anchor: { client: 'c1', point: 'p' } }, schemas), /anchors with params\.point/);
});

test('--max-attempts and --max-faults shape the plans: up to, and reaching, the bounds', () => {
  const plans = fc.sample(planArb({ ...base, maxAttempts: 6, maxFaults: 4 }), { numRuns: 300, seed: 5 });
  const attempts = plans.flatMap((p) => p.clients.map((c) => c.attempts.length));
  assert.equal(Math.max(...attempts), 6);
  const faults = plans.map((p) => p.faults.length);
  assert.ok(Math.max(...faults) >= 4 && Math.min(...faults) >= 1);
  // A group may hold two specs (clock-reset comes with its jump); never more than 4 groups of 2.
  assert.ok(Math.max(...faults) <= 8);
});
