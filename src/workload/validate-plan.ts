// The one check of a run plan read from a file (test.json of `run --replay`, a scenario, a
// demo entry) or given to the runner: every field's type, sign and upper bound, every fault
// spec against its kind's schema (nemesis/spec.ts), every client a fault names within the
// plan's clients. A bad plan is bad input (UsageError, exit 2) naming the field by its JSON
// path, e.g. `test.json: plan.clients[0].attempts[1].holdMs: ...`; it never reaches a run,
// where it would fail late (exit 3) or run for ever.
import { UsageError } from '../errors.ts';
import { checkFaultSpec, kindDef } from '../../nemesis/kinds.ts';
import { MAX_FAULT_MS } from '../../nemesis/spec.ts';
import type { FaultSpec } from '../../nemesis/types.ts';
import type { RunPlan } from './plan.ts';
import { checkOrderEvent, isFaultEvent, ORDER_SHAPE } from '../../nemesis/order.ts';

/** The longest any time in a plan may be (a delay, wait, hold, lease, fault start or duration): one hour. */
export const MAX_PLAN_MS = MAX_FAULT_MS;
/** The most clients a plan (and `--clients`) may have: each is a process. */
export const MAX_CLIENTS = 64;

const PLAN_SHAPE = '{"ttlMs": n, "clients": [{"attempts": [{"key", "delayMs", "waitMs", "holdMs", "renew"}]}], "faults": [FaultSpec...]} (as lockpick run writes it)';

class PlanError extends UsageError {}

/** Checks a plan; `where` names its file (the message reads `where: plan.PATH: problem`). Returns it typed. */
export function validatePlan(x: unknown, where: string): RunPlan {
  const bad = (path: string, what: string, fix = `give "plan" as ${PLAN_SHAPE}`): never => {
    throw new PlanError(`${where}: ${path}: ${what}\n  fix: ${fix}`);
  };
  const ms = (v: unknown, path: string, min = 0): number => {
    if (typeof v !== 'number') bad(path, `must be a number of milliseconds; got ${shown(v)}`);
    const n = v as number;
    if (!Number.isFinite(n)) bad(path, `must be a finite number of milliseconds; got ${shown(n)}`);
    if (n < min) bad(path, `must be ${min === 0 ? '≥ 0' : `≥ ${min}`} ms; got ${n}`, 'a time in a plan cannot be negative');
    if (n > MAX_PLAN_MS) bad(path, `must be at most ${MAX_PLAN_MS} ms (one hour); got ${n}`, `keep every time of a plan within an hour (a run waits for the longest)`);
    return n;
  };
  if (!isObject(x)) bad('plan', `is missing or not an object; got ${shown(x)}`);
  const p = x as Record<string, unknown>;
  ms(p.ttlMs, 'plan.ttlMs', 1);
  if (!Array.isArray(p.clients) || p.clients.length === 0) bad('plan.clients', '"clients" must be a non-empty array');
  const clients = p.clients as unknown[];
  if (clients.length > MAX_CLIENTS) bad('plan.clients', `has ${clients.length} clients; at most ${MAX_CLIENTS} (each is a process)`, `give at most ${MAX_CLIENTS} clients`);
  clients.forEach((c, i) => {
    const at = `plan.clients[${i}]`;
    if (!isObject(c)) bad(at, `must be an object {"attempts": [...]}; got ${shown(c)}`);
    const attempts = (c as Record<string, unknown>).attempts;
    if (!Array.isArray(attempts)) bad(`${at}.attempts`, `must be an array; got ${shown(attempts)}`);
    (attempts as unknown[]).forEach((a, j) => {
      const ap = `${at}.attempts[${j}]`;
      if (!isObject(a)) bad(ap, `must be an object {"key", "delayMs", "waitMs", "holdMs", "renew"}; got ${shown(a)}`);
      const r = a as Record<string, unknown>;
      for (const k of ['delayMs', 'waitMs', 'holdMs']) ms(r[k], `${ap}.${k}`);
      if (typeof r.key !== 'string') bad(`${ap}.key`, `must be a string; got ${shown(r.key)}`);
      if (typeof r.renew !== 'boolean' && r.renew !== undefined) bad(`${ap}.renew`, `must be true or false; got ${shown(r.renew)}`);
      if (r.reenter !== undefined && typeof r.reenter !== 'boolean') bad(`${ap}.reenter`, `must be true or false; got ${shown(r.reenter)}`);
      if (r.after !== undefined) {
        const faults = Array.isArray(p.faults) ? p.faults.length : 0;
        const e = checkOrderEvent(r.after, clients.length, faults, (what) => bad(`${ap}.after`, what, `give an event of another client or a fault of the plan: ${ORDER_SHAPE}`));
        if (!isFaultEvent(e) && e.client === `c${i + 1}`) bad(`${ap}.after.client`, `names the attempt's own client c${i + 1}: its own steps are in order already`, 'name another client, or remove "after"');
      }
      if (r.mode !== undefined && r.mode !== 'exclusive' && r.mode !== 'shared') bad(`${ap}.mode`, `must be "exclusive" or "shared"; got ${shown(r.mode)}`);
      if (r.permits !== undefined && !(Number.isSafeInteger(r.permits) && (r.permits as number) >= 1)) bad(`${ap}.permits`, `must be an integer of at least 1; got ${shown(r.permits)}`);
    });
  });
  if (!Array.isArray(p.faults)) bad('plan.faults', `"faults" must be an array; got ${shown(p.faults)}`);
  (p.faults as unknown[]).forEach((f, i) => {
    const fp = `plan.faults[${i}]`;
    let spec: FaultSpec;
    try {
      spec = checkFaultSpec(withoutPoint(f));
    } catch (e) {
      // "fault spec (kind 'x'): duration_ms must be ..." → "plan.faults[0]: duration_ms must be ...";
      // "...: params.restart_delay_ms: 259200000 is above ..." → "plan.faults[0].params.restart_delay_ms: 259200000 is above ..."
      const what = (e as Error).message.replace(/^fault spec( \(kind [^)]*\))?: /, '');
      const field = /^(params\.[^\s:]+): (.*)$/s.exec(what);
      bad(field ? `${fp}.${field[1]}` : fp, field ? field[2]! : what, 'edit the file (see `lockpick list` for the fault kinds, their targets and params), or run afresh');
    }
    ms(spec!.at_ms, `${fp}.at_ms`);
    if (spec!.after) checkOrderEvent(spec!.after, clients.length, 0, (what) => bad(`${fp}.after`, what, `give an event of a client of the plan: ${ORDER_SHAPE}`));
    if (spec!.duration_ms !== undefined) ms(spec!.duration_ms, `${fp}.duration_ms`);
    for (const [path, id] of namedClients(spec!)) {
      const n = /^c([1-9]\d*)$/.exec(id);
      if (!n || Number(n[1]) > clients.length) {
        bad(`${fp}.${path}`, `names client '${id}', but the plan has ${clients.length} client(s): c1${clients.length > 1 ? `..c${clients.length}` : ''}`, 'name a client of the plan, or add clients');
      }
    }
  });
  return x as RunPlan;
}

/**
 * params.point anchors a spec of a kind that can be anchored (KindDef.anchored) at a named point:
 * the runner reads it (ClientPool), the kind's schema need not know it. The rest of the spec is the schema's.
 */
function withoutPoint(f: unknown): unknown {
  if (!isObject(f)) return f;
  const s = f as Record<string, unknown>;
  if (!isObject(s.params) || typeof (s.params as Record<string, unknown>).point !== 'string') return f;
  if (typeof s.kind !== 'string' || !kindDef(s.kind)?.anchored) return f;
  const { point, ...rest } = s.params as Record<string, unknown>;
  if (point === '') return { ...s, params: { ...rest, point } }; // the schema refuses it: an empty point never fires
  return { ...s, params: rest };
}

/** The clients a spec names, with the field that names them: client kinds' targets, 'client:<id>' link targets, the anchor. */
function namedClients(s: FaultSpec): [string, string][] {
  const out: [string, string][] = [];
  const list = s.target === undefined ? [] : Array.isArray(s.target) ? s.target : [s.target];
  list.forEach((t, k) => {
    const path = Array.isArray(s.target) ? `target[${k}]` : 'target';
    if (t.startsWith('client:')) out.push([path, t.slice('client:'.length)]);
    else if (kindDef(s.kind)?.scope === 'client' && t !== 'all') out.push([path, t]);
  });
  if (s.anchor) out.push(['anchor.client', s.anchor.client]);
  return out;
}

function isObject(v: unknown): boolean {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function shown(v: unknown): string {
  if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
  if (v === undefined) return 'nothing (the field is missing)';
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}
