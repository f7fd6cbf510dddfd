// A single Redis server forgets a held lease: the moment c1 holds, the
// server's wall clock jumps past the lease (Redis expires keys by its wall
// clock) or it restarts without persistence; c2, already waiting, gets the
// lock while c1 still holds: a double holder. A random plan starts the fault at
// a time, which often falls when nobody holds or nobody waits; this one starts
// it at c1's event (FaultSpec.anchor), with c2 waiting across it.
import fc from 'fast-check';
import type { FaultSpec } from '../../../nemesis/types.ts';
import { emptyRestart, jumpPastLease, type Aim } from '../aim.ts';
import type { WorkloadOptions } from '../arbitraries.ts';
import { CRITICAL_SECTION, type RunPlan } from '../plan.ts';

/** One Redis server (several masters are Redlock's: ./redlock-split.ts). */
const fits = (o: WorkloadOptions) => (o.topology ?? 'redis') === 'redis' && o.nodes.length === 1 && o.clients >= 2;

function forgetPlan(o: WorkloadOptions, fault: (node: string, ttl: number) => fc.Arbitrary<Omit<FaultSpec, 'at_ms' | 'anchor'>>): fc.Arbitrary<RunPlan> {
  const ttl = o.ttlMs;
  return fc.record({
    d1: fc.integer({ min: 0, max: Math.floor(ttl / 4) }),
    // Inside the lease, long enough for c2 to get in after the fault.
    h1: fc.integer({ min: Math.floor(ttl / 2), max: Math.floor(0.7 * ttl) }),
    // c2 is waiting when c1 gets the lock (or just after), and waits past c1's hold.
    c2: fc.integer({ min: 0, max: Math.floor(ttl / 4) }),
    f: fault(o.nodes[0]!, ttl),
  }).map(({ d1, h1, c2, f }): RunPlan => ({
    ttlMs: ttl,
    clients: Array.from({ length: o.clients }, (_, i) => ({
      attempts: i === 0 ? [{ key: 'k0', delayMs: d1, waitMs: ttl, holdMs: h1, renew: false }]
        : i === 1 ? [{ key: 'k0', delayMs: d1 + c2, waitMs: 2 * ttl, holdMs: Math.floor(ttl / 8), renew: false }] : [],
    })),
    faults: [{ ...f, at_ms: 0, anchor: { client: 'c1', point: CRITICAL_SECTION } } as FaultSpec],
  }));
}

export const leaseClockJump: Aim = {
  name: 'lease-clock-jump',
  summary: "the server's wall clock jumps past the lease the moment a client holds; a waiting client gets the lock",
  kinds: ['clock-bump'],
  applies: fits,
  plan: (o) => forgetPlan(o, (node, ttl) => jumpPastLease(ttl).map((delta) => (
    { kind: 'clock-bump', duration_ms: 2 * ttl, target: node, params: { delta_ms: delta } }))),
};

export const leaseRestart: Aim = {
  name: 'lease-restart',
  summary: 'the server restarts without persistence the moment a client holds; a waiting client gets the lock',
  kinds: ['kill'],
  applies: fits,
  plan: (o) => forgetPlan(o, (node) => fc.integer({ min: 0, max: 100 }).map((down) => (
    { kind: 'kill', duration_ms: down, target: node, params: emptyRestart(o) }))),
};
