// One search split over N machines (`--shard I/N`): shard I draws only the plans whose
// hash falls in its bucket, so no two shards ever run the same plan whatever their seeds
// (a CI matrix may give each its own); the aims' first plans (one per aim, firstPlans) are
// dealt round the shards, so together they try every aim early; the fault kinds asked for
// are dealt round them too (shardKinds: every plan a shard draws has a fault of a kind it
// leads), so each kind leads as many shards as any other; and each shard draws from its own
// seed stream, so shard I of N with one seed draws the same plans again.
import type { RunPlan } from './plan.ts';

export interface Shard {
  /** 1-based. */
  index: number;
  total: number;
  /** Where it came from: '--shard', or the variables an engine set (e.g. 'CI_NODE_INDEX/CI_NODE_TOTAL'). */
  from: string;
}

/**
 * The most shards one search splits into. A shard keeps only the plans it draws whose hash falls
 * in its bucket, 1 in N: drawing a plan takes about 0.4 ms, so past 1000 shards a shard spends
 * longer drawing the plan it keeps than running it (and merge names every missing shard).
 */
export const MAX_SHARDS = 1000;
/** Why, for a refusal. */
export const MAX_SHARDS_WHY = `a shard keeps 1 in N of the plans it draws: past ${MAX_SHARDS} shards it spends longer drawing a plan than running it`;

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
 * The shard's share of the first plans (one per aim, most specific first): plan j goes to one of
 * the shards that lead a kind it holds (shardKinds of `faults`; any shard when none does), the
 * (j mod m)-th of those m, so N shards together run every aim once, each on a shard of its kinds.
 */
export function shardFirstPlans(all: readonly RunPlan[], s: Pick<Shard, 'index' | 'total'>, faults: readonly string[] = []): RunPlan[] {
  const leads = Array.from({ length: s.total }, (_, i) => shardKinds(faults, { index: i + 1, total: s.total }));
  return all.filter((p, j) => {
    const held = p.faults.map((f) => f.kind);
    const own = leads.flatMap((l, i) => (l.some((k) => held.includes(k)) ? [i + 1] : []));
    const to = own.length ? own : leads.map((_, i) => i + 1);
    return to[j % to.length] === s.index;
  });
}

/**
 * Whether shard s may run a drawn plan: in its bucket, and not one of any shard's first
 * plans (those run once, on the shard they were dealt to).
 */
export function shardFilter(allFirst: readonly RunPlan[], s: Pick<Shard, 'index' | 'total'>): (plan: RunPlan) => boolean {
  const first = new Set(allFirst.map((p) => JSON.stringify(p)));
  return (plan) => inShard(plan, s) && !first.has(JSON.stringify(plan));
}

/**
 * The fault kinds shard I leads, from the kinds asked for in their order: with at least as many
 * kinds as shards, kind j goes to shard (j mod N) + 1; with more shards than kinds, shard I leads
 * kind (I − 1) mod k, so each kind leads ⌊N/k⌋ or ⌈N/k⌉ shards. Every plan the shard draws has a
 * fault of one of them (WorkloadOptions.leadKinds: a random plan starts with one, an aim composes
 * one); its other faults are of any kind asked for, so a shard still tries the kinds together.
 */
export function shardKinds(faults: readonly string[], s: Pick<Shard, 'index' | 'total'>): string[] {
  if (faults.length === 0 || s.total === 1) return [...faults];
  if (faults.length >= s.total) return faults.filter((_, j) => j % s.total === s.index - 1);
  return [faults[(s.index - 1) % faults.length]!];
}

/** "2/4". */
export const shardLabel = (s: Pick<Shard, 'index' | 'total'>): string => `${s.index}/${s.total}`;
