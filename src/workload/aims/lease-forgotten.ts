// The servers forget a held lease: the moment c1 holds, the wall clocks of
// the servers that keep its key jump past the lease (where holds expire by the
// wall clock: Redis) or they restart and forget (a kill, a graceful stop: any
// kind asked for that restarts servers, KindDef.breaks; TopologyDef.restartForgets:
// Redis without persistence, memcached always); c2, already waiting, gets
// the lock while c1 still holds: a double holder. On one server that is the
// server; on N independent masters (Redlock) it is a quorum of them, or any k,
// so a lock whose quorum is too small, or that counts votes wrongly, loses
// with fewer: the holder's state is lost wherever the lock keeps it, with a
// single fault kind (kill alone reaches Redlock's restart failure). A random
// plan starts the fault at a time, which often falls when nobody holds or
// nobody waits; this one starts it at c1's event (FaultSpec.anchor), with c2
// waiting across it.
import fc from 'fast-check';
import type { FaultSpec } from '../../../nemesis/types.ts';
import { emptyRestart, emptyingRestarts, jumpPastLease, leaseShare, serversForget, type Aim } from '../aim.ts';
import type { TopologyDef } from '../../env/topology.ts';
import type { WorkloadOptions } from '../workload-options.ts';
import { CRITICAL_SECTION, type RunPlan } from '../plan.ts';

/** One server or several, each its own, that forget as `has` says (serversForget). */
const fits = (has: (t: TopologyDef) => boolean) => (o: WorkloadOptions) => serversForget(o, has) && o.nodes.length >= 1 && o.clients >= 2;

/**
 * The servers that forget: the one server, or k of N masters: a bare majority most often (no
 * quorum lock survives that; whether it notices is what the run shows), else any k.
 */
export function forgetfulNodes(nodes: string[]): fc.Arbitrary<string | string[]> {
  if (nodes.length <= 1) return fc.constant(nodes[0] ?? 'n1');
  const n = nodes.length;
  const k = fc.oneof({ weight: 3, arbitrary: fc.constant(Math.floor(n / 2) + 1) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: n }) });
  return fc.tuple(k, fc.shuffledSubarray(nodes, { minLength: n, maxLength: n })).map(([kk, order]) => order.slice(0, kk).sort());
}

function forgetPlan(o: WorkloadOptions, fault: (node: string | string[], ttl: number) => fc.Arbitrary<Omit<FaultSpec, 'at_ms' | 'anchor'>>): fc.Arbitrary<RunPlan> {
  const ttl = o.ttlMs;
  return fc.record({
    d1: leaseShare(ttl, 0, 1 / 4),
    // Inside the lease, long enough for c2 to get in after the fault.
    h1: leaseShare(ttl, 1 / 2, 0.7),
    // c2 is waiting when c1 gets the lock (or just after), and waits past c1's hold.
    c2: leaseShare(ttl, 0, 1 / 4),
    f: forgetfulNodes(o.nodes).chain((nodes) => fault(nodes, ttl)),
  }).map(({ d1, h1, c2, f }): RunPlan => ({
    ttlMs: ttl,
    clients: Array.from({ length: o.clients }, (_, i) => ({
      attempts: i === 0 ? [{ key: 'k0', delayMs: d1, waitMs: ttl, holdMs: h1, renew: false }]
        // A wait the stop cuts off ends that attempt (its connection closed: outcome unknown;
        // memcached takes some 400 ms over a graceful stop, closing each connection that comes):
        // c2 asks again a quarter of a lease later, once the server is back.
        : i === 1 ? [{ key: 'k0', delayMs: d1 + c2, waitMs: 2 * ttl, holdMs: Math.floor(ttl / 8), renew: false },
          { key: 'k0', delayMs: Math.floor(ttl / 4), waitMs: ttl, holdMs: Math.floor(ttl / 8), renew: false }] : [],
    })),
    faults: [{ ...f, at_ms: 0, anchor: { client: 'c1', point: CRITICAL_SECTION } } as FaultSpec],
  }));
}

export const leaseClockJump: Aim = {
  name: 'lease-clock-jump',
  summary: "the wall clocks of the server (or of k of N masters, a majority most often) jump past the lease the moment a client holds; a waiting client gets the lock",
  kinds: ['clock-bump'],
  applies: fits((t) => t.expiryClock === 'wall'),
  plan: (o) => forgetPlan(o, (node, ttl) => jumpPastLease(ttl).map((delta) => (
    { kind: 'clock-bump', duration_ms: 2 * ttl, target: node, params: { delta_ms: delta } }))),
};

export const leaseRestart: Aim = {
  name: 'lease-restart',
  summary: 'the server (or k of N masters, a majority most often) restarts and forgets (without persistence, or always: TopologyDef.restartForgets) the moment a client holds; a waiting client gets the lock',
  // Any kind asked for that restarts servers (KindDef.breaks): a kill, a graceful stop.
  kinds: [{ breaks: 'restart' }],
  applies: (o) => fits((t) => t.restartForgets !== 'never')(o) && emptyingRestarts(o).length > 0,
  plan: (o) => {
    const kinds = emptyingRestarts(o);
    // One kind: drawn as a constant, so a seed draws the plans it drew before there was a choice.
    const kind = kinds.length === 1 ? fc.constant(kinds[0]!) : fc.constantFrom(...kinds);
    return forgetPlan(o, (node) => fc.tuple(kind, fc.integer({ min: 0, max: 100 })).map(([k, down]) => (
      { kind: k, duration_ms: down, target: node, ...emptyRestart(o, k) })));
  },
};
