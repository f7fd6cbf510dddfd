// fast-check arbitraries for a run plan. Small pieces that compose: an attempt,
// a client, one fault per kind, the plan. Every number shrinks toward 0 and every
// list toward its shortest, so a violation shrinks to few attempts and few faults.
// Fault generators are aimed at where locks break (a pause longer than the lease,
// a clock jump larger than the lease), so one run has a real chance to show it.
import fc from 'fast-check';
import type { FaultSpec } from '../../nemesis/types.ts';
import { CRITICAL_SECTION, clientId, type Attempt, type ClientPlan, type RunPlan } from './plan.ts';

export interface WorkloadOptions {
  clients: number;        // this many clients (some may shrink to no attempts)
  faults: string[];       // fault kinds to draw from; [] = no faults
  ttlMs: number;          // lease of every acquire
  keys?: number;          // distinct lock names (default 1)
  maxAttempts?: number;   // per client (default 3)
  maxFaults?: number;     // per run (default 2)
  nodes: string[];        // data node ids the node faults may target
  points?: string[];      // where client pauses may land (default: 'in-critical-section')
  renew?: boolean;        // the lock has renew(): let attempts use it
  reentrant?: boolean;    // the lock is reentrant: let attempts lock the same key again while holding it
}

export function attemptArb(o: WorkloadOptions): fc.Arbitrary<Attempt> {
  const keys = Array.from({ length: Math.max(1, o.keys ?? 1) }, (_, i) => `k${i}`);
  return fc.record({
    key: fc.constantFrom(...keys),
    delayMs: fc.integer({ min: 0, max: Math.floor(o.ttlMs / 2) }),
    // Long enough to outlast a holder, so clients keep contending while a fault is on.
    waitMs: fc.integer({ min: Math.floor(o.ttlMs / 2), max: 2 * o.ttlMs }),
    // Well inside the lease, so a fault-free run never outlives its lease by design.
    holdMs: fc.integer({ min: 0, max: Math.floor(o.ttlMs / 4) }),
    renew: o.renew ? fc.boolean() : fc.constant(false),
    // Only reentrant locks get the field at all, so other plans read as before.
    ...(o.reentrant ? { reenter: fc.boolean() } : {}),
  }) as fc.Arbitrary<Attempt>;
}

export function clientArb(o: WorkloadOptions): fc.Arbitrary<ClientPlan> {
  const max = Math.max(1, o.maxAttempts ?? 3);
  // Empty is allowed: shrinking silences the clients a violation does not need.
  return fc.record({ attempts: fc.array(attemptArb(o), { minLength: 0, maxLength: max, size: 'max' }) });
}

/** Generators for the fault kinds the runner knows how to aim; others get a plain timed spec. */
export function faultArb(kind: string, o: WorkloadOptions): fc.Arbitrary<FaultSpec> {
  const ttl = o.ttlMs;
  const clients = Array.from({ length: o.clients }, (_, i) => clientId(i));
  const nodes = o.nodes.length ? o.nodes : ['n1'];
  const at = fc.integer({ min: 0, max: ttl });
  // Longer than the lease, not much longer: runs stay short.
  const beyondLease = fc.integer({ min: ttl + 100, max: Math.floor(1.5 * ttl) + 200 });
  switch (kind) {
    case 'client-pause':
      // Anchored at a named point: a pause in the critical section longer than the
      // lease is the classic GC-pause failure; recipe points (e.g. 'after-compare') too.
      // Around the lease: resuming just after it ran out finds the next holder still
      // holding (what a stale unlock needs); a pause begun late in the lease needs less.
      return fc.record({
        kind: fc.constant(kind), at_ms: fc.integer({ min: 0, max: Math.floor(ttl / 2) }),
        duration_ms: fc.integer({ min: ttl - Math.floor(ttl / 4), max: ttl + Math.floor(ttl / 2) }),
        target: fc.constantFrom(...clients),
        params: fc.record({ point: fc.constantFrom(...(o.points?.length ? o.points : [CRITICAL_SECTION])) }),
      });
    case 'client-clock':
      // A skew larger than the lease makes other holders' expiry timestamps look past (or own ones stale).
      return fc.record({
        kind: fc.constant(kind), at_ms: at, target: fc.constantFrom(...clients),
        params: fc.record({ delta_ms: fc.oneof(fc.integer({ min: ttl + 100, max: 4 * ttl }), fc.integer({ min: -4 * ttl, max: -(ttl + 100) })) }),
      });
    case 'clock-bump':
      // A forward jump larger than the lease expires the key at once (Redis keeps absolute expiry times).
      return fc.record({
        kind: fc.constant(kind), at_ms: at, target: fc.constantFrom(...nodes),
        params: fc.record({ delta_ms: fc.integer({ min: ttl + 200, max: 4 * ttl }) }),
      });
    case 'kill':
      // Restarted without persistence after a short time: the lock key is forgotten.
      return fc.record({
        kind: fc.constant(kind), at_ms: at, duration_ms: fc.integer({ min: 0, max: 300 }),
        target: fc.constantFrom(...nodes), params: fc.constant({ persistence: 'none' }),
      });
    case 'pause':
      return fc.record({ kind: fc.constant(kind), at_ms: at, duration_ms: beyondLease, target: fc.constantFrom(...nodes) });
    case 'partition':
      return fc.record({
        kind: fc.constant(kind), at_ms: at, duration_ms: beyondLease,
        target: fc.constantFrom(...nodes, ...clients.map((c) => `client:${c}`)),
      });
    case 'latency':
      return fc.record({
        kind: fc.constant(kind), at_ms: at, duration_ms: beyondLease, target: fc.constantFrom(...nodes),
        params: fc.record({ latency_ms: fc.integer({ min: 50, max: ttl }) }),
      });
    case 'failover':
      return fc.record({ kind: fc.constant(kind), at_ms: at, duration_ms: beyondLease });
    default:
      return fc.record({ kind: fc.constant(kind), at_ms: at, duration_ms: beyondLease, target: fc.constantFrom(...nodes) });
  }
}

export function faultsArb(o: WorkloadOptions): fc.Arbitrary<FaultSpec[]> {
  if (o.faults.length === 0) return fc.constant([]);
  const one = fc.oneof(...o.faults.map((k) => faultArb(k, o)));
  // At least one fault when faults were asked for: a run without any tests nothing new.
  return fc.array(one, { minLength: 1, maxLength: Math.max(1, o.maxFaults ?? 2), size: 'max' });
}

export function planArb(o: WorkloadOptions): fc.Arbitrary<RunPlan> {
  const n = Math.max(1, o.clients);
  return fc.record({
    ttlMs: fc.constant(o.ttlMs),
    // Always all n clients, so every fault's client target exists; idle ones shrink to no attempts.
    clients: fc.array(clientArb(o), { minLength: n, maxLength: n }),
    faults: faultsArb(o),
  });
}
