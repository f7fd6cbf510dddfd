// The fault cells a search could draw (the cells *known*: src/runner/fault-cells.ts says what a
// cell is), and a search steered toward the ones its plans have not aimed at yet.
//
// Known cells. For each fault kind asked for, the places its generator (nemesis/faults/*, with
// the anchoring of server faults: arbitraries.ts) and the aims that compose it draw, among the
// points the calibration run learned: each point a fault of the kind is anchored at, and, when
// the kind also draws faults at a time, the phase holding, and acquire for a kind of client
// scope (timedPhases below: not release, a round trip long, nor idle: a fault that met an idle
// client tested nothing, and one aimed at idle clients is not counted: fault-effects.ts).
// Each place × waiting and alone when the run has two clients or more (alone only with one);
// an acquire's I/O point beyond those every granted acquire reached (only a waiting acquire goes
// there, so another client holds) has a waiting cell only with three clients or more. The places
// are read by drawing each kind's generator KIND_DRAWS times and each aim's AIM_DRAWS times from a
// fixed seed: the same options give the same cells.
//
// Guidance. A fuzzer steers toward new edges; this search steers toward cells not aimed at yet.
// The first WARM_UP plans drawn are the uniform search's own, exactly (a failure they find is found
// as without guidance). After them, the plans not drawn by an aim (src/workload/arbitraries.ts
// planArb: one in three) are drawn *toward a cell*, all of them while some known cell was never
// aimed at, then half: the least aimed-at known cell (ties broken by the seed's random stream), as
// a random plan whose fault of that kind is moved to the cell's place (its point, or a time in the
// phase), its first client first and a second one arriving to wait, the others as drawn (or none
// of them, for alone). The count is of the cells the plans drawn so far aim at (their anchored
// faults' points and the targets of steered draws), never of what the runs hit: a seed draws the
// same plans whatever the servers' timing did, so `--seed` with `--points-from` and the shards
// draw the same plans again. A steered plan stays within the uniform generator's ranges, so
// shrinking (src/runner/shrink.ts: the uniform arbitrary's shrink without context) works on it as
// on any other.
import fc from 'fast-check';
import type { FaultSpec } from '../../nemesis/types.ts';
import { aimsFor } from './aims.ts';
import { faultArb, planArb, randomPlanArb } from './arbitraries.ts';
import { anchorPoint, anchoredClient, clientId, isAnchoredPause, parseIoPoint, type Attempt, type RunPlan } from './plan.ts';
import { freeAcquirePoint } from '../../nemesis/points.ts';
import { kindDef } from '../../nemesis/kinds.ts';
import type { WorkloadOptions } from './workload-options.ts';
import { cellName, parseCell, type Cell } from './cell.ts';

/** Draws of each kind's generator and of each aim that read the places it can land. */
export const KIND_DRAWS = 400;
export const AIM_DRAWS = 40;
const SEED = 41;

/** The phases a fault at a time can be counted for, in grid order (not idle: see above). */
const TIMED_PHASES = ['acquire', 'holding', 'release'] as const;
/**
 * The phases known for a kind's faults at a time: a hold (long) for every kind; an acquire too for a
 * fault of one client (under contention a client's acquire waits long), not for a fault of servers
 * (it counts what the most engaged client did: an acquire only while nobody held, a few ms). A
 * release is a round trip: a fault at a time lands in one by luck (it is counted when it does),
 * and the release's own points are where faults aim at it.
 */
const timedPhases = (kind: string): readonly string[] => (kindDef(kind)?.scope === 'client' ? ['acquire', 'holding'] : ['holding']);

/** How a kind's fault lands at a place: its own params.point, a server fault's anchor, or a time. */
type Form = 'param' | 'anchor' | 'timed';
const formOf = (s: FaultSpec): Form => (s.anchor ? 'anchor' : typeof s.params?.point === 'string' ? 'param' : 'timed');

/** A place a kind lands at: how (its form) and the first fault drawn that lands there (a template when a draw has none of that form). */
export interface Landing { form: Form; spec: FaultSpec }

/** The places each kind can land, with the first fault drawn that lands there. */
export function kindPlaces(o: WorkloadOptions): Map<string, Map<string, Landing>> {
  const out = new Map<string, Map<string, Landing>>();
  const note = (s: FaultSpec) => {
    if (!o.faults.includes(s.kind)) return;
    let m = out.get(s.kind);
    if (!m) out.set(s.kind, (m = new Map()));
    const f = formOf(s);
    if (f === 'timed') { for (const p of timedPhases(s.kind)) if (!m.has(p)) m.set(p, { form: f, spec: s }); return; }
    const point = anchorPoint(s);
    if (point !== undefined && !m.has(point)) m.set(point, { form: f, spec: s });
  };
  for (const k of new Set(o.faults)) {
    for (const group of fc.sample(faultArb(k, o), { seed: SEED, numRuns: KIND_DRAWS })) group.forEach(note);
  }
  aimsFor(o).forEach((a, i) => {
    for (const plan of fc.sample(a.plan(o), { seed: SEED + i + 1, numRuns: AIM_DRAWS })) plan.faults.forEach(note);
  });
  return out;
}

/** Whether the waiting cell of a place can occur with this many clients. */
function waitingPossible(place: string, o: WorkloadOptions): boolean {
  if (o.clients < 2) return false;
  const io = parseIoPoint(place);
  // Beyond what a free lock's acquire reaches, the client waits behind a holder: a third client must wait too.
  if (io?.op === 'acquire' && !freeAcquirePoint(place, { sends: o.grantedAcquireSends, replies: o.grantedAcquireReplies })) return o.clients >= 3;
  return true;
}

/** The known cells, in grid order: by kind as asked, its places (named points, I/O points, then phases), waiting before alone. */
export function knownCells(o: WorkloadOptions, places = kindPlaces(o)): Cell[] {
  const out: Cell[] = [];
  const rank = (p: string) => ((TIMED_PHASES as readonly string[]).includes(p) ? 2 : parseIoPoint(p) ? 1 : 0);
  for (const kind of new Set(o.faults)) {
    const m = places.get(kind);
    if (!m) continue;
    const named = (p: string) => { const i = (o.points ?? []).indexOf(p); return i < 0 ? Infinity : i; };
    const ps = [...m.keys()].sort((a, b) => rank(a) - rank(b) || (rank(a) === 2 ? TIMED_PHASES.indexOf(a as never) - TIMED_PHASES.indexOf(b as never)
      : rank(a) === 1 ? ioOrder(a, b) : (named(a) - named(b) || (a < b ? -1 : a > b ? 1 : 0))));
    for (const place of ps) {
      if (waitingPossible(place, o)) out.push({ kind, place, waiting: true });
      out.push({ kind, place, waiting: false });
    }
  }
  return out;
}

/** I/O points by operation, kind, then N; named points keep their order. */
function ioOrder(a: string, b: string): number {
  const x = parseIoPoint(a), y = parseIoPoint(b);
  if (!x || !y) return 0;
  const ops = ['acquire', 'release', 'renew'];
  return ops.indexOf(x.op) - ops.indexOf(y.op) || (x.kind === y.kind ? 0 : x.kind === 'send' ? -1 : 1) || x.n - y.n;
}

/** The cells a search steers toward, and how often the plans drawn so far aimed at each. */
export class CellGuide {
  readonly cells: Cell[];
  readonly aimed = new Map<string, number>();
  /** Plans drawn so far (noted): steering starts after WARM_UP of them. */
  drawn = 0;
  private readonly steered = new WeakMap<RunPlan, Cell>();
  constructor(readonly o: WorkloadOptions, readonly places = kindPlaces(o)) {
    this.cells = knownCells(o, places);
    for (const c of this.cells) this.aimed.set(cellName(c), 0);
  }

  /** A plan was drawn: count the cells it aims at (a steered plan its target; another its anchored faults' points). */
  note(plan: RunPlan): void {
    this.drawn++;
    const target = this.steered.get(plan);
    for (const c of target ? [target] : aimedCells(plan)) {
      const n = cellName(c);
      if (this.aimed.has(n)) this.aimed.set(n, this.aimed.get(n)! + 1);
    }
  }

  /** Counts cells as aimed at already (a test, or a caller that has its own map). */
  mark(names: readonly string[], times = 1): void {
    for (const n of names) if (this.aimed.has(n)) this.aimed.set(n, this.aimed.get(n)! + times);
  }

  /** The least aimed-at cells (a shard's: only of the kinds it leads). */
  leastAimed(kinds?: readonly string[]): Cell[] {
    const cs = this.cells.filter((c) => !kinds || kinds.includes(c.kind));
    const min = Math.min(...cs.map((c) => this.aimed.get(cellName(c))!));
    return cs.filter((c) => this.aimed.get(cellName(c)) === min);
  }

  /** The cell a plan was steered toward (undefined: drawn uniformly or by an aim). */
  steeredTo(plan: RunPlan): Cell | undefined {
    return this.steered.get(plan);
  }

  /** Remembers which cell a steered plan was drawn toward. */
  steer(plan: RunPlan, cell: Cell): RunPlan {
    this.steered.set(plan, cell);
    return plan;
  }
}

/** The cells a plan's anchored faults aim at (a fault at a time: its phase is not known before the run). */
export function aimedCells(plan: RunPlan): Cell[] {
  const out: Cell[] = [];
  for (const f of plan.faults) {
    const point = isAnchoredPause(f) ? anchorPoint(f) : undefined;
    if (point === undefined) continue;
    const me = plan.clients.findIndex((_, i) => clientId(i) === anchoredClient(f));
    const keys = new Set((plan.clients[me]?.attempts ?? []).map((a) => a.key));
    const waiting = plan.clients.some((c, i) => i !== me && c.attempts.some((a) => keys.has(a.key)));
    out.push({ kind: f.kind, place: point, waiting });
  }
  return out;
}

/** The plans not drawn by an aim are steered toward a cell: all of them while some known cell was never aimed at, then half (see above). */
export const STEERED_SHARE = 0.5;
/**
 * The first plans drawn are the uniform search's, exactly (no steering draws from the random stream
 * before): a failure they find is found as without guidance, the search's early runs being the
 * strongest detectors (the aims' first plans, then their mix); steering takes over after them.
 */
export const WARM_UP = 12;

/**
 * The search's plans, steered: planArb with its random slot drawing half its plans toward the
 * least aimed-at cell, every plan drawn counted (CellGuide.note). Without known cells (no fault
 * kinds asked for) it is planArb.
 */
export function guidedPlanArb(o: WorkloadOptions, guide: CellGuide): fc.Arbitrary<RunPlan> {
  if (guide.cells.length === 0) return planArb(o);
  return new Noting(planArb(o, (random) => new Steered(random, o, guide)), guide);
}

type Ctx = { arb: fc.Arbitrary<RunPlan>; ctx: unknown } | undefined;

/** Draws with the inner arbitrary and counts each plan drawn; shrinks as the inner one. */
class Noting extends fc.Arbitrary<RunPlan> {
  constructor(private readonly inner: fc.Arbitrary<RunPlan>, private readonly guide: CellGuide) { super(); }
  generate(mrng: fc.Random, bias: number | undefined): fc.Value<RunPlan> {
    const v = this.inner.generate(mrng, bias);
    this.guide.note(v.value);
    return v;
  }
  canShrinkWithoutContext(v: unknown): v is RunPlan { return this.inner.canShrinkWithoutContext(v); }
  shrink(v: RunPlan, ctx: unknown): fc.Stream<fc.Value<RunPlan>> { return this.inner.shrink(v, ctx); }
}

/** The random slot: a uniform plan, or (STEERED_SHARE) one drawn toward the least aimed-at cell. */
class Steered extends fc.Arbitrary<RunPlan> {
  private readonly toward = new Map<string, fc.Arbitrary<RunPlan>>();
  constructor(private readonly uniform: fc.Arbitrary<RunPlan>, private readonly o: WorkloadOptions, private readonly guide: CellGuide) { super(); }
  generate(mrng: fc.Random, bias: number | undefined): fc.Value<RunPlan> {
    let arb = this.uniform;
    if (this.guide.drawn < WARM_UP) return this.wrap(arb, arb.generate(mrng, bias));
    const lead = this.o.leadKinds?.filter((k) => this.o.faults.includes(k));
    const cells = this.guide.leastAimed(lead?.length ? lead : undefined);
    const fresh = cells.length > 0 && this.guide.aimed.get(cellName(cells[0]!)) === 0;
    if (mrng.nextInt(0, 999) < (fresh ? 1000 : STEERED_SHARE * 1000)) {
      if (cells.length) {
        const cell = cells[mrng.nextInt(0, cells.length - 1)]!;
        const name = cellName(cell);
        arb = this.toward.get(name) ?? towardArb(this.o, cell, this.guide);
        this.toward.set(name, arb);
      }
    }
    return this.wrap(arb, arb.generate(mrng, bias));
  }
  private wrap(arb: fc.Arbitrary<RunPlan>, v: fc.Value<RunPlan>): fc.Value<RunPlan> {
    return new fc.Value(v.value, { arb, ctx: v.context } satisfies Ctx);
  }
  canShrinkWithoutContext(v: unknown): v is RunPlan { return this.uniform.canShrinkWithoutContext(v); }
  shrink(v: RunPlan, ctx: unknown): fc.Stream<fc.Value<RunPlan>> {
    const c = ctx as Ctx;
    const arb = c?.arb ?? (this.uniform.canShrinkWithoutContext(v) ? this.uniform : undefined);
    if (!arb) return fc.Stream.nil();
    return arb.shrink(v, c?.ctx).map((x) => new fc.Value(x.value, { arb, ctx: x.context } satisfies Ctx));
  }
}

/** A client id in a target, as c1 (keeping its form: 'c2' → 'c1', 'client:c2' → 'client:c1'). */
const toFirst = (t: FaultSpec['target']): FaultSpec['target'] => {
  const one = (x: string) => x.replace(/^(client:)?c\d+$/, '$1c1');
  return t === undefined ? t : Array.isArray(t) ? [...new Set(t.map(one))] : one(t);
};

/**
 * A plan drawn toward one cell: a random plan and a fault of the cell's kind as its generator
 * draws it (its own numbers), moved to the cell's place on the first client, whose first attempt
 * starts at once; for a waiting cell the second client's first attempt on the same key arrives
 * while the first holds (or, at an acquire's point, at once), for an alone cell the others are silent.
 */
export function towardArb(o: WorkloadOptions, cell: Cell, guide: CellGuide): fc.Arbitrary<RunPlan> {
  const landing = guide.places.get(cell.kind)?.get(cell.place);
  if (!landing) return randomPlanArb(o);
  return fc.tuple(randomPlanArb(o), faultArb(cell.kind, o)).map(([plan, group]) => guide.steer(shape(o, plan, group, cell, landing), cell));
}

function shape(o: WorkloadOptions, plan: RunPlan, group: FaultSpec[], cell: Cell, landing: Landing): RunPlan {
  const ttl = o.ttlMs;
  const form = landing.form;
  // A fault of this draw that lands the same way (its own numbers), else the one drawn when the places were read.
  const drawn = group.find((s) => s.kind === cell.kind && formOf(s) === form) ?? landing.spec;
  const io = parseIoPoint(cell.place);
  const clients = plan.clients.map((c) => ({ attempts: c.attempts.map((a) => ({ ...a })) }));
  const first: Attempt = clients[0]!.attempts[0] ?? clients.find((c) => c.attempts.length)?.attempts[0] ?? { key: 'k0', delayMs: 0, waitMs: ttl, holdMs: 0, renew: false };
  // Held long enough for a second client to arrive and wait (a plain hold's range: up to TTL/4).
  const holdMs = first.renew && o.renew && !o.sessionMs ? first.holdMs : Math.max(first.holdMs, Math.floor(ttl / 8));
  // Only an acquire that waits behind a holder reaches an acquire's point beyond those of a free lock's
  // (and a client's acquire lasts long only then): the second client holds first, the first arrives behind it.
  const behind = clients.length >= 2 && ((io?.op === 'acquire' && !freeAcquirePoint(cell.place, { sends: o.grantedAcquireSends, replies: o.grantedAcquireReplies })) || (form === 'timed' && cell.place === 'acquire'));
  const soon = Math.min(10, Math.floor(ttl / 2));
  const mine: Attempt = { ...first, delayMs: behind ? soon : 0, holdMs, ...(behind ? { waitMs: 2 * ttl } : {}), ...(io?.op === 'renew' && o.renew ? { renew: true } : {}) };
  clients[0] = { attempts: [mine, ...clients[0]!.attempts.slice(1)] };
  const other = (i: number, delayMs: number, hold?: number): void => {
    const a = clients[i]!.attempts[0] ?? { ...first };
    clients[i] = { attempts: [{ ...a, key: mine.key, delayMs, waitMs: 2 * ttl, ...(hold !== undefined ? { holdMs: hold, renew: false } : {}) }, ...clients[i]!.attempts.slice(1)] };
  };
  // The waiter: the client after the holders, arriving while the first is held at its point or holds
  // (at an acquire's point of a free lock, stopped before its command: the waiter's acquire is pending then).
  // The clients after it keep their attempts as drawn (the contention a uniform plan has); for an
  // alone cell they are silent.
  const waiter = behind ? 2 : 1;
  for (let i = 1; i < clients.length; i++) {
    if (behind && i === 1) other(1, 0, Math.floor(ttl / 4));
    else if (cell.waiting && i === waiter) other(i, soon + (behind ? 5 : 0));
    else if (!cell.waiting) clients[i] = { attempts: [] };
  }
  let spec: FaultSpec = { ...drawn };
  if (form === 'param') spec = { ...spec, at_ms: 0, target: toFirst(spec.target), params: { ...spec.params, point: cell.place } };
  // Anchored at the first client's point: a fault on clients acts on that client too (a session-kill of c3
  // while c1 holds missed its mark, or ended a session that held nothing).
  else if (form === 'anchor') spec = { ...spec, at_ms: 0, anchor: { client: 'c1', point: cell.place }, ...(spec.target !== undefined && isClientTarget(spec.target) ? { target: toFirst(spec.target) } : {}) };
  else {
    // At a time in the phase: the first client's acquire starts at 0, its hold right after, its release after holdMs.
    const at = cell.place === 'acquire' ? (behind ? 2 * soon : 0) : cell.place === 'holding' ? Math.floor(holdMs / 2) : holdMs + 1;
    const { anchor: _a, ...rest } = spec;
    spec = { ...rest, at_ms: at, ...(rest.target !== undefined && typeof drawn.target !== 'undefined' && isClientTarget(drawn.target) ? { target: toFirst(drawn.target) } : {}) };
  }
  return { ...plan, clients, faults: [spec] };
}

const isClientTarget = (t: FaultSpec['target']): boolean => (Array.isArray(t) ? t : [t]).every((x) => typeof x === 'string' && /^(client:)?c\d+$/.test(x));

/** The known cells by name (results.json's `coverage.cells.known`). */
export const knownCellNames = (o: WorkloadOptions): string[] => knownCells(o).map(cellName);

export { parseCell };
