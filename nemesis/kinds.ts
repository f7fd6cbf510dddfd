// The fault kinds, and createFault: validate a spec, build its fault, and
// track it as active on its context so healAll can always undo it.
import { describeOrderAnchor } from './order.ts';
import type { Fault, FaultSpec, NemesisContext } from './types.ts';
import { defineFault, nextFaultId, type KindDef } from './fault.ts';
import { clientClock, clientPause } from './faults/client.ts';
import { clientKill } from './faults/client-kill.ts';
import { clockBump, clockReset, clockStrobe } from './faults/clock.ts';
import { failover } from './faults/failover.ts';
import { latency, partition } from './faults/partition.ts';
import { kill, pause } from './faults/process.ts';
import { sessionKill } from './faults/session-kill.ts';
import { serverTerm } from './faults/server-term.ts';
import { keepaliveCut } from './faults/keepalive-cut.ts';
import { FaultSpecError, validateFaultSpec, validateSchedule, type KindSchema } from './spec.ts';
import type { FaultSchedule } from './types.ts';
import { missingCapabilities } from '../src/env/capabilities.ts';
import type { EnvKindDef } from '../src/env/types.ts';
import type { Capability } from '../src/env/capabilities.ts';
import { LINK_TARGETS } from './targets.ts';
import { topologyDef } from '../src/env/topologies.ts';
import { EXPIRY_CLOCK_WORDS } from '../src/env/topology.ts';

/** The registry: one line per fault kind (each kind is one file under faults/). */
export const KINDS: readonly KindDef[] = [partition, latency, pause, kill, serverTerm, clockBump, clockStrobe, clockReset, failover, clientPause, clientClock, clientKill, sessionKill, keepaliveCut];

/** The kind's definition, or undefined. */
export function kindDef(kind: string): KindDef | undefined {
  return KINDS.find((k) => k.schema.kind === kind);
}

/** A spec in words, by its kind's own describe (a kind nobody registered is said plainly). */
export function describeFault(spec: FaultSpec): string {
  const def = kindDef(spec.kind);
  const said = def ? def.describe(spec) : `at ${spec.at_ms} ms: ${spec.kind} ${JSON.stringify(spec.target ?? '')}`;
  return spec.after ? `${said}, not before ${describeOrderAnchor(spec.after)}` : said;
}

/** Why `kind` cannot act on `topology` (or, given the lock's `channels`, on this lock), or undefined when it can. */
export function topologyProblem(kind: string, topology: string, channels?: readonly string[]): string | undefined {
  const def = kindDef(kind);
  const t = def?.schema.topologies;
  if (t && !t.includes(topology)) return `fault '${kind}' needs a ${t.join(' or ')} topology; this lock runs on ${topology}`;
  const expiry = topologyDef(topology)?.expiryClock;
  if (def?.movesClock && expiry && expiry !== def.movesClock) {
    return `fault '${kind}' moves the servers' ${def.movesClock} clock, and ${topology}'s holds expire by ${EXPIRY_CLOCK_WORDS[expiry]}: it would change nothing there`;
  }
  const ch = def?.lockChannel;
  return ch && channels && !channels.includes(ch) ? `fault '${kind}' needs a lock with a '${ch}' connection of its own (LockRecipe.channels); this lock has ${channels.length ? channels.join(', ') : 'none'}` : undefined;
}

/** Link targets that act only between servers (no client end): they need node→node links. */
const SERVER_LINK_TARGETS = ['primary-replicas', 'minority', 'majority'];

/** The capabilities a spec needs: its kind's, those of the params it sets, and 'node-link' for a link fault aimed only between servers. */
export function specNeeds(spec: Pick<FaultSpec, 'kind' | 'params'> & { target?: FaultSpec['target'] }): Capability[] {
  const def = kindDef(spec.kind);
  if (!def) return [];
  const extra = Object.entries(def.paramNeeds ?? {}).filter(([p]) => spec.params?.[p] !== undefined).map(([, c]) => c);
  const t = spec.target === undefined ? [] : Array.isArray(spec.target) ? spec.target : [spec.target];
  if (def.schema.target === LINK_TARGETS && t.some((x) => SERVER_LINK_TARGETS.includes(String(x)))) extra.push('node-link');
  return [...new Set([...def.needs, ...extra])];
}

/** Why a fault (a kind, or a spec with its params) cannot run on environment kind `env`, or undefined when it can. */
export function capabilityProblem(spec: string | (Pick<FaultSpec, 'kind' | 'params'> & { target?: FaultSpec['target'] }), env: EnvKindDef): string | undefined {
  const s = typeof spec === 'string' ? { kind: spec } : spec;
  const missing = missingCapabilities(env, specNeeds(s));
  return missing.length ? `fault '${s.kind}' needs ${missing.join(' and ')}, which the ${env.name} environment does not have` : undefined;
}

/** Every kind's other names (`lockpick run --faults`, `lockpick list`): alias → kind, in registry order. */
export const FAULT_ALIASES: Readonly<Record<string, string>> = Object.fromEntries(KINDS.flatMap((k) => (k.aliases ?? []).map((a) => [a, k.schema.kind])));

export const SCHEMAS: readonly KindSchema[] = KINDS.map((k) => k.schema);

/** For `lockpick list`: kind, one-line summary, what target means, params with their docs. */
export const FAULT_KINDS: readonly { kind: string; summary: string; target: string; oneShot: boolean; topologies: readonly string[] | 'any'; needs: readonly Capability[]; params: Record<string, string> }[] =
  KINDS.map(({ schema: s, needs }) => ({
    kind: s.kind,
    summary: s.summary,
    target: s.target,
    oneShot: s.oneShot === true,
    topologies: s.topologies ?? 'any',
    needs,
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
  // The run refuses these up front; this guards schedules given by hand (library, replay of an edited test.json).
  const problem = ctx.env.envKind ? capabilityProblem(s, ctx.env.envKind) : undefined;
  if (problem) throw new FaultSpecError(`fault spec (kind '${s.kind}', at_ms ${s.at_ms}): ${problem}`);
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
