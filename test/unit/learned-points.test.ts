// Points learned, not guessed (src/workload/points.ts): what a calibration run reached narrows the
// points list, and every generator that anchors a fault at a point (client-pause, the stale-release
// aim, server faults anchored at a client's event) draws only among the reached ones.
import { tempDir } from '../support/temp-dir.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { readLearnedPoints } from '../../src/runner/calibrate.ts';
import { faultArb, planArb, type WorkloadOptions } from '../../src/workload/arbitraries.ts';
import { AIMS } from '../../src/workload/aims.ts';
import { anchorPoint, defaultPausePoints, isAnchoredPause, parseIoPoint, planOps, type RunPlan } from '../../src/workload/plan.ts';
import {
  LEARNED_IO_MAX, allowsPoint, anchorsReachable, calibrationPlan, faultsCanTakeEffect, describeLearned, emptyReached, expandIoPoints, learnPoints, mergeReached, type ReachedPoints,
} from '../../src/workload/points.ts';

// redis-set-px-del as a calibration run sees it: an acquire that polls (SET 7 times while the
// other client held), a release of one DEL, the critical section reached.
const oneDel: ReachedPoints = { io: { acquire: { sends: 7, replies: 7 }, release: { sends: 1, replies: 1 } }, named: ['in-critical-section', 'before-write', 'before-release'] };
const redisBase = defaultPausePoints([], 'redis');

test('learned: I/O points up to the most one operation reached (capped), named points only if reached', () => {
  assert.deepEqual(learnPoints(redisBase, oneDel), [
    'in-critical-section', 'before-write', 'before-release',
    ...[1, 2, 3, 4, 5].map((n) => `send:acquire:${n}`), 'send:release:1',
    ...[1, 2, 3, 4, 5].map((n) => `reply:acquire:${n}`), 'reply:release:1',
  ]);
  assert.equal(LEARNED_IO_MAX, 5);
  // A recipe point the calibration never reached is not drawn; one it reached is.
  const getDel: ReachedPoints = { io: { acquire: { sends: 1, replies: 1 }, release: { sends: 2, replies: 2 }, renew: { sends: 1, replies: 1 } }, named: ['in-critical-section', 'after-compare'] };
  assert.deepEqual(learnPoints(['in-critical-section', 'after-compare', 'on-retry', 'send'], getDel),
    ['in-critical-section', 'after-compare', 'send:acquire:1', 'send:release:1', 'send:release:2', 'send:renew:1']);
  // --pause-at send: replies are not learned into the list, named points not added.
  assert.deepEqual(learnPoints(['send'], getDel), ['send:acquire:1', 'send:release:1', 'send:release:2', 'send:renew:1']);
  // A client that does its I/O outside Node's net (ZooKeeper's C client) reaches no I/O point.
  assert.deepEqual(learnPoints(['in-critical-section', 'send', 'reply'], { io: {}, named: ['in-critical-section'] }), ['in-critical-section']);
  // Nothing reached (no acquire got the lock): nothing learned, the caller keeps its list.
  assert.equal(learnPoints(redisBase, emptyReached()), undefined);
  // Only points the run never reached were asked for: nothing to draw from, nothing learned.
  assert.equal(learnPoints(['after-compare'], { io: {}, named: ['in-critical-section'] }), undefined);
});

test('said in one line, as the run log prints it', () => {
  assert.equal(describeLearned(['in-critical-section', 'after-compare', 'send'], { io: { acquire: { sends: 1, replies: 1 }, release: { sends: 2, replies: 2 } }, named: ['in-critical-section', 'after-compare'] }),
    'acquire sends 1..1, release sends 1..2, named: in-critical-section, after-compare');
  assert.equal(describeLearned(redisBase, oneDel), 'acquire sends 1..5 (of 7) replies 1..5 (of 7), release sends 1..1 replies 1..1, named: in-critical-section, before-write, before-release');
  assert.equal(describeLearned(['in-critical-section', 'before-validity-check', 'send'], { io: {}, named: ['in-critical-section'] }),
    "no send (the client's I/O is not on Node's sockets), named: in-critical-section, not reached: before-validity-check");
});

test('reached points of several clients merge: the larger count, every named point', () => {
  const a: ReachedPoints = { io: { acquire: { sends: 3, replies: 1 } }, named: ['in-critical-section'] };
  const b: ReachedPoints = { io: { acquire: { sends: 1, replies: 2 }, release: { sends: 2, replies: 2 } }, named: ['after-compare'] };
  assert.deepEqual(mergeReached(a, b), { io: { acquire: { sends: 3, replies: 2 }, release: { sends: 2, replies: 2 } }, named: ['in-critical-section', 'after-compare'] });
  assert.deepEqual(mergeReached(emptyReached(), emptyReached()), emptyReached());
});

test('a list allows an I/O point it names, or any N of a bare kind (unlearned, as before)', () => {
  const learned = learnPoints(redisBase, oneDel)!;
  assert.ok(allowsPoint(learned, 'send:release:1'));
  assert.ok(!allowsPoint(learned, 'send:release:2'), 'a one-command release has no 2nd command');
  assert.ok(allowsPoint(['send'], 'send:release:7'));
  assert.ok(!allowsPoint(['send'], 'reply:release:1'));
  assert.ok(allowsPoint(undefined, 'in-critical-section') && !allowsPoint(undefined, 'send:release:1'));
  assert.deepEqual(expandIoPoints(['send']), ['send:acquire:1', 'send:acquire:2', 'send:acquire:3', 'send:release:1', 'send:release:2', 'send:release:3']);
  assert.deepEqual(expandIoPoints(['in-critical-section', 'reply:renew:2']), ['reply:renew:2']);
});

const base: WorkloadOptions = { clients: 3, faults: ['client-pause'], ttlMs: 800, nodes: ['n1'], topology: 'redis' };
const ioOf = (plans: RunPlan[]) => plans.flatMap((p) => p.faults).filter(isAnchoredPause).map((f) => anchorPoint(f)!).filter((p) => parseIoPoint(p));

test('client-pause draws only learned I/O points: every reached command of a release, none past it', () => {
  const getDel: ReachedPoints = { io: { acquire: { sends: 1, replies: 1 }, release: { sends: 2, replies: 2 }, renew: { sends: 1, replies: 1 } }, named: ['in-critical-section'] };
  const points = learnPoints(redisBase, getDel)!;
  const drawn = fc.sample(faultArb('client-pause', { ...base, points }), { numRuns: 600, seed: 5 }).flat().map((f) => String(f.params?.point));
  const io = drawn.filter((p) => parseIoPoint(p));
  assert.ok(io.length > 80, `${io.length} of 600 at I/O points`);
  assert.ok(io.every((p) => points.includes(p)), `only learned points: ${[...new Set(io)].join(', ')}`);
  for (const p of ['send:release:2', 'reply:release:2', 'send:acquire:1', 'send:renew:1']) assert.ok(io.includes(p), `draws ${p}`);
  // A stored plan at a learned point shrinks without context toward the earlier command.
  const arb = planArb({ ...base, clients: 2, points });
  const plan: RunPlan = {
    ttlMs: 800, clients: [{ attempts: [{ key: 'k0', delayMs: 0, waitMs: 400, holdMs: 100, renew: false }] }, { attempts: [] }],
    faults: [{ kind: 'client-pause', at_ms: 0, duration_ms: 900, target: 'c1', params: { point: 'send:release:2' } }],
  };
  assert.ok(arb.canShrinkWithoutContext(plan));
  const shrunk = [...arb.shrink(plan, undefined)].map((v) => v.value.faults[0]?.params?.point);
  assert.ok(shrunk.includes('send:release:1'), `an earlier command is tried: ${[...new Set(shrunk)].join(', ')}`);
});

test('the stale-release aim pauses a one-command release only before that command (the plan main.sh drew 4 times in 6 never fired)', () => {
  const aim = AIMS.find((a) => a.name === 'stale-release')!;
  const learned = { ...base, points: learnPoints(redisBase, oneDel)! };
  assert.ok(aim.applies(learned));
  const points = new Set(fc.sample(aim.plan(learned), { numRuns: 200, seed: 9 }).map((p) => anchorPoint(p.faults[0]!)));
  // The start of the release (the worker's own point) and the one command it sends.
  assert.deepEqual([...points].sort(), ['before-release', 'send:release:1']);
  // Unlearned ('send' as given), it still draws the first three commands.
  const guessed = new Set(fc.sample(aim.plan({ ...base, points: redisBase }), { numRuns: 200, seed: 9 }).map((p) => anchorPoint(p.faults[0]!)));
  assert.deepEqual([...guessed].sort(), ['before-release', 'send:release:1', 'send:release:2', 'send:release:3']);
  // A release that sends nothing the hooks see (and no recipe point): the aim does not apply.
  assert.ok(!aim.applies({ ...base, points: learnPoints(redisBase, { io: {}, named: ['in-critical-section'] })! }));
});

test('every plan of a learned search anchors only at learned points, whatever the kinds', () => {
  const points = learnPoints(['in-critical-section', 'after-compare', 'send', 'reply'], { io: { acquire: { sends: 1, replies: 1 }, release: { sends: 2, replies: 2 } }, named: ['in-critical-section', 'after-compare'] })!;
  const o: WorkloadOptions = { ...base, faults: ['client-pause', 'client-kill', 'kill', 'partition'], nodes: ['n1', 'n2', 'n3'], points };
  fc.assert(fc.property(planArb(o), (plan) => {
    for (const f of plan.faults.filter(isAnchoredPause)) assert.ok(points.includes(anchorPoint(f)!), `${f.kind} at ${anchorPoint(f)}`);
  }), { numRuns: 400, seed: 11 });
  assert.ok(ioOf(fc.sample(planArb(o), { numRuns: 400, seed: 11 })).length > 0, 'I/O points are drawn');
});

test('the calibration plan: fault-free, two clients contending on one key, renewing and re-entering when the lock can', () => {
  const p = calibrationPlan({ ttlMs: 800 });
  assert.equal(p.faults.length, 0);
  assert.equal(p.clients.length, 2);
  const [a1, a2] = p.clients.map((c) => c.attempts[0]!);
  assert.equal(a1!.key, a2!.key);
  assert.ok(a2!.delayMs > a1!.delayMs && a2!.delayMs < a1!.delayMs + a1!.holdMs, 'the second comes while the first holds');
  assert.ok(a2!.waitMs > a1!.holdMs + a2!.holdMs, 'and waits until it gets the lock');
  assert.ok(a1!.holdMs < p.ttlMs / 2, 'no hold outlives its lease');
  // A lock that does not say whether it renews is asked (the worker renews only a lock with renew()); one that says no is not.
  assert.ok(a1!.renew && a1!.reenter === undefined);
  assert.ok(calibrationPlan({ ttlMs: 800, renew: false }).clients.every((c) => !c.attempts[0]!.renew));
  const r = calibrationPlan({ ttlMs: 800, renew: true, reentrant: true, sessionMs: 2000 });
  assert.ok(r.clients.every((c) => c.attempts[0]!.renew && c.attempts[0]!.reenter));
  assert.ok(r.clients[1]!.attempts[0]!.waitMs >= 2000, 'a session lock waits past the session');
  assert.equal(planOps(r), 2 * (2 + 1 + 2));
});

test('a plan whose anchored fault waits in a client that never gets there is not drawn', () => {
  const at = (target: string, point: string): RunPlan['faults'][number] => ({ kind: 'client-pause', at_ms: 0, duration_ms: 900, target, params: { point } });
  const a = { key: 'k0', delayMs: 0, waitMs: 400, holdMs: 100, renew: false };
  const plan = (faults: RunPlan['faults'], c2 = [a]): RunPlan => ({ ttlMs: 800, clients: [{ attempts: [a] }, { attempts: c2 }], faults });
  assert.ok(anchorsReachable(plan([at('c2', 'send:release:1')])));
  assert.ok(!anchorsReachable(plan([at('c2', 'send:release:1')], [])), 'c2 has no attempt');
  assert.ok(!anchorsReachable(plan([at('c2', 'send:renew:1')])), 'c2 never renews');
  assert.ok(anchorsReachable(plan([at('c2', 'send:renew:1')], [{ ...a, renew: true }])));
  assert.ok(!anchorsReachable(plan([at('c3', 'in-critical-section')])), 'no client c3');
  assert.ok(anchorsReachable(plan([{ kind: 'client-pause', at_ms: 100, duration_ms: 900, target: 'c2' }], [])), 'a timed pause stops even an idle client');
  assert.ok(!anchorsReachable(plan([{ kind: 'kill', at_ms: 0, duration_ms: 500, target: 'n1', anchor: { client: 'c2', point: 'in-critical-section' } }], [])));
  // Drawn plans: no anchored fault in a client without attempts (each such run was inconclusive).
  const o: WorkloadOptions = { ...base, faults: ['client-pause', 'kill'], points: redisBase };
  for (const p of fc.sample(planArb(o), { numRuns: 300, seed: 13 })) assert.ok(anchorsReachable(p), JSON.stringify(p));
});

test('a point only a holder reaches needs an attempt that gets the lock once the fault is armed; a timed fault must be due before the clients can be done', () => {
  const pause = (at_ms: number, point = 'in-critical-section'): RunPlan['faults'][number] => ({ kind: 'client-pause', at_ms, duration_ms: 900, target: 'c2', params: { point } });
  const att = (delayMs: number, waitMs: number, holdMs: number) => ({ key: 'k0', delayMs, waitMs, holdMs, renew: false });
  const plan = (faults: RunPlan['faults'], c1: ReturnType<typeof att>[], c2: ReturnType<typeof att>[]): RunPlan => ({ ttlMs: 800, clients: [{ attempts: c1 }, { attempts: c2 }], faults });
  // c2 comes first: the lock is free, it holds.
  assert.ok(faultsCanTakeEffect(plan([pause(0)], [att(100, 50, 200)], [att(50, 50, 200)])));
  // c2 comes second with a short wait behind c1's long hold (a Redisson-style hold spans leases): it gives up, never holds.
  assert.ok(!faultsCanTakeEffect(plan([pause(0)], [att(10, 400, 2000)], [att(50, 400, 200)])));
  assert.ok(!faultsCanTakeEffect(plan([pause(0, 'before-release')], [att(10, 400, 2000)], [att(50, 400, 200)])));
  assert.ok(!faultsCanTakeEffect(plan([pause(0, 'send:release:1')], [att(10, 400, 2000)], [att(50, 400, 200)])));
  // ... unless it waits longer than c1 holds.
  assert.ok(faultsCanTakeEffect(plan([pause(0)], [att(10, 400, 2000)], [att(50, 2100, 200)])));
  // Armed after its only attempt started: it was already past the point.
  assert.ok(!faultsCanTakeEffect(plan([pause(300)], [att(100, 50, 200)], [att(50, 50, 200)])));
  // A later attempt that starts once armed and outwaits the others still reaches it.
  assert.ok(faultsCanTakeEffect(plan([pause(300)], [att(100, 50, 200)], [att(50, 50, 200), att(300, 400, 100)])));
  // Points of the acquire are reached by any attempt: no such condition.
  assert.ok(faultsCanTakeEffect(plan([pause(0, 'send:acquire:2')], [att(10, 400, 2000)], [att(50, 400, 200)])));
  // Timed faults: due before the longest client can be done (delays plus the shorter of wait and hold).
  const kill = (at_ms: number): RunPlan['faults'][number] => ({ kind: 'kill', at_ms, duration_ms: 100, target: 'n1' });
  assert.ok(faultsCanTakeEffect(plan([kill(240)], [att(100, 50, 200)], [att(200, 400, 100)])), '240 < 200 + 100');
  assert.ok(!faultsCanTakeEffect(plan([kill(399)], [att(100, 50, 200)], [att(200, 400, 100)])), 'the clients may be done after 300 ms');
  assert.ok(faultsCanTakeEffect(plan([kill(399), kill(100)], [att(100, 50, 200)], [att(200, 400, 100)])), 'another kill lands: the kind is tested');
  assert.ok(!faultsCanTakeEffect(plan([kill(0)], [], [])), 'no client, nothing to test');
});

test('--points-from DIR reads the points that run of this lock learned; anything else exits 2 naming the fix', () => {
  const dir = tempDir('lockpick-points-');
  const write = (t: unknown) => writeFileSync(path.join(dir, 'test.json'), JSON.stringify(t));
  const learned = { points: ['in-critical-section', 'send:release:1'], reached: oneDel };
  write({ lock: 'redis-set-px-del', points_learned: { ...learned, from: 'calibration' } });
  assert.deepEqual(readLearnedPoints(dir, 'redis-set-px-del'), learned);
  assert.throws(() => readLearnedPoints(dir, 'redis-set-px-lua'), /that run tested redis-set-px-del, not redis-set-px-lua/);
  assert.throws(() => readLearnedPoints(path.join(dir, 'nope'), 'redis-set-px-del'), /no .*test\.json\n  fix: give a run directory/);
  write({ lock: 'redis-set-px-del', points_learned: null });
  assert.throws(() => readLearnedPoints(dir, 'redis-set-px-del'), /has no "points_learned"/);
  write({ lock: 'redis-set-px-del', points_learned: { points: [] } });
  assert.throws(() => readLearnedPoints(dir, 'redis-set-px-del'), /must be a non-empty list of point names/);
  writeFileSync(path.join(dir, 'test.json'), '{');
  assert.throws(() => readLearnedPoints(dir, 'redis-set-px-del'), /not readable JSON/);
});

test('interleaved-acquire pauses only before acquire sends a granted acquire reaches (a free lock\'s GET then EVAL, not a poll\'s retries)', () => {
  const aim = AIMS.find((a) => a.name === 'interleaved-acquire')!;
  // GET-then-EVAL acquire, polling up to 5 sends while it waits: every granted acquire made 2 sends.
  const reached: ReachedPoints = { io: { acquire: { sends: 5, replies: 5, grantedSends: 2, grantedReplies: 2 }, release: { sends: 1, replies: 1 } }, named: ['in-critical-section'] };
  const o = { ...base, points: learnPoints(['in-critical-section', 'send'], reached)!, grantedAcquireSends: 2 };
  assert.ok(aim.applies(o));
  const plans = fc.sample(aim.plan(o), { numRuns: 100, seed: 3 });
  assert.deepEqual([...new Set(plans.map((p) => anchorPoint(p.faults[0]!)))], ['send:acquire:2']);
  for (const p of plans) {
    const [a1, a2] = [p.clients[0]!.attempts[0]!, p.clients[1]!.attempts[0]!];
    const pause = p.faults[0]!.duration_ms!;
    // c2 comes during c1's pause and is done before it ends; the pause stays inside the lease.
    assert.ok(a2.delayMs > a1.delayMs && a2.delayMs - a1.delayMs + a2.holdMs < pause && pause <= base.ttlMs / 2);
  }
  // A one-command acquire of a free lock (SET NX PX, retried only while waiting): nothing to interleave.
  assert.ok(!aim.applies({ ...o, grantedAcquireSends: 1 }));
  assert.ok(!aim.applies({ ...base, points: o.points }), 'not known: not drawn');
  // Merged over clients and runs: the fewest.
  const merged = mergeReached(reached, { io: { acquire: { sends: 3, replies: 3, grantedSends: 3 } }, named: [] });
  assert.equal(merged.io.acquire!.grantedSends, 2);
  assert.equal(merged.io.acquire!.sends, 5);
});

test('late-grant draws only the replies a granted acquire got (its first client acquires a free lock)', () => {
  const aim = AIMS.find((a) => a.name === 'late-grant')!;
  // A SET NX PX that polled up to 4 times while it waited, one reply when granted at once.
  const reached: ReachedPoints = { io: { acquire: { sends: 4, replies: 4, grantedSends: 1, grantedReplies: 1 }, release: { sends: 1, replies: 1 } }, named: ['in-critical-section'] };
  const o = { ...base, points: learnPoints(['in-critical-section', 'send', 'reply'], reached)!, grantedAcquireReplies: 1 };
  const points = new Set(fc.sample(aim.plan(o), { numRuns: 100, seed: 5 }).map((p) => anchorPoint(p.faults[0]!)));
  assert.deepEqual([...points], ['reply:acquire:1']);
});

test('calibration that reached no point says why as it was: no grant, or grants whose requests no point could see', async () => {
  const { calibrate } = await import('../../src/runner/calibrate.ts');
  const outcome = (oks: number) => ({
    events: Array.from({ length: oks }, () => ({ type: 'ok', f: 'acquire', process: 0, key: 'k' })),
    points: { io: {}, named: [] }, inconclusive: [], problems: [],
  }) as unknown as Awaited<ReturnType<Parameters<typeof calibrate>[0]>>;
  const ioWhy = 'the fault proxy counts grpc requests on the clients\' links and saw none';
  const none = await calibrate(async () => outcome(0), ['send'], { ttlMs: 800, ioWhy });
  assert.equal(none.said, 'points not learned: the calibration run reached none (no acquire got the lock); drawing from send');
  const granted = await calibrate(async () => outcome(3), ['send', 'in-critical-section'], { ttlMs: 800, ioWhy });
  assert.equal(granted.said, `points not learned: the calibration run reached none (3 acquire(s) got the lock, but no operation reached any of send, in-critical-section: ${ioWhy}); drawing from send, in-critical-section`);
});
