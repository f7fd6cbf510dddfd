// The options a search draws its plans from, built in one place: from the run's options, the
// lock's recipe and what the session read of its topology (its nodes, links and timescales);
// then the points a calibration run learned, and the plans as a shard draws them.
import type fc from 'fast-check';
import { firstPlans, planArb } from '../workload/arbitraries.ts';
import { CellGuide, guidedPlanArb } from '../workload/cell-space.ts';
import { cellName } from '../workload/cell.ts';
import type { RunPlan } from '../workload/plan.ts';
import type { LearnedPoints } from '../workload/points.ts';
import type { WorkloadOptions } from '../workload/workload-options.ts';
import { shardFilter, shardFirstPlans, shardKinds, shardSeed, type Shard } from '../workload/shard.ts';
import { isLeased, type Session } from './session.ts';
import { topologyOf, type LockRecipe } from '../locks/lock.ts';
import { forgetsAsStarted } from './failure-cause.ts';

/** What of a run's options shapes its plans (RunOptions has them all). */
export interface WorkloadRunOptions {
  recipe: LockRecipe;
  clients: number;
  faults: string[];
  keys: number;
  ttlFixed?: boolean;
  maxAttempts?: number;
  maxFaults?: number;
  restartDelayMs?: number;
  lockOptions?: Record<string, unknown>;
}

/**
 * The workload of a search: `ttlMs` the lease after the topology's floor, `points` where client
 * pauses may land, `renew` whether the lock renews (the recipe's word, or the calibration's).
 */
export function workloadOptions(o: WorkloadRunOptions, session: Pick<Session, 'timescales' | 'dataNodes' | 'serverNodes' | 'hasPeerLinks'>, ttlMs: number, points: string[], renew: boolean | undefined): WorkloadOptions {
  return {
    clients: o.clients, faults: o.faults, ttlMs, ttlFixed: o.ttlFixed, keys: o.keys, maxAttempts: o.maxAttempts, maxFaults: o.maxFaults, restartDelayMs: o.restartDelayMs,
    topology: topologyOf(o.recipe).name, promotionMs: session.timescales.promotionMs, leaseLagMs: session.timescales.leaseLagMs,
    nodes: session.dataNodes(), servers: session.serverNodes(), peerLinks: session.hasPeerLinks(), points,
    reentrant: o.recipe.model === 'reentrant-mutex', renew: renew === true, sessionMs: o.recipe.sessionMs?.(o.lockOptions),
    ...(o.recipe.semaphore ? { semaphore: { limit: o.recipe.semaphore.limit, maxPermits: o.recipe.semaphore.multiPermit ? o.recipe.semaphore.limit : 1 } } : {}),
    ...(o.recipe.modes ? { modes: o.recipe.modes } : {}),
    keepsAlive: o.recipe.keepsAlive === true, leased: isLeased(o.recipe), forgetsAsStarted: forgetsAsStarted(o.recipe),
  };
}

/** The workload with what a calibration run learned: the points reached, the sends every granted acquire makes, whether the lock reports a validity. */
export function withLearned(w: WorkloadOptions, learned: LearnedPoints | undefined): WorkloadOptions {
  const granted = learned?.reached?.io?.acquire;
  return { ...w, points: learned?.points ?? w.points,
    ...(granted?.grantedSends !== undefined ? { grantedAcquireSends: granted.grantedSends } : {}),
    ...(granted?.grantedReplies !== undefined ? { grantedAcquireReplies: granted.grantedReplies } : {}),
    ...(learned?.reached?.validity ? { reportsValidity: true } : {}) };
}

/**
 * The plans a search draws, shrinks along and runs first, and its seed: a shard draws from its own seed stream, only the plans of its bucket, and its share of the aims' first plans.
 * `known`: the fault cells the whole search could draw (src/workload/cell-space.ts; a shard's too, since merge sums them). `guided` (default): the
 * plans not drawn by an aim are steered, half of them, toward the cells the plans drawn so far aimed at least; false: uniform (the bench's baseline).
 */
export function planSource(w: WorkloadOptions, seed: number, shard: Shard | undefined, guided = true): { arb: fc.Arbitrary<RunPlan>; shrinkArb: fc.Arbitrary<RunPlan>; first: RunPlan[]; seed: number; known: string[] } {
  const all = planArb(w);
  const first = firstPlans(w, seed);
  const s = shard && shard.total > 1 ? shard : undefined;
  const guide = new CellGuide(w);
  for (const p of first) guide.note(p);
  const drawn = (o: WorkloadOptions) => (guided ? guidedPlanArb(o, guide) : planArb(o));
  // A shard draws from its own seed stream, only the plans of its bucket that lead with its fault kinds, and its share of the aims' first plans.
  return { arb: s ? drawn({ ...w, leadKinds: shardKinds(w.faults, s) }).filter(shardFilter(first, s)) : drawn(w), shrinkArb: all, first: s ? shardFirstPlans(first, s, w.faults) : first, seed: s ? shardSeed(seed, s) : seed, known: guide.cells.map(cellName) };
}
