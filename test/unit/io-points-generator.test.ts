// client-pause at I/O points: what the generator draws, how it reads, how it shrinks, and
// which points a run draws from by default (a user lock declares none).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { faultArb, planArb, type WorkloadOptions } from '../../src/workload/arbitraries.ts';
import { defaultPausePoints, describeFault, isAnchoredPause, parseIoPoint, type RunPlan } from '../../src/workload/plan.ts';
import { parsePausePoints } from '../../src/commands/run.ts';
import { IO_POINT_MAX } from '../../nemesis/faults/client.ts';

const base: WorkloadOptions = { clients: 3, faults: ['client-pause'], ttlMs: 800, nodes: ['n1'] };
const points = (o: WorkloadOptions) => fc.sample(faultArb('client-pause', o), { numRuns: 300, seed: 7 }).flat();

test('a user lock (no points of its own) draws I/O points about half the time, anchored by their count', () => {
  const specs = points({ ...base, points: defaultPausePoints([], 'redis') });
  const io = specs.filter((s) => parseIoPoint(String(s.params?.point)));
  assert.ok(io.length > 90 && io.length < 210, `${io.length} of 300 at I/O points`);
  assert.ok(specs.some((s) => s.params?.point === 'in-critical-section'));
  for (const s of io) {
    const p = parseIoPoint(String(s.params!.point))!;
    assert.equal(s.at_ms, 0, 'the count is the anchor');
    assert.ok(p.n >= 1 && p.n <= IO_POINT_MAX);
    assert.ok(s.duration_ms! >= 600 && s.duration_ms! <= 1200, 'around the lease, as at named points');
    assert.ok(isAnchoredPause(s), 'the runner fires it at the point, not the nemesis');
  }
  assert.ok(io.some((s) => String(s.params!.point).startsWith('send:')) && io.some((s) => String(s.params!.point).startsWith('reply:')));
});

test('a recipe with its own points keeps most draws there; --pause-at send draws only sends; none: no I/O points', () => {
  const withOwn = points({ ...base, points: defaultPausePoints(['after-compare'], 'redis') });
  const io = withOwn.filter((s) => parseIoPoint(String(s.params?.point))).length;
  assert.ok(io > 30 && io < 120, `${io} of 300 at I/O points`);
  const sends = points({ ...base, points: ['send'] });
  assert.ok(sends.every((s) => /^send:\d+$/.test(String(s.params?.point))));
  const named = points({ ...base, points: ['in-critical-section', 'after-compare'] });
  assert.ok(named.every((s) => !parseIoPoint(String(s.params?.point))));
  // Other kinds anchored at points never get an I/O kind as a point name.
  const part = fc.sample(faultArb('partition', { ...base, faults: ['partition'], points: ['send', 'reply'] }), { numRuns: 100, seed: 3 }).flat();
  assert.ok(part.every((s) => s.params?.point === undefined || s.params.point === 'in-critical-section'));
});

test('default points: I/O points on Node-socket clients, not on ZooKeeper (its client does I/O in C)', () => {
  assert.deepEqual(defaultPausePoints([], 'redis'), ['in-critical-section', 'send', 'reply']);
  assert.deepEqual(defaultPausePoints(['before-validity-check'], 'mariadb'), ['in-critical-section', 'before-validity-check', 'send', 'reply']);
  assert.deepEqual(defaultPausePoints([], 'zookeeper'), ['in-critical-section']);
});

test('--pause-at takes send and reply (N is drawn), and names them when refusing', () => {
  assert.deepEqual(parsePausePoints('send,reply', []), ['send', 'reply']);
  assert.throws(() => parsePausePoints('send:3', []), /no point 'send:3'; its points: in-critical-section, send, reply/);
});

test('said in words: the command or reply by its ordinal', () => {
  const f = (point: string, at = 0) => describeFault({ kind: 'client-pause', at_ms: at, duration_ms: 1200, target: 'c2', params: { point } });
  assert.equal(f('send:7'), 'pause client c2 for 1200 ms just before its 7th command (send:7)');
  assert.equal(f('reply:1'), 'pause client c2 for 1200 ms just after its 1st reply (reply:1)');
  assert.equal(f('reply:12'), 'pause client c2 for 1200 ms just after its 12th reply (reply:12)');
  assert.equal(f('send:22', 300), 'from 300 ms: pause client c2 for 1200 ms just before its 22nd command (send:22)');
  assert.match(f('after-compare', 100), /the next time it reaches 'after-compare'/);
});

test('a stored plan paused at send:9 shrinks without context toward earlier commands and shorter pauses', () => {
  const arb = planArb({ ...base, clients: 2, points: defaultPausePoints([], 'redis') });
  const plan: RunPlan = {
    ttlMs: 800,
    clients: [{ attempts: [{ key: 'k0', delayMs: 0, waitMs: 400, holdMs: 100, renew: false }] }, { attempts: [] }],
    faults: [{ kind: 'client-pause', at_ms: 0, duration_ms: 1100, target: 'c1', params: { point: 'send:9' } }],
  };
  assert.ok(arb.canShrinkWithoutContext(plan));
  const cands = [...arb.shrink(plan, undefined)].map((v) => v.value.faults[0]).filter((f) => f !== undefined);
  const ns = cands.map((f) => parseIoPoint(String(f.params?.point))?.n).filter((n) => n !== undefined);
  assert.ok(ns.some((n) => n < 9), `an earlier command is tried: ${ns.join(',')}`);
  assert.ok(cands.some((f) => f.params?.point === 'send:9' && f.duration_ms! < 1100), 'a shorter pause is tried');
});
