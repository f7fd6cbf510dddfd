// The fault kinds, and createFault: validate a spec, build its fault, and
// track it as active on its context so healAll can always undo it.
import type { Fault, FaultSpec, NemesisContext } from './types.ts';
import { defineFault, nextFaultId, type KindDef } from './fault.ts';
import { clientClock, clientPause } from './faults/client.ts';
import { clockBump, clockReset, clockStrobe } from './faults/clock.ts';
import { failover } from './faults/failover.ts';
import { latency, partition } from './faults/partition.ts';
import { kill, pause } from './faults/process.ts';
import { validateFaultSpec, validateSchedule, type KindSchema } from './spec.ts';
import type { FaultSchedule } from './types.ts';

const KINDS: readonly KindDef[] = [partition, latency, pause, kill, clockBump, clockStrobe, clockReset, failover, clientPause, clientClock];

export const SCHEMAS: readonly KindSchema[] = KINDS.map((k) => k.schema);

/** For `lockpick list`: kind, one-line summary, what target means, params with their docs. */
export const FAULT_KINDS: readonly { kind: string; summary: string; target: string; oneShot: boolean; params: Record<string, string> }[] =
  SCHEMAS.map((s) => ({
    kind: s.kind,
    summary: s.summary,
    target: s.target,
    oneShot: s.oneShot === true,
    params: Object.fromEntries(Object.entries(s.params).map(([n, p]) => [n, `${p.type}${p.required ? ', required' : ''}: ${p.doc}`])),
  }));

/** Faults started and not yet stopped, per context. */
const active = new WeakMap<NemesisContext, Set<Fault>>();

export function activeFaults(ctx: NemesisContext): Fault[] {
  return [...(active.get(ctx) ?? [])];
}

export function checkFaultSpec(spec: unknown): FaultSpec {
  return validateFaultSpec(spec, SCHEMAS);
}

export function checkSchedule(schedule: unknown): FaultSchedule {
  return validateSchedule(schedule, SCHEMAS);
}

/** Builds the fault a spec describes (throws FaultSpecError on a bad spec). */
export function createFault(spec: FaultSpec, ctx: NemesisContext): Fault {
  const s = checkFaultSpec(spec);
  const def = KINDS.find((k) => k.schema.kind === s.kind)!;
  const id = nextFaultId();
  const fault = defineFault(s, ctx, id, def.create(s, ctx, id));
  let set = active.get(ctx);
  if (!set) { set = new Set(); active.set(ctx, set); }
  const live = set;
  // The set holds this wrapper (not the inner fault), so a stop from healAll also takes it out.
  const tracked: Fault = {
    kind: fault.kind,
    async start() {
      live.add(tracked); // before start: a start that throws halfway is still healed
      await fault.start();
    },
    async stop() {
      try { await fault.stop(); } finally { live.delete(tracked); }
    },
  };
  return tracked;
}
