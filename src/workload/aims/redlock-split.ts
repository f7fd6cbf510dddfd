// Redlock on N independent masters: c1 reaches one majority, c2 another,
// and the two share exactly one node X (Kleppmann 2016; antirez's restart
// case). c1 locks its majority; then X forgets c1's key, by a restart
// without persistence or a wall-clock jump past the lease; c2 then locks
// its majority, X included, while c1 still holds: a double holder. Each
// client is cut from the masters outside its majority for the whole run.
import fc from 'fast-check';
import type { FaultSpec } from '../../../nemesis/types.ts';
import { emptyRestart, jumpPastLease, leaseShare, serversForget, type Aim } from '../aim.ts';
import type { TopologyDef } from '../../env/topology.ts';
import type { WorkloadOptions } from '../workload-options.ts';
import type { Attempt, RunPlan } from '../plan.ts';

/** Odd N ≥ 3 independent servers that forget as `has` says: two majorities of an odd N can share exactly one node. */
const fits = (has: (t: TopologyDef) => boolean) => (o: WorkloadOptions) => serversForget(o, has) && o.nodes.length >= 3 && o.nodes.length % 2 === 1 && o.clients >= 2;

interface Split { x: string; c1Cut: string[]; c2Cut: string[] }

/** A random X; c1 reaches X and m-1 others, c2 reaches X and the rest. */
function splitArb(nodes: string[]): fc.Arbitrary<Split> {
  const m = Math.floor(nodes.length / 2) + 1;
  return fc.shuffledSubarray(nodes, { minLength: nodes.length, maxLength: nodes.length }).map((order) => {
    const [x, ...rest] = order as [string, ...string[]];
    const c1Side = rest.slice(0, m - 1);
    const c2Side = rest.slice(m - 1);
    return { x, c1Cut: c2Side, c2Cut: c1Side };
  });
}

function splitPlan(o: WorkloadOptions, fault: (x: string, atMs: number, ttl: number) => fc.Arbitrary<FaultSpec>): fc.Arbitrary<RunPlan> {
  const ttl = o.ttlMs;
  return fc.record({
    split: splitArb(o.nodes),
    d1: leaseShare(ttl, 0, 1 / 4),
    // After c1's acquire has reached its masters, well inside its hold.
    afterAcquire: fc.integer({ min: 30, max: Math.max(31, Math.floor(ttl / 4)) }),
    // Within the validity Redlock gives (TTL less the acquire time and drift), so c1 never outlives its lease by design.
    h1: leaseShare(ttl, 1 / 2, 0.7),
    c2After: leaseShare(ttl, 0, 1 / 4),
    w2: leaseShare(ttl, 1 / 2, 2),
  }).chain(({ split, d1, afterAcquire, h1, c2After, w2 }) => {
    const at = d1 + afterAcquire;
    return fault(split.x, at, ttl).map((f): RunPlan => {
      const a1: Attempt = { key: 'k0', delayMs: d1, waitMs: ttl, holdMs: h1, renew: false };
      const a2: Attempt = { key: 'k0', delayMs: at + c2After, waitMs: w2, holdMs: Math.floor(ttl / 8), renew: false };
      const horizon = at + c2After + w2 + ttl;
      const cut = (c: string, nodes: string[]): FaultSpec => ({ kind: 'partition', at_ms: 0, duration_ms: horizon, target: [`client:${c}`, ...nodes] });
      return {
        ttlMs: ttl,
        clients: Array.from({ length: o.clients }, (_, i) => ({ attempts: i === 0 ? [a1] : i === 1 ? [a2] : [] })),
        faults: [cut('c1', split.c1Cut), cut('c2', split.c2Cut), f],
      };
    });
  });
}

export const redlockRestart: Aim = {
  name: 'redlock-split-restart',
  summary: 'two clients each reach a different majority sharing one master; that master restarts without persistence while the first holds',
  kinds: ['partition', 'kill'],
  applies: fits((t) => t.restartForgets !== 'never'),
  plan: (o) => splitPlan(o, (x, at) => fc.integer({ min: 0, max: 100 }).map((down) => (
    { kind: 'kill', at_ms: at, duration_ms: down, target: x, ...emptyRestart(o) }))),
};

export const redlockClock: Aim = {
  name: 'redlock-split-clock',
  summary: "two clients each reach a different majority sharing one master; that master's wall clock jumps past the lease while the first holds (Kleppmann)",
  kinds: ['partition', 'clock-bump'],
  applies: fits((t) => t.expiryClock === 'wall'),
  plan: (o) => splitPlan(o, (x, at, ttl) => jumpPastLease(ttl).map((delta) => (
    { kind: 'clock-bump', at_ms: at, duration_ms: 2 * ttl, target: x, params: { delta_ms: delta } }))),
};
