// The generators that aim faults at instants: client clock steps anchored at the points a client
// reaches (inside an acquire above all), and latency on one node, a majority or all, with jitter.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { clientClock } from '../../nemesis/faults/client.ts';
import { latency } from '../../nemesis/faults/partition.ts';
import { describeFault } from '../../nemesis/index.ts';
import { faultWords } from '../../src/report/timeline-story.ts';
import type { FaultGenOptions } from '../../nemesis/fault.ts';
import type { FaultSpec } from '../../nemesis/types.ts';

const base: FaultGenOptions = { ttlMs: 800, clients: ['c1', 'c2'], nodes: ['n1', 'n2', 'n3', 'n4', 'n5'], points: ['in-critical-section', 'before-release'], topology: 'redis' };
const draw = (arb: fc.Arbitrary<FaultSpec[]>, n = 600) => fc.sample(arb, { seed: 7, numRuns: n }).flat();

test('client-clock: steps anchored at learned points, an acquire\'s the most, sized by the lease both ways; timed skews still drawn', () => {
  const io = ['send:acquire:1', 'send:acquire:2', 'reply:acquire:1', 'reply:acquire:2', 'send:release:1'];
  const specs = draw(clientClock.generate({ ...base, ioPoints: io }));
  const anchored = specs.filter((f) => typeof f.params?.point === 'string');
  const timed = specs.filter((f) => f.params?.point === undefined);
  assert.ok(anchored.length > specs.length / 2 && timed.length > specs.length / 6, `${anchored.length} anchored, ${timed.length} timed`);
  const inAcquire = anchored.filter((f) => /^(send|reply):acquire:/.test(String(f.params!.point)));
  assert.ok(inAcquire.length > anchored.length / 2, 'most steps land inside an acquire');
  assert.deepEqual(new Set(anchored.map((f) => String(f.params!.point))), new Set([...io, ...base.points]));
  for (const f of anchored) {
    const d = f.params!.delta_ms as number;
    assert.ok(Math.abs(d) >= 200 && Math.abs(d) <= 1600, `a quarter lease to two leases: ${d}`);
    assert.ok(typeof f.target === 'string' && /^c\d$/.test(f.target), 'one client');
    assert.ok(f.duration_ms! >= 800 && f.duration_ms! <= 2400);
    assert.ok(clientClock.anchored!.is(f));
  }
  assert.ok(anchored.some((f) => (f.params!.delta_ms as number) < 0) && anchored.some((f) => (f.params!.delta_ms as number) > 0), 'both ways');
  for (const f of timed) assert.ok(!clientClock.anchored!.is(f) && Math.abs(f.params!.delta_ms as number) > 800);
  // Learned: a free lock's acquire gets one reply; the 2nd comes only to one that waits, so it weighs as the other points.
  const learned = draw(clientClock.generate({ ...base, ioPoints: io, grantedAcquireSends: 2, grantedAcquireReplies: 1 }), 1000)
    .map((f) => f.params?.point).filter((p) => p !== undefined);
  const count = (p: string) => learned.filter((x) => x === p).length;
  assert.ok(count('reply:acquire:1') > 3 * count('reply:acquire:2') && count('reply:acquire:2') > 0, `${count('reply:acquire:1')} vs ${count('reply:acquire:2')}`);
  // No point at all (a recipe with none, nothing learned): timed only.
  assert.ok(draw(clientClock.generate({ ...base, points: [] }), 100).every((f) => f.params?.point === undefined));
});

test('client-clock: an anchored step in words, on the plan and on the timeline', () => {
  const f: FaultSpec = { kind: 'client-clock', at_ms: 0, duration_ms: 2000, target: 'c1', params: { delta_ms: -600, point: 'reply:acquire:2' } };
  assert.equal(describeFault(f), "from 0 ms: step client c1's clocks by -600 ms for 2000 ms just after the 2nd reply of its next acquire (reply:acquire:2)");
  assert.equal(faultWords('client-clock', { client: 'c1', point: 'reply:acquire:2', duration_ms: 2000, params: f.params }, undefined), 'clock of c1 −600 ms for 2000 ms at reply:acquire:2');
});

test('latency: one node, a majority of the data nodes or all of them, with jitter half the time; the words say which', () => {
  const specs = draw(latency.generate(base));
  const spans = new Map<string, number>();
  for (const f of specs) {
    const span = String(f.params?.span ?? 'one');
    spans.set(span, (spans.get(span) ?? 0) + 1);
    const targets = Array.isArray(f.target) ? f.target : [f.target];
    assert.equal(new Set(targets).size, targets.length);
    assert.equal(targets.length, span === 'one' ? 1 : span === 'majority' ? 3 : 5, span);
    const ms = f.params!.latency_ms as number;
    assert.ok(ms >= 50 && ms <= 800);
    const j = f.params!.jitter_ms as number | undefined;
    if (j !== undefined) assert.ok(j >= 1 && j <= ms, `jitter within the delay: ${j} of ${ms}`);
    assert.ok(f.duration_ms! > 800, 'past the lease');
  }
  assert.deepEqual([...spans.keys()].sort(), ['all', 'majority', 'one']);
  const jittered = specs.filter((f) => f.params?.jitter_ms !== undefined).length;
  assert.ok(jittered > specs.length / 4 && jittered < (3 * specs.length) / 4, `${jittered} of ${specs.length} with jitter`);
  const f: FaultSpec = { kind: 'latency', at_ms: 100, duration_ms: 1000, target: ['n1', 'n3', 'n4'], params: { latency_ms: 300, jitter_ms: 120, span: 'majority' } };
  assert.equal(describeFault(f), 'at 100 ms: slow links of a majority of the data nodes (n1, n3, n4) by 300 ms ± 120 ms for 1000 ms');
  assert.equal(faultWords('latency', { target: f.target, params: f.params, links: [] }, 1000), 'slow links of a majority of the data nodes (n1, n3, n4) by 300 ms ± 120 ms for 1000 ms');
  // One node: drawn as before (one target), on a single-node topology the only one.
  assert.ok(draw(latency.generate({ ...base, nodes: ['n1'] }), 100).every((x) => x.target === 'n1' && x.params?.span === undefined));
});
