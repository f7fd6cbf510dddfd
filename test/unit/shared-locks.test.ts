// Semaphores and read-write locks on the lock side (no servers): a recipe's declaration and the
// model it picks, what an acquire asks for and records, the plans' modes and permits and the
// filled door, and the resource's count of who is inside at once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { acquireFields, lockModel, shapedAcquire, shapeProblems } from '../../src/locks/shape.ts';
import { getRecipe, loadUserLock, RECIPES } from '../../src/locks/registry.ts';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from '../support/temp-dir.ts';
import { checkResource, type ResourceEntry } from '../../checkers/resource.ts';
import { attemptArb, firstPlans } from '../../src/workload/arbitraries.ts';
import { atTheDoor, crowded } from '../../src/workload/crowd.ts';
import { validatePlan, type RunPlan } from '../../src/workload/plan.ts';
import type { WorkloadOptions } from '../../src/workload/workload-options.ts';

test('the model is picked from what a recipe declares, and a declaration that disagrees with its model is refused', () => {
  assert.equal(lockModel(getRecipe('redis-zset-semaphore')), 'semaphore');
  assert.equal(lockModel(getRecipe('zk-rwlock')), 'rwlock');
  assert.equal(lockModel(getRecipe('redis-set-px-lua')), 'mutex');
  for (const r of RECIPES) assert.deepEqual(shapeProblems(r), [], r.name);
  assert.match(shapeProblems({ model: 'mutex', semaphore: { limit: 2 } }).join(), /model: 'semaphore'/);
  assert.match(shapeProblems({ model: 'semaphore' }).join(), /semaphore: \{ limit: N \}/);
  assert.match(shapeProblems({ model: 'semaphore', semaphore: { limit: 0 } }).join(), /semaphore.limit: an integer ≥ 1/);
  assert.match(shapeProblems({ model: 'rwlock', modes: ['write'] as never }).join(), /modes: a list of exclusive, shared/);
  assert.match(shapeProblems({ model: 'rwlock' }).join(), /modes:/);
});

test('an acquire asks for and records permits and limit on a semaphore, the mode on a read-write lock, nothing on a mutex', () => {
  const sem = shapedAcquire({ semaphore: { limit: 3 } }, { permits: 2 });
  assert.deepEqual(sem, { permits: 2, limit: 3 });
  assert.deepEqual(acquireFields(sem), { permits: 2, limit: 3 });
  assert.deepEqual(shapedAcquire({ semaphore: { limit: 3 } }, {}), { permits: 1, limit: 3 });
  assert.deepEqual(acquireFields(shapedAcquire({ modes: ['exclusive', 'shared'] }, { mode: 'shared' })), { mode: 'shared' });
  assert.deepEqual(shapedAcquire({ modes: ['exclusive', 'shared'] }, {}), { mode: 'exclusive' });
  assert.deepEqual(acquireFields(shapedAcquire(undefined, { mode: 'shared', permits: 2 })), {});
});

const base: WorkloadOptions = { clients: 3, faults: [], ttlMs: 800, nodes: ['n1'] };

test('plans draw both modes for a read-write lock and permits up to the limit where a holder may take several; none for a mutex', () => {
  const rw = fc.sample(attemptArb({ ...base, modes: ['exclusive', 'shared'] }), { numRuns: 200, seed: 1 });
  assert.deepEqual(new Set(rw.map((a) => a.mode)), new Set(['exclusive', 'shared']));
  const multi = fc.sample(attemptArb({ ...base, semaphore: { limit: 3, maxPermits: 3 } }), { numRuns: 200, seed: 1 });
  assert.deepEqual(new Set(multi.map((a) => a.permits)), new Set([1, 2, 3]));
  const one = fc.sample(attemptArb({ ...base, semaphore: { limit: 3, maxPermits: 1 } }), { numRuns: 50, seed: 1 });
  assert.ok(one.every((a) => a.permits === undefined && a.mode === undefined));
  const plan: RunPlan = { ttlMs: 800, clients: [{ attempts: [{ ...rw[0]!, mode: 'shared', permits: 2 }] }], faults: [] };
  assert.doesNotThrow(() => validatePlan(plan, 'test.json: plan'));
  assert.throws(() => validatePlan({ ...plan, clients: [{ attempts: [{ ...rw[0]!, mode: 'read' as never }] }] }, 'test.json: plan'), /attempts\[0\]\.mode: must be "exclusive" or "shared"/);
});

test("an aim's plan for a semaphore of N: N − 1 idle clients hold a permit all through, so its second client finds the door full", () => {
  const a = (delayMs: number, holdMs: number) => ({ key: 'k0', delayMs, waitMs: 800, holdMs, renew: false });
  const plan: RunPlan = { ttlMs: 800, clients: [{ attempts: [a(0, 300)] }, { attempts: [a(100, 100)] }, { attempts: [] }, { attempts: [] }], faults: [{ kind: 'client-clock', at_ms: 50, duration_ms: 1600, target: 'c2', params: { delta_ms: 2000 } }] };
  const three = crowded({ ...base, clients: 4, semaphore: { limit: 3, maxPermits: 1 }, leased: false }, plan);
  assert.deepEqual(three.clients.slice(0, 2), plan.clients.slice(0, 2));
  for (const c of three.clients.slice(2)) {
    assert.equal(c.attempts.length, 1);
    assert.equal(c.attempts[0]!.delayMs, 0);
    assert.ok(c.attempts[0]!.holdMs >= 1650, `the filler holds through the fault: ${c.attempts[0]!.holdMs}`);
  }
  // A leased lock that renews keeps its permit by renewing; a mutex's plan, or too few idle clients, stays as it was.
  assert.equal(crowded({ ...base, clients: 4, semaphore: { limit: 2, maxPermits: 1 }, leased: true, renew: true }, plan).clients[2]!.attempts[0]!.renew, true);
  assert.deepEqual(crowded({ ...base, clients: 4 }, plan), plan);
  assert.deepEqual(crowded({ ...base, clients: 4, semaphore: { limit: 4, maxPermits: 1 } }, plan), plan);
  // At the door: every busy client's first attempt at time 0, the rest as they were.
  const door = atTheDoor({ ...plan, clients: [{ attempts: [a(300, 100), a(50, 100)] }, { attempts: [a(100, 100)] }] });
  assert.deepEqual(door.clients.map((c) => c.attempts.map((x) => x.delayMs)), [[0, 50], [0]]);
});

const step = (seq: number, op: 'enter' | 'leave', client: string, f: Partial<ResourceEntry> = {}): ResourceEntry =>
  ({ key: 'k', seq, op, client, process: Number(client.slice(1)), prev: 0, accepted: true, ...f });

test('the resource counts a semaphore\'s holders inside at once: N is fine, N + 1 is over-admission; a holder that never left is not counted', () => {
  const sem = (p = 1) => ({ permits: p, limit: 2 });
  const two = [step(0, 'enter', 'c1', sem()), step(1, 'enter', 'c2', sem()), step(2, 'leave', 'c1', sem()), step(3, 'enter', 'c3', sem()), step(4, 'leave', 'c2', sem()), step(5, 'leave', 'c3', sem())];
  assert.equal(checkResource(two, {}).valid, true);
  const three = [step(0, 'enter', 'c1', sem()), step(1, 'enter', 'c2', sem()), step(2, 'enter', 'c3', sem()), step(3, 'leave', 'c1', sem()), step(4, 'leave', 'c2', sem()), step(5, 'leave', 'c3', sem())];
  const r = checkResource(three, {});
  assert.equal(r.valid, false);
  assert.deepEqual(r.anomalies.map((a) => a.type), ['over-admission']);
  assert.match(r.anomalies[0]!.message, /client c3 \(process 3\) entered the resource with 1 permit\(s\) while client c1 \(process 1\), client c2 \(process 2\) held 2 of 2/);
  // c1 crashed inside (no leave): it used the resource no further, so c3 beside c2 is within the limit.
  const crashed = [step(0, 'enter', 'c1', sem()), step(1, 'enter', 'c2', sem()), step(2, 'enter', 'c3', sem()), step(3, 'leave', 'c2', sem()), step(4, 'leave', 'c3', sem())];
  assert.equal(checkResource(crashed, {}).valid, true);
  // Permits add up: 2 + 1 of 2.
  assert.equal(checkResource([step(0, 'enter', 'c1', sem(2)), step(1, 'enter', 'c2', sem()), step(2, 'leave', 'c1', sem(2)), step(3, 'leave', 'c2', sem())], {}).valid, false);
});

test('the resource sees readers together as fine, a writer beside a reader or a second writer as anomalies', () => {
  const m = (mode: string) => ({ mode });
  const readers = [step(0, 'enter', 'c1', m('shared')), step(1, 'enter', 'c2', m('shared')), step(2, 'leave', 'c1', m('shared')), step(3, 'leave', 'c2', m('shared'))];
  assert.equal(checkResource(readers, {}).valid, true);
  const beside = [step(0, 'enter', 'c1', m('shared')), step(1, 'enter', 'c2', m('exclusive')), step(2, 'leave', 'c1', m('shared')), step(3, 'leave', 'c2', m('exclusive'))];
  assert.deepEqual(checkResource(beside, {}).anomalies.map((a) => a.type), ['writer-beside-reader']);
  const writers = [step(0, 'enter', 'c1', m('exclusive')), step(1, 'enter', 'c2', m('exclusive')), step(2, 'leave', 'c1', m('exclusive')), step(3, 'leave', 'c2', m('exclusive'))];
  assert.deepEqual(checkResource(writers, {}).anomalies.map((a) => a.type), ['writer-beside-writer']);
  const inTurn = [step(0, 'enter', 'c1', m('exclusive')), step(1, 'leave', 'c1', m('exclusive')), step(2, 'enter', 'c2', m('shared')), step(3, 'leave', 'c2', m('shared'))];
  assert.equal(checkResource(inTurn, {}).valid, true);
});

test("a semaphore's aimed plans are drawn (the fillers' long holds do not make every aim's faults look undue) and fill the door", () => {
  const o: WorkloadOptions = { clients: 3, faults: ['partition'], ttlMs: 800, nodes: ['n1', 'n2', 'n3'], servers: ['n1', 'n2', 'n3'], topology: 'zookeeper', sessionMs: 2000, leased: false, renew: true, semaphore: { limit: 2, maxPermits: 1 }, points: ['in-critical-section'] };
  const first = firstPlans(o, 1);
  assert.ok(first.length > 0);
  for (const p of first) assert.equal(p.clients.filter((c) => c.attempts.length > 0).length, 3, JSON.stringify(p.clients));
});

test("a process client's recipe file declares a semaphore or a read-write lock; one whose model disagrees is refused naming the field", async () => {
  const sem = await loadUserLock('./examples/process-clients/kazoo-semaphore.json');
  assert.deepEqual([lockModel(sem), sem.semaphore], ['semaphore', { limit: 2 }]);
  const rw = await loadUserLock('./examples/process-clients/java/curator-rwlock.json');
  assert.deepEqual([lockModel(rw), rw.modes], ['rwlock', ['exclusive', 'shared']]);
  const dir = tempDir('lockpick-recipe-');
  const file = path.join(dir, 'bad.json');
  writeFileSync(file, JSON.stringify({ exec: '/bin/true', topology: { kind: 'redis', masters: 1 }, model: 'mutex', semaphore: { limit: 2 } }));
  await assert.rejects(loadUserLock(file), /the recipe file is wrong:\n {2}- model: 'semaphore' for a lock that declares semaphore/);
  rmSync(dir, { recursive: true, force: true });
});
