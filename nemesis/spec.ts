// Validation of fault specs against each kind's declared parameters, with
// errors that name the spec, the field and the fix.
import type { FaultSchedule, FaultSpec } from './types.ts';
import { checkOrderEvent } from './order.ts';

export interface ParamInfo {
  type: 'number' | 'string' | 'boolean';
  doc: string;
  values?: readonly string[];   // allowed strings
  min?: number;                 // for numbers
  max?: number;                 // for numbers: a time a run waits for is bounded (MAX_FAULT_MS), so no stored plan waits for days
  required?: boolean;
}

/** What a kind accepts; the table in kinds.ts is also what `lockpick list` prints. */
export interface KindSchema {
  kind: string;
  summary: string;
  /** What `target` means for this kind ('' = no target). */
  target: string;
  targetRequired: boolean;
  /** One-shot actions take no duration_ms. */
  oneShot?: boolean;
  /** The topologies it can act on (absent: every one); `lockpick run` refuses it elsewhere. */
  topologies?: readonly string[];
  params: Record<string, ParamInfo>;
}

/**
 * The longest time a fault's param may ask a run to wait (a restart delay, a grace, a latency, a
 * failover's wait): one hour, as a plan's own times (src/workload/validate-plan.ts) and the ms
 * options of `lockpick run` (--restart-delay, --ttl: src/options.ts MAX_MS).
 */
export const MAX_FAULT_MS = 3_600_000;

/** A bound in words: "3600000 (1 h)", "600000 (10 min)". */
export function msWords(ms: number): string {
  const w = ms % 3_600_000 === 0 ? `${ms / 3_600_000} h` : ms % 60_000 === 0 ? `${ms / 60_000} min` : ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
  return `${ms} (${w})`;
}

export class FaultSpecError extends Error {
  constructor(message: string) { super(message); this.name = 'FaultSpecError'; }
}

function where(spec: unknown, index?: number): string {
  const kind = typeof spec === 'object' && spec !== null && 'kind' in spec ? ` (kind ${JSON.stringify((spec as { kind: unknown }).kind)})` : '';
  return `${index === undefined ? 'fault spec' : `schedule[${index}]`}${kind}`;
}

const TOP_FIELDS = new Set(['kind', 'at_ms', 'duration_ms', 'target', 'params', 'anchor', 'after']);

/** Checks one spec against `schemas`; returns it typed, or throws FaultSpecError. */
export function validateFaultSpec(spec: unknown, schemas: readonly KindSchema[], index?: number): FaultSpec {
  const at = where(spec, index);
  const fail = (msg: string): never => { throw new FaultSpecError(`${at}: ${msg}`); };
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) {
    fail(`must be an object like {"kind": "partition", "at_ms": 1000, "duration_ms": 5000, "target": "n1"}`);
  }
  const s = spec as Record<string, unknown>;
  for (const k of Object.keys(s)) {
    if (!TOP_FIELDS.has(k)) fail(`unknown field '${k}'; a fault spec has only ${[...TOP_FIELDS].join(', ')} (kind-specific settings go in "params")`);
  }
  const schema = schemas.find((x) => x.kind === s.kind);
  if (!schema) fail(`kind must be one of ${schemas.map((x) => x.kind).join(', ')} (see 'lockpick list')`);
  const sc = schema!;
  if (typeof s.at_ms !== 'number' || !Number.isFinite(s.at_ms) || s.at_ms < 0) {
    fail(`at_ms must be a number of milliseconds >= 0 from the start of the run, got ${JSON.stringify(s.at_ms)}`);
  }
  if (s.duration_ms !== undefined) {
    if (sc.oneShot) fail(`'${sc.kind}' is a one-shot action: remove duration_ms`);
    if (typeof s.duration_ms !== 'number' || !Number.isFinite(s.duration_ms) || s.duration_ms < 0) {
      fail(`duration_ms must be a number of milliseconds >= 0 (or absent: the fault lasts until the end of the run), got ${JSON.stringify(s.duration_ms)}`);
    }
  }
  if (s.target === undefined) {
    if (sc.targetRequired) fail(`target is required: ${sc.target}`);
  } else {
    if (!sc.target) fail(`'${sc.kind}' takes no target: remove it`);
    const ok = typeof s.target === 'string' ? s.target !== '' : Array.isArray(s.target) && s.target.length > 0 && s.target.every((t) => typeof t === 'string' && t !== '');
    if (!ok) fail(`target must be a non-empty string or array of strings: ${sc.target}`);
  }
  if (s.anchor !== undefined) checkAnchor(s, sc, fail);
  // Which clients a plan has is the plan's check (validate-plan.ts); here the shape, and only a client event.
  if (s.after !== undefined) {
    if (typeof s.after === 'object' && s.after !== null && 'fault' in s.after) fail('after: a fault waits for a client event, not for another fault (order the faults by at_ms)');
    checkOrderEvent(s.after, Number.MAX_SAFE_INTEGER, 0, (what) => fail(`after: ${what}`));
  }
  const params = s.params ?? {};
  if (typeof params !== 'object' || params === null || Array.isArray(params)) fail(`params must be an object`);
  const p = params as Record<string, unknown>;
  for (const [name, v] of Object.entries(p)) {
    const info = Object.hasOwn(sc.params, name) ? sc.params[name] : undefined; // `toString` is a name like any other
    if (!info) {
      const known = Object.keys(sc.params);
      fail(`unknown param '${name}'; '${sc.kind}' takes ${known.length ? known.join(', ') : 'no params'}`);
    }
    const i = info!;
    if (typeof v !== i.type) fail(`params.${name} must be a ${i.type} (${i.doc}), got ${JSON.stringify(v)}`);
    if (i.values && !i.values.includes(v as string)) fail(`params.${name} must be one of ${i.values.map((x) => JSON.stringify(x)).join(', ')}, got ${JSON.stringify(v)}`);
    if (i.type === 'number' && (!Number.isFinite(v) || (i.min !== undefined && (v as number) < i.min))) {
      fail(`params.${name} must be a finite number${i.min !== undefined ? ` >= ${i.min}` : ''} (${i.doc}), got ${JSON.stringify(v)}`);
    }
    if (i.type === 'number' && i.max !== undefined && (v as number) > i.max) fail(`params.${name}: ${String(v)} is above the bound ${msWords(i.max)} (${i.doc})`);
  }
  for (const [name, i] of Object.entries(sc.params)) {
    if (i.required && (!Object.hasOwn(p, name) || p[name] === undefined)) fail(`params.${name} is required (${i.doc})`);
  }
  return s as unknown as FaultSpec;
}

/** An anchor is {"client": "c1", "point": "..."} on a server-side fault that ends by itself. */
function checkAnchor(s: Record<string, unknown>, sc: KindSchema, fail: (msg: string) => never): void {
  const a = s.anchor as Record<string, unknown>;
  const shape = '{"client": "c1", "point": "in-critical-section"} (the fault starts when that client reaches that point)';
  if (typeof a !== 'object' || a === null || Array.isArray(a)) fail(`anchor must be an object like ${shape}`);
  for (const k of Object.keys(a)) if (k !== 'client' && k !== 'point') fail(`anchor has only "client" and "point", not '${k}': ${shape}`);
  if (typeof a.client !== 'string' || !/^c[1-9]\d*$/.test(a.client)) fail(`anchor.client must be a client id like "c1", got ${JSON.stringify(a.client)}`);
  if (typeof a.point !== 'string' || a.point === '') fail(`anchor.point must be a point name (e.g. "in-critical-section", "reply:acquire:2"), got ${JSON.stringify(a.point)}`);
  // Client faults anchor with their own params.point (the client they act on is the one waited for).
  if (sc.kind.startsWith('client-') || (s.params as Record<string, unknown> | undefined)?.point !== undefined) fail(`'${sc.kind}' anchors with params.point, not "anchor": remove one`);
  if (s.duration_ms === undefined && !sc.oneShot) fail('an anchored fault needs duration_ms (the runner heals it that long after it starts)');
}

/** Checks a whole schedule (plain JSON data) and returns it typed. */
export function validateSchedule(schedule: unknown, schemas: readonly KindSchema[]): FaultSchedule {
  if (!Array.isArray(schedule)) {
    throw new FaultSpecError(`fault schedule must be a JSON array of fault specs, got ${schedule === null ? 'null' : typeof schedule}`);
  }
  return schedule.map((s, i) => validateFaultSpec(s, schemas, i));
}

/** The target as a list. */
export function targets(spec: FaultSpec): string[] {
  return spec.target === undefined ? [] : Array.isArray(spec.target) ? spec.target : [spec.target];
}

/** A param with its default. */
export function param<T>(spec: FaultSpec, name: string, fallback: T): T {
  const v = spec.params !== undefined && Object.hasOwn(spec.params, name) ? spec.params[name] : undefined;
  return (v === undefined ? fallback : v) as T;
}
