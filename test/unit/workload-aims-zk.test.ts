// The session-expiry aim on ZooKeeper (and any session lock): plans the nemesis and the
// runner accept, drawn only for a session lock with partitions asked for, and
// lined up so the session expires inside c1's hold while c2 still waits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { checkFaultSpec, describeFault, topologyProblem } from '../../nemesis/index.ts';
import { aimsFor } from '../../src/workload/aims.ts';
import { planArb, type WorkloadOptions } from '../../src/workload/arbitraries.ts';
import { anchoredClient, anchorPoint, isAnchoredPause, planHorizonMs, validatePlan } from '../../src/workload/plan.ts';
import type { FaultSpec } from '../../nemesis/types.ts';

const isAnchoredPartition = (f: FaultSpec) => f.kind === 'partition' && isAnchoredPause(f);
import { EXPIRY_SLACK_MS, sessionExpiry as aim } from '../../src/workload/aims/session-expiry.ts';

const ZK: WorkloadOptions = { clients: 3, faults: ['partition'], ttlMs: 800, nodes: ['n1', 'n2', 'n3'], topology: 'zookeeper', sessionMs: 2000, renew: true, leased: false };

test('session expiry: drawn only for a session lock (not leased) with partitions asked for, on any topology', () => {
  assert.ok(aimsFor(ZK).includes(aim));
  assert.ok(aimsFor({ ...ZK, faults: ['partition', 'pause'] }).includes(aim));
  assert.ok(!aimsFor({ ...ZK, faults: ['pause'] }).includes(aim), 'not without partition');
  assert.ok(!aimsFor({ ...ZK, faults: [] }).includes(aim));
  // A SQL session lock: no session timeout of its own, the server ends the session when its connection closes.
  const sql = { ...ZK, topology: 'mariadb', nodes: ['n1'], sessionMs: undefined };
  assert.ok(aimsFor(sql).includes(aim), 'a MySQL/PostgreSQL session lock too');
  fc.assert(fc.property(aim.plan(sql), (plan) => {
    validatePlan(plan, aim.name);
    assert.ok(plan.faults[0]!.duration_ms! >= EXPIRY_SLACK_MS);
  }), { numRuns: 50 });
  assert.ok(!aim.applies({ ...ZK, leased: true }), 'not for a leased lock (a lease outlives a cut until its TTL)');
  assert.ok(!aim.applies({ ...ZK, leased: undefined }), 'not when nothing says the lock is a session lock');
  assert.ok(!aim.applies({ ...ZK, clients: 1 }), 'needs a second client to take over');
});

for (const sessionMs of [2000, 1000, 10_000]) {
  test(`zk session expiry (session ${sessionMs} ms): valid plans; c1 cut in its critical section past its session, c2 queued behind it and still waiting at the expiry`, () => {
    const o = { ...ZK, sessionMs };
    fc.assert(fc.property(aim.plan(o), (plan) => {
      validatePlan(plan, aim.name);
      assert.equal(plan.clients.length, 3);
      assert.equal(plan.ttlMs, 800);
      assert.equal(plan.faults.length, 1);
      const f = checkFaultSpec(plan.faults[0]);   // nemesis/spec.ts: schema, target, params
      assert.equal(topologyProblem(f.kind, 'zookeeper'), undefined);
      assert.ok(isAnchoredPartition(f), 'the runner cuts c1 at its point (not the nemesis by time)');
      assert.equal(anchoredClient(f), 'c1');
      assert.equal(anchorPoint(f), 'in-critical-section');
      assert.match(describeFault(f), /partition .*c1.* ms .*in-critical-section/);
      const cut = f.duration_ms!;
      assert.ok(cut >= sessionMs + EXPIRY_SLACK_MS, `cut ${cut} ms outlasts the session with room for the expiry and c2's grant`);
      const [a1] = plan.clients[0]!.attempts;
      const [a2] = plan.clients[1]!.attempts;
      assert.deepEqual(plan.clients[2]!.attempts, []);
      assert.ok(a1 && a2 && a1.key === a2.key);
      assert.ok(a1.renew && a2.renew, 'careful clients check their session all through a hold');
      assert.ok(a2.delayMs >= a1.delayMs + 400, 'c2 comes once c1 holds');
      // The session ends at the latest a session timeout (+ a tick) after the cut, which starts
      // when c1 holds (≤ its 1 s wait after its delay): c2 is still waiting then.
      assert.ok(a2.delayMs + a2.waitMs >= a1.delayMs + 400 + sessionMs + EXPIRY_SLACK_MS);
      assert.ok(a1.holdMs <= plan.ttlMs / 4 && a2.holdMs <= plan.ttlMs / 4);
      // Runs stay short: a couple of session timeouts and a few seconds.
      assert.ok(planHorizonMs(plan) <= 5 * sessionMs + 6000, `horizon ${planHorizonMs(plan)} ms`);
    }), { numRuns: 200 });
  });
}

test('zk session expiry: planArb draws it about one plan in three for zookeeper + partition (split-votes another third)', () => {
  const plans = fc.sample(planArb(ZK), { numRuns: 300, seed: 9 });
  const aimed = plans.filter((p) => p.faults.length === 1 && p.faults[0]!.at_ms === 0 && isAnchoredPartition(p.faults[0]!)
    && p.clients[2]!.attempts.length === 0 && p.clients[1]!.attempts.length === 1).length;
  assert.ok(aimed > 70 && aimed < 130, `${aimed} of 300 aimed`);
  const split = plans.filter((p) => p.faults.length === 1 && p.faults[0]!.target === 'grudge' && p.faults[0]!.params?.shape === 'halves' && p.faults[0]!.at_ms === 0).length;
  assert.ok(split > 70 && split < 130, `${split} of 300 split the votes`);
});
