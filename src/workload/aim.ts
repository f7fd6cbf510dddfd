// An aim: a whole run plan drawn around one known way a lock family breaks,
// when the failure needs several faults and the clients' timing to line up
// (Redlock's two majorities that share a node, a failover inside a hold).
// A random plan of independent faults finds these rarely or never; an aim
// draws the parts together, and fast-check still chooses every number, node
// and client, so the search stays random within the shape. One file per aim
// in ./aims/ plus one line in AIMS (./aims.ts); planArb mixes them with
// uniform random plans when the kinds they compose were all asked for.
import fc from 'fast-check';
import type { Attempt, RunPlan } from './plan.ts';
import type { FaultSpec } from '../../nemesis/types.ts';
import type { WorkloadOptions } from './workload-options.ts';
import { killParams, restartDelayParams } from '../../nemesis/faults/process.ts';
import { KINDS, kindDef } from '../../nemesis/kinds.ts';
import type { DesignProperty } from '../../nemesis/fault.ts';
import type { TopologyDef } from '../env/topology.ts';
import { topologyDef } from '../env/topologies.ts';

/**
 * The run's servers each keep their own holds (the topology has one data role: no replica
 * takes over, which is the failover aims' business), and its TopologyDef declares `has`: the
 * way they forget (restartForgets, expiryClock). Aims read this, not topology names.
 */
export function serversForget(o: WorkloadOptions, has: (t: TopologyDef) => boolean): boolean {
  const t = topologyDef(o.topology ?? 'redis');
  return t !== undefined && t.roles.data.length === 1 && has(t);
}

/**
 * One fault an aim composes: a kind by name, or any kind that can break a design property
 * (KindDef.breaks), whichever --faults names: `lease-restart` takes a kill or a graceful stop.
 */
export type AimKind = string | { breaks: DesignProperty };

/** The kinds among `asked` that fill k. */
export function kindsFilling(k: AimKind, asked: readonly string[]): string[] {
  return typeof k === 'string' ? (asked.includes(k) ? [k] : []) : [...new Set(asked)].filter((x) => kindDef(x)?.breaks === k.breaks);
}

/** Every registered kind that fills k (the tests, `lockpick list`). */
export const kindsFor = (k: AimKind): string[] => (typeof k === 'string' ? [k] : KINDS.filter((d) => d.breaks === k.breaks).map((d) => d.schema.kind));

/** k in words: its name, or the registered kinds that fill it ('kill | server-term'). */
export const aimKindWords = (k: AimKind): string => kindsFor(k).join(' | ');

export interface Aim {
  name: string;
  /** The failure it aims at, in words (lockpick list, ARCHITECTURE.md). */
  summary: string;
  /** The faults it composes: it is drawn only when each was asked for (--faults), a kind by name or one that fills its slot. */
  kinds: readonly AimKind[];
  /** Whether the topology fits (e.g. an odd number of independent masters). */
  applies(o: WorkloadOptions): boolean;
  /** Its share beside the uniformly random plans (default 2: each aim weighs 2, the random plans 1 per aim). */
  weight?: number;
  plan(o: WorkloadOptions): fc.Arbitrary<RunPlan>;
}

/**
 * The params of a restart of kind `kind` that leaves its node empty (persistence 'none' where the
 * kind and the topology take it; a kind without that param restarts as the servers were started),
 * kept down --restart-delay when given: spread into the spec.
 */
export const emptyRestart = (o: WorkloadOptions, kind = 'kill'): { params?: Record<string, unknown> } => {
  const params = choosesPersistence(kind) ? killParams({ topology: o.topology ?? 'redis', restartDelayMs: o.restartDelayMs }) : restartDelayParams(o);
  return params && Object.keys(params).length ? { params } : {};
};

/** The kind's restart can be told to forget (a `persistence` param), whatever the servers were started with. */
const choosesPersistence = (kind: string) => kindDef(kind)?.schema.params.persistence !== undefined;

/** The kinds asked for that restart servers and leave them empty here: told to (kill's persistence: none), or as the servers were started. */
export const emptyingRestarts = (o: WorkloadOptions): string[] =>
  kindsFilling({ breaks: 'restart' }, o.faults).filter((k) => o.forgetsAsStarted !== false || choosesPersistence(k));

/**
 * A time drawn from `lo` to `hi` leases, each end rounded down to a whole ms: the aims time their
 * plans in shares of the lease (e.g. 1 / 4 to 1 / 2: between a quarter and half a lease).
 */
export const leaseShare = (ttlMs: number, lo: number, hi: number) => fc.integer({ min: Math.floor(lo * ttlMs), max: Math.floor(hi * ttlMs) });

/**
 * When a lease its holder stopped renewing is surely gone on the servers: its TTL plus how late
 * they may act on it (Timescales.leaseLagMs: etcd revokes in a loop of its own). What a plan
 * waits past, so the holder does not wake to a lease that lapsed but still stands.
 */
export const leaseGoneMs = (o: WorkloadOptions) => o.ttlMs + (o.leaseLagMs ?? 0);

/** A wall-clock jump past the lease, as the clock-bump kind draws it: the server expires the key at once. */
export const jumpPastLease = (ttlMs: number) => fc.integer({ min: ttlMs + 200, max: 4 * ttlMs });

/** One attempt on the aims' key 'k0'. */
export const attempt = (delayMs: number, waitMs: number, holdMs: number): Attempt => ({ key: 'k0', delayMs, waitMs, holdMs, renew: false });

/**
 * The shape most aims share: c1 tries the lock first, c2 comes `come` ms later and waits up to
 * `w2`; the other clients stay idle; `faults` are what the aim does around them.
 */
export function firstThenSecond(o: WorkloadOptions, t: { d1: number; w1: number; h1: number; come: number; w2: number; h2: number }, faults: FaultSpec[]): RunPlan {
  const a1 = attempt(t.d1, t.w1, t.h1);
  const a2 = attempt(t.d1 + t.come, t.w2, t.h2);
  return {
    ttlMs: o.ttlMs,
    clients: Array.from({ length: o.clients }, (_, i) => ({ attempts: i === 0 ? [a1] : i === 1 ? [a2] : [] })),
    faults,
  };
}

/**
 * The plan of the aims that stop c1 once, the first time it reaches a point drawn from `points`,
 * for `pause` ms, around firstThenSecond (c2 waits up to `w2`). The times are drawn in the order
 * given, after the point, so a seed draws the same plan.
 */
export function pauseFirst(o: WorkloadOptions, points: string[], w2: number,
  times: { d1: fc.Arbitrary<number>; h1: fc.Arbitrary<number>; come: fc.Arbitrary<number>; h2: fc.Arbitrary<number>; pause: fc.Arbitrary<number> }): fc.Arbitrary<RunPlan> {
  return fc.record({ point: fc.constantFrom(...points), ...times }).map(({ point, pause, ...t }) =>
    firstThenSecond(o, { ...t, w1: o.ttlMs, w2 }, [{ kind: 'client-pause', at_ms: 0, duration_ms: pause, target: 'c1', params: { point } }]));
}
