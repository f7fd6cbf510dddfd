// Disjointness and evenness of shards, counted from the plans each shard's search runs (search.ts
// as the runner calls it, every run answered at once, no servers): N shards with one seed, how many
// plans ran, how many distinct, how many ran on two shards or more, which aims' first plans ran, and
// per shard the kinds it leads (shardKinds) and how many of its plans hold each kind asked for.
//   node --import tsx bench/shard-plans.ts [N=4] [runs per shard=500] [seed=2026] [faults=client-pause]
import { firstPlans, planArb, type WorkloadOptions } from '../src/workload/arbitraries.ts';
import { aimsFor } from '../src/workload/aims.ts';
import { shardFilter, shardFirstPlans, shardKinds, shardSeed } from '../src/workload/shard.ts';
import { search } from '../src/runner/search.ts';
import type { RunOutcome } from '../src/runner/session.ts';

const [n = '4', r = '500', sd = '2026', faults = 'client-pause'] = process.argv.slice(2);
const [total, runs, seed] = [Number(n), Number(r), Number(sd)];
// A single Redis with the points a calibration run learns for redis-set-px-lua.
const O: WorkloadOptions = { clients: 3, faults: faults.split(','), ttlMs: 800, nodes: ['n1'], topology: 'redis', points: ['in-critical-section', 'before-release', 'send:release:1', 'send:acquire:1', 'reply:acquire:1'] };
const first = firstPlans(O, seed);
const firstKeys = new Set(first.map((p) => JSON.stringify(p)));
const owner = new Map<string, Set<number>>();
const withKind: Record<string, number> = Object.fromEntries(O.faults.map((k) => [k, 0]));
let ran = 0, firstRan = 0;
for (let index = 1; index <= total; index++) {
  const s = { index, total };
  const lead = shardKinds(O.faults, s);
  const mine: Record<string, number> = Object.fromEntries(O.faults.map((k) => [k, 0]));
  let leads = 0, own = 0;
  await search({
    arb: planArb({ ...O, leadKinds: lead }).filter(shardFilter(first, s)), first: shardFirstPlans(first, s, O.faults), seed: shardSeed(seed, s), runs, timeMs: 600_000, shrinkTimeMs: 1,
    runOnce: async (plan) => {
      ran++; own++;
      const k = JSON.stringify(plan);
      if (firstKeys.has(k)) firstRan++;
      owner.set(k, (owner.get(k) ?? new Set()).add(index));
      const kinds = new Set(plan.faults.map((f) => f.kind));
      for (const x of kinds) { mine[x]!++; withKind[x]!++; }
      if (lead.some((x) => kinds.has(x))) leads++;
      return { verdict: true } as RunOutcome;
    },
  });
  console.log(`shard ${index}/${total} leads ${lead.join(', ')}: ${own} plans, ${leads} with a kind it leads; plans holding each kind: ${Object.entries(mine).map(([k, c]) => `${k} ${c}`).join(', ')}`);
}
const shared = [...owner.values()].filter((o) => o.size > 1).length;
console.log(`${total} shards × ${runs} runs, seed ${seed}, faults ${O.faults.join(',')}: ${ran} plans run, ${owner.size} distinct, ${shared} on two shards or more; aims that fit ${aimsFor(O).length}, their first plans run ${firstRan} time(s); all shards, plans holding each kind: ${Object.entries(withKind).map(([k, c]) => `${k} ${c}`).join(', ')}`);
