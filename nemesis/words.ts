// Shared pieces of the fault kinds' generators and words, so each kind's file
// says only what is particular to it.
import fc from 'fast-check';
import type { FaultSpec } from './types.ts';
import type { FaultGenOptions } from './fault.ts';
import { topologyDef } from '../src/env/topologies.ts';
import { declared } from '../src/env/topology.ts';

/** "at 120 ms" */
export const at = (f: FaultSpec) => (f.anchor
  ? `when client ${f.anchor.client} reaches '${f.anchor.point}'${f.at_ms ? ` (from ${f.at_ms} ms on)` : ''}`
  : `at ${f.at_ms} ms`);
/** " for 900 ms", or "" for a fault that lasts to the end of the run */
export const lasting = (f: FaultSpec) => (f.duration_ms !== undefined ? ` for ${f.duration_ms} ms` : '');
/** The target as written: "n1", "client:c1, n2" */
export const targetText = (f: FaultSpec) => (f.target === undefined ? '' : Array.isArray(f.target) ? f.target.join(', ') : f.target);
/** Params other than `skip`, as " (k v, ...)" */
export function paramsText(f: FaultSpec, skip: string[] = []): string {
  const rest = Object.entries(f.params ?? {}).filter(([k]) => !skip.includes(k));
  return rest.length ? ` (${rest.map(([k, v]) => `${k} ${JSON.stringify(v)}`).join(', ')})` : '';
}

/**
 * In the first half lease of the run, when clients contend: a small plan's clients can be
 * done within one lease, and a fault due after them tests nothing (the run is inconclusive).
 */
export const startAt = (o: FaultGenOptions) => fc.integer({ min: 0, max: Math.floor(o.ttlMs / 2) });
/** Longer than the lease, not much longer: runs stay short. */
export const beyondLease = (o: FaultGenOptions) => fc.integer({ min: o.ttlMs + 100, max: Math.floor(1.5 * o.ttlMs) + 200 });
/**
 * Longer than the session timeout of a session lock (ZooKeeper), else than the lease: a
 * server keeps a silent client's hold (and an ensemble its leader) that long.
 */
export const beyondSession = (o: FaultGenOptions) => (o.sessionMs
  ? fc.integer({ min: o.sessionMs + 1000, max: Math.floor(1.5 * o.sessionMs) + 1000 })
  : beyondLease(o));
export const someNode = (o: FaultGenOptions) => fc.constantFrom(...(o.nodes.length ? o.nodes : ['n1']));
/**
 * A node to pause, kill or cut off: by id, or where the topology elects one (a ZooKeeper ensemble) also 'leader'
 * (resolved when the fault starts), so the ensemble elects anew while sessions wait.
 */
export const someServer = (o: FaultGenOptions) => fc.constantFrom(
  // 'leader' weighs as two nodes: the one server whose loss makes the ensemble elect.
  ...(o.nodes.length ? o.nodes : ['n1']), ...(hasLeader(o) ? ['leader', 'leader'] : []));
/** The topology elects a leader among enough servers to aim at (TopologyDef.leader). */
function hasLeader(o: FaultGenOptions): boolean {
  const leader = declared(topologyDef(o.topology)?.leader);
  return leader !== undefined && o.nodes.length >= leader.minNodes;
}
export const someClient = (o: FaultGenOptions) => fc.constantFrom(...(o.clients.length ? o.clients : ['c1']));
/**
 * One spec as a group of one. The unmapper lets fast-check shrink a stored plan's
 * faults without the context it generated them with (src/runner/shrink.ts does).
 */
export const single = (a: fc.Arbitrary<FaultSpec>): fc.Arbitrary<FaultSpec[]> => a.map((s) => [s], (v) => {
  if (!Array.isArray(v) || v.length !== 1) throw new Error('not a group of one fault');
  return v[0];
});
