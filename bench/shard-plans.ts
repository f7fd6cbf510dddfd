// Disjointness of shards, counted from the plans each shard's search runs (search.ts as the
// runner calls it, every run answered at once, no servers): N shards with one seed, how many
// plans ran, how many distinct, how many ran on two shards or more, and which aims' first plans ran.
//   node --import tsx bench/shard-plans.ts [N=4] [runs per shard=500] [seed=2026]
import { firstPlans, planArb, type WorkloadOptions } from '../src/workload/arbitraries.ts';
import { aimsFor } from '../src/workload/aims.ts';
import { shardFilter, shardFirstPlans, shardSeed } from '../src/workload/shard.ts';
import { search } from '../src/runner/search.ts';
import type { RunOutcome } from '../src/runner/session.ts';

const [total = 4, runs = 500, seed = 2026] = process.argv.slice(2).map(Number);
// A single Redis under client pauses with the points a calibration run learns for redis-set-px-lua.
const O: WorkloadOptions = { clients: 3, faults: ['client-pause'], ttlMs: 800, nodes: ['n1'], topology: 'redis', points: ['in-critical-section', 'before-release', 'send:release:1', 'send:acquire:1', 'reply:acquire:1'] };
const first = firstPlans(O, seed);
const firstKeys = new Set(first.map((p) => JSON.stringify(p)));
const owner = new Map<string, Set<number>>();
let ran = 0, firstRan = 0;
for (let index = 1; index <= total; index++) {
  const s = { index, total };
  await search({
    arb: planArb(O).filter(shardFilter(first, s)), first: shardFirstPlans(first, s), seed: shardSeed(seed, s), runs, timeMs: 600_000, shrinkTimeMs: 1,
    runOnce: async (plan) => {
      ran++;
      const k = JSON.stringify(plan);
      if (firstKeys.has(k)) firstRan++;
      owner.set(k, (owner.get(k) ?? new Set()).add(index));
      return { verdict: true } as RunOutcome;
    },
  });
}
const shared = [...owner.values()].filter((o) => o.size > 1).length;
console.log(`${total} shards × ${runs} runs, seed ${seed}: ${ran} plans run, ${owner.size} distinct, ${shared} on two shards or more; aims that fit ${aimsFor(O).length}, their first plans run ${firstRan} time(s)`);
