// Coverage-guided search: the cells a search could draw, and plans steered toward the ones not
// aimed at yet (src/workload/cell-space.ts), deterministic for a seed, shrinkable as any plan.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { CellGuide, aimedCells, guidedPlanArb, knownCells } from '../../src/workload/cell-space.ts';
import { planArb } from '../../src/workload/arbitraries.ts';
import { cellName } from '../../src/workload/cell.ts';
import type { WorkloadOptions } from '../../src/workload/workload-options.ts';
import type { RunPlan } from '../../src/workload/plan.ts';

const learned = ['in-critical-section', 'before-write', 'before-release', 'send:acquire:1', 'send:acquire:2', 'reply:acquire:1', 'send:release:1', 'reply:release:1'];
const w = (over: Partial<WorkloadOptions> = {}): WorkloadOptions => ({
  clients: 3, faults: ['client-pause'], ttlMs: 800, nodes: ['n1'], servers: ['n1'], topology: 'redis', leased: true, forgetsAsStarted: true,
  points: learned, grantedAcquireSends: 1, grantedAcquireReplies: 1, ...over,
});

test('known cells: each learned point a kind lands at, × waiting and alone; a place only a waiting acquire reaches is waiting only with 3 clients', () => {
  const names = knownCells(w()).map(cellName);
  assert.ok(names.includes('client-pause@send:release:1/waiting'));
  assert.ok(names.includes('client-pause@in-critical-section/alone'));
  assert.ok(names.includes('client-pause@send:acquire:2/waiting'));
  assert.equal(names.length, learned.length * 2);
  const two = knownCells(w({ clients: 2 })).map(cellName);
  assert.ok(!two.includes('client-pause@send:acquire:2/waiting'), 'beyond a granted acquire another client holds: a waiter needs a third client');
  assert.ok(two.includes('client-pause@send:acquire:1/waiting'));
  const one = knownCells(w({ clients: 1 })).map(cellName);
  assert.ok(one.every((n) => n.endsWith('/alone')), 'no waiting cell with one client');
  assert.deepEqual(knownCells(w({ faults: [] })), []);
});

test('known cells: a kind that also draws faults at a time has phase cells; a server kind anchors at the generic points', () => {
  const names = knownCells(w({ faults: ['kill'] })).map(cellName);
  assert.ok(names.includes('kill@holding/waiting') && names.includes('kill@holding/alone'));
  assert.ok(names.includes('kill@in-critical-section/waiting'));
  assert.ok(!names.some((n) => n.startsWith('kill@release/') || n.startsWith('kill@idle/')));
  const clock = knownCells(w({ faults: ['client-clock'] })).map(cellName);
  assert.ok(clock.includes('client-clock@acquire/waiting') && clock.includes('client-clock@send:acquire:1/alone'));
});

/** How many of these plans aim at the cell. */
const aiming = (plans: RunPlan[], cell: string) => plans.filter((p) => aimedCells(p).some((c) => cellName(c) === cell)).length;

test('given a hit map, drawn plans favour the cells not hit', () => {
  const o = w();
  const rare = 'client-pause@reply:release:1/alone';
  const guide = new CellGuide(o);
  guide.mark(guide.cells.map(cellName).filter((n) => n !== rare), 1000);   // every other cell aimed at often already
  const guided = fc.sample(guidedPlanArb(o, guide), { seed: 7, numRuns: 150 });
  const uniform = fc.sample(planArb(o), { seed: 7, numRuns: 150 });
  const g = aiming(guided, rare), u = aiming(uniform, rare);
  assert.ok(g >= 15, `guided plans aim at the cell not hit: ${g} of 150`);
  assert.ok(g >= 3 * Math.max(1, u), `guided ${g} vs uniform ${u} of 150`);
  // Once it has been aimed at as often as the rest, the steering spreads again.
  assert.ok((guide.aimed.get(rare) ?? 0) >= g);
});

test('a fresh guide steers round the cells: every known cell is aimed at within a few draws per cell', () => {
  const o = w();
  const guide = new CellGuide(o);
  fc.sample(guidedPlanArb(o, guide), { seed: 3, numRuns: 8 * guide.cells.length });
  const never = [...guide.aimed].filter(([, n]) => n === 0).map(([k]) => k);
  assert.deepEqual(never, []);
});

test('deterministic for a seed, and a steered plan shrinks with the uniform arbitrary (no context)', () => {
  const o = w({ faults: ['client-pause', 'kill'] });
  const draw = () => fc.sample(guidedPlanArb(o, new CellGuide(o)), { seed: 11, numRuns: 60 });
  const a = draw(), b = draw();
  assert.deepEqual(a, b);
  const uniform = planArb(o);
  const guide = new CellGuide(o);
  guide.mark(guide.cells.map(cellName).filter((n) => !n.startsWith('client-pause@send:release:1/')), 1000);
  const steered = fc.sample(guidedPlanArb(o, guide), { seed: 5, numRuns: 40 }).filter((p) => guide.steeredTo(p)?.place === 'send:release:1');
  assert.ok(steered.length > 0);
  for (const p of steered) {
    assert.ok(uniform.canShrinkWithoutContext(p), `shrinkable without context: ${JSON.stringify(p)}`);
    const smaller = [...uniform.shrink(p, undefined).take(5)];
    assert.ok(smaller.length > 0);
  }
});

test('every kind at once, steered: plans stay valid (validatePlan, the nemesis schedule) and can take effect', async () => {
  const { KINDS, planSchedule, topologyProblem } = await import('../../nemesis/index.ts');
  const { validatePlan } = await import('../../src/workload/plan.ts');
  const { faultsCanTakeEffect } = await import('../../src/workload/points.ts');
  const all = KINDS.map((k) => k.schema.kind).filter((k) => !topologyProblem(k, 'redis'));
  const o = w({ faults: all, nodes: ['n1', 'n2', 'n3'], servers: ['n1', 'n2', 'n3'] });
  const guide = new CellGuide(o);
  const plans = fc.sample(guidedPlanArb(o, guide), { seed: 17, numRuns: 300 });
  assert.ok(plans.filter((p) => guide.steeredTo(p)).length > 30);
  for (const plan of plans) {
    validatePlan(JSON.parse(JSON.stringify(plan)), 'steered plan');
    planSchedule(plan.faults.filter((f) => !f.anchor && typeof f.params?.point !== 'string'));
    assert.ok(faultsCanTakeEffect(plan));
  }
});

test('the first WARM_UP plans are the uniform search\'s, exactly: a failure they find is found as without guidance', async () => {
  const { WARM_UP } = await import('../../src/workload/cell-space.ts');
  const o = w({ faults: ['client-pause', 'kill'] });
  const guided = fc.sample(guidedPlanArb(o, new CellGuide(o)), { seed: 21, numRuns: WARM_UP + 20 });
  const uniform = fc.sample(planArb(o), { seed: 21, numRuns: WARM_UP + 20 });
  assert.deepEqual(guided.slice(0, WARM_UP), uniform.slice(0, WARM_UP));
  assert.notDeepEqual(guided.slice(WARM_UP), uniform.slice(WARM_UP), 'steered after them');
});

test('a fault on clients steered to the first client\'s point acts on that client (its target moved with its anchor)', () => {
  const o = w({ faults: ['session-kill'], topology: 'mariadb', leased: false, forgetsAsStarted: false });
  const guide = new CellGuide(o);
  assert.ok(guide.cells.length > 0, 'session-kill has cells on mariadb');
  const plans = fc.sample(guidedPlanArb(o, guide), { seed: 11, numRuns: 200 });
  const anchored = plans.flatMap((p) => p.faults).filter((f) => f.kind === 'session-kill' && f.anchor?.client === 'c1');
  assert.ok(anchored.length >= 20, `${anchored.length} steered session-kills anchored at c1`);
  for (const f of anchored) assert.deepEqual([f.target].flat().map((t) => String(t).replace(/^client:/, '')), ['c1'], `anchored at c1, aimed at ${JSON.stringify(f.target)}`);
});
