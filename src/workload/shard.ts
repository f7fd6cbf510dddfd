// One search split over N machines (`--shard I/N`): shard I draws only the plans whose
// hash falls in its bucket, so no two shards ever run the same plan whatever their seeds
// (a CI matrix may give each its own); the aims' first plans (one per aim, firstPlans) are
// dealt round the shards, so together they try every aim early; and each shard draws from
// its own seed stream, so shard I of N with one seed draws the same plans again.
import type { RunPlan } from './plan.ts';

export interface Shard {
  /** 1-based. */
  index: number;
  total: number;
  /** Where it came from: '--shard', or the variables an engine set (e.g. 'CI_NODE_INDEX/CI_NODE_TOTAL'). */
  from: string;
}

/** FNV-1a over the plan's JSON: stable across machines and Node versions. */
export function planHash(plan: RunPlan): number {
  const s = JSON.stringify(plan);
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** Whether a drawn plan belongs to this shard: its hash's bucket. */
export function inShard(plan: RunPlan, s: Pick<Shard, 'index' | 'total'>): boolean {
  return planHash(plan) % s.total === s.index - 1;
}

/** The seed of shard I's own stream: the search's seed mixed with I, so shards draw in different orders. */
export function shardSeed(seed: number, s: Pick<Shard, 'index' | 'total'>): number {
  if (s.total === 1) return seed;
  return (Math.imul(seed ^ Math.imul(s.index, 0x9e3779b1), 0x85ebca6b) >>> 1) & 0x7fffffff;
}

/**
 * The shard's share of the first plans (one per aim, most specific first): aim j goes to
 * shard (j mod N) + 1, so N shards together run every aim once. The aims rotate by the
 * fault kinds they compose too: the list is ordered as firstPlans orders it (weight per kind).
 */
export function shardFirstPlans(all: readonly RunPlan[], s: Pick<Shard, 'index' | 'total'>): RunPlan[] {
  return all.filter((_, j) => j % s.total === s.index - 1);
}

/**
 * Whether shard s may run a drawn plan: in its bucket, and not one of any shard's first
 * plans (those run once, on the shard they were dealt to).
 */
export function shardFilter(allFirst: readonly RunPlan[], s: Pick<Shard, 'index' | 'total'>): (plan: RunPlan) => boolean {
  const first = new Set(allFirst.map((p) => JSON.stringify(p)));
  return (plan) => inShard(plan, s) && !first.has(JSON.stringify(plan));
}

/** "2/4". */
export const shardLabel = (s: Pick<Shard, 'index' | 'total'>): string => `${s.index}/${s.total}`;
