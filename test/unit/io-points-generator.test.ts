// client-pause at I/O points: what the generator draws, how it reads, how it shrinks, and
// which points a run draws from by default (a user lock declares none).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { faultArb, planArb, type WorkloadOptions } from '../../src/workload/arbitraries.ts';
import { defaultPausePoints, describeFault, isAnchoredPause, parseIoPoint, type RunPlan } from '../../src/workload/plan.ts';
import { parsePausePoints } from '../../src/options.ts';
import { IO_POINT_MAX } from '../../nemesis/faults/client.ts';

const base: WorkloadOptions = { clients: 3, faults: ['client-pause'], ttlMs: 800, nodes: ['n1'] };
const points = (o: WorkloadOptions) => fc.sample(faultArb('client-pause', o), { numRuns: 300, seed: 7 }).flat();

test('a user lock (no points of its own) draws I/O points of its acquires and releases one time in four', () => {
  const specs = points({ ...base, points: defaultPausePoints([], 'redis') });
  const io = specs.filter((s) => parseIoPoint(String(s.params?.point)));
  assert.ok(io.length > 40 && io.length < 120, `${io.length} of 300 at I/O points`);
  assert.ok(specs.some((s) => s.params?.point === 'in-critical-section'));
  for (const s of io) {
    const p = parseIoPoint(String(s.params!.point))!;
    assert.ok(s.at_ms >= 0 && s.at_ms <= 400, 'from a moment in the first half lease, as at named points');
    assert.ok(p.n >= 1 && p.n <= IO_POINT_MAX);
    assert.ok(p.op === 'acquire' || p.op === 'release');
    assert.ok(s.duration_ms! >= 600 && s.duration_ms! <= 1200, 'around the lease, as at named points');
    assert.ok(isAnchoredPause(s), 'the runner fires it at the point, not the nemesis');
  }
  for (const p of ['send:release:2', 'reply:release:1', 'reply:acquire:1']) assert.ok(io.some((s) => s.params!.point === p), `draws ${p}`);
});

test('a recipe with its own points keeps three draws in four there too; --pause-at send draws only sends; none: no I/O points', () => {
  const withOwn = points({ ...base, points: defaultPausePoints(['after-compare'], 'redis') });
  const io = withOwn.filter((s) => parseIoPoint(String(s.params?.point))).length;
  assert.ok(io > 30 && io < 120, `${io} of 300 at I/O points`);
  const sends = points({ ...base, points: ['send'] });
  assert.ok(sends.every((s) => /^send:(acquire|release):\d+$/.test(String(s.params?.point))));
  const named = points({ ...base, points: ['in-critical-section', 'after-compare'] });
  assert.ok(named.every((s) => !parseIoPoint(String(s.params?.point))));
  // Other kinds anchored at points never get an I/O kind as a point name.
  const part = fc.sample(faultArb('partition', { ...base, faults: ['partition'], points: ['send', 'reply'] }), { numRuns: 100, seed: 3 }).flat();
  assert.ok(part.every((s) => s.params?.point === undefined || s.params.point === 'in-critical-section'));
});

test('default points: I/O points on Node-socket clients, not on ZooKeeper (its client does I/O in C)', () => {
  assert.deepEqual(defaultPausePoints([], 'redis'), ['in-critical-section', 'before-write', 'before-release', 'send', 'reply']);
  assert.deepEqual(defaultPausePoints(['before-validity-check'], 'mariadb'), ['in-critical-section', 'before-write', 'before-release', 'before-validity-check', 'send', 'reply']);
  assert.deepEqual(defaultPausePoints([], 'zookeeper'), ['in-critical-section', 'before-write', 'before-release']);
});

test('--pause-at takes send and reply (N is drawn), and names them when refusing', () => {
  assert.deepEqual(parsePausePoints('send,reply', []), ['send', 'reply']);
  assert.throws(() => parsePausePoints('send:release:2', []), /no point 'send:release:2'; its points: in-critical-section, before-write, before-release, send, reply/);
});

test('said in words: the command or reply of the next acquire or release', () => {
  const f = (point: string, at = 0) => describeFault({ kind: 'client-pause', at_ms: at, duration_ms: 1200, target: 'c2', params: { point } });
  assert.equal(f('send:release:2'), 'from 0 ms: pause client c2 for 1200 ms just before the 2nd command of its next release (send:release:2)');
  assert.equal(f('reply:acquire:1', 250), 'from 250 ms: pause client c2 for 1200 ms just after the 1st reply of its next acquire (reply:acquire:1)');
  assert.equal(f('reply:renew:13'), 'from 0 ms: pause client c2 for 1200 ms just after the 13th reply of its next renew (reply:renew:13)');
  assert.equal(f('send:acquire:3'), 'from 0 ms: pause client c2 for 1200 ms just before the 3rd command of its next acquire (send:acquire:3)');
  assert.match(f('after-compare', 100), /the next time it reaches 'after-compare'/);
  assert.equal(parseIoPoint('send:7'), undefined);
  assert.equal(parseIoPoint('after-compare'), undefined);
});

test('a stored plan paused at send:release:3 shrinks without context toward earlier commands and shorter pauses', () => {
  const arb = planArb({ ...base, clients: 2, points: defaultPausePoints([], 'redis') });
  const plan: RunPlan = {
    ttlMs: 800,
    clients: [{ attempts: [{ key: 'k0', delayMs: 0, waitMs: 400, holdMs: 100, renew: false }] }, { attempts: [] }],
    faults: [{ kind: 'client-pause', at_ms: 0, duration_ms: 1100, target: 'c1', params: { point: 'send:release:3' } }],
  };
  assert.ok(arb.canShrinkWithoutContext(plan));
  const cands = [...arb.shrink(plan, undefined)].map((v) => v.value.faults[0]).filter((f) => f !== undefined);
  const ns = cands.map((f) => parseIoPoint(String(f.params?.point))?.n).filter((n) => n !== undefined);
  assert.ok(ns.some((n) => n < 3), `an earlier command is tried: ${ns.join(',')}`);
  assert.ok(cands.some((f) => f.params?.point === 'send:release:3' && f.duration_ms! < 1100), 'a shorter pause is tried');
});
