// What the nemesis actually did in one run, read back from the nemesis events it
// recorded (`<kind>-start`, `<kind>-start-failed`, `<kind>-stop`, `heal-failed`, and
// `<kind>-unreached`: a client said the fault cannot reach its lock's runtime, e.g. a clock
// step and a Go binary): a fault the plan asked for that never took effect makes the run inconclusive,
// with the reason in words. A fault aimed at clients that had no operation and held nothing while
// it lasted did not reach the lock either (a clock step or a pause of an idle client tests nothing). The history is the evidence, so `lockpick check` and
// a reader of history.jsonl see the same thing.
import { RUNNER_RECORDS } from '../history/runner-records.ts';
import { getOwn, setOwn } from '../own-key.ts';
import type { HistoryEvent } from '../history/types.ts';
import type { FaultSpec } from '../../nemesis/types.ts';
import { anchoredClient, anchorPoint, describeFault, isAnchoredPause } from '../workload/plan.ts';

export interface FaultEffects {
  applied: Record<string, number>;   // kind → faults that started (took effect)
  healed: Record<string, number>;    // kind → faults whose stop was recorded
  missing: string[];                 // one sentence per planned fault that never took effect
  /** The plan's kinds none of whose faults took effect, each with the first reason: these make the run inconclusive. */
  kindsMissing: string[];
  /** Kinds a client said can never reach its lock (`<kind>-unreached` with `always`), each with that reason: no run of the search tested them. */
  unreachable?: Record<string, string>;
}

function kindOf(f: string, suffix: string): string | undefined {
  return f.endsWith(suffix) && !RUNNER_RECORDS.has(f) ? f.slice(0, -suffix.length) : undefined;
}

/** The clients a fault's start record names (`clients`, or a `client:<id>` target); undefined for a fault of servers or links. */
export function clientsAimed(v: Record<string, unknown>): string[] | undefined {
  if (Array.isArray(v.clients)) return v.clients.filter((c): c is string => typeof c === 'string');
  if (typeof v.target === 'string' && v.target.startsWith('client:')) return [v.target.slice('client:'.length)];
  return undefined;
}

/** One stretch of a client's time (ns): an operation, invoke to completion (`to` Infinity: unanswered), or a hold, ok acquire to the next release's invoke. */
export interface ClientSpan {
  client: string;
  what: 'acquire' | 'release' | 'renew' | 'hold' | 'other';
  key?: string;
  from: number;
  to: number;
}

/** Every client's operations and holds, as spans (a process names its client on its invokes). */
export function clientSpans(events: readonly HistoryEvent[]): ClientSpan[] {
  const clientOf = new Map<number, string>();
  const invoked = new Map<number, { time: number; f: string; key?: string }>();
  const holding = new Map<number, { time: number; key?: string }>();
  const spans: ClientSpan[] = [];
  const what = (f: string): ClientSpan['what'] => (f === 'acquire' || f === 'release' || f === 'renew' ? f : 'other');
  const add = (p: number, w: ClientSpan['what'], key: string | undefined, from: number, to: number) => {
    const client = clientOf.get(p);
    if (client !== undefined) spans.push({ client, what: w, ...(key !== undefined ? { key } : {}), from, to });
  };
  for (const e of events) {
    if (typeof e.process !== 'number' || e.time === undefined) continue;
    const p = e.process;
    if (e.type === 'invoke') {
      if (typeof e.client === 'string') clientOf.set(p, e.client);
      invoked.set(p, { time: e.time, f: e.f, ...(typeof e.key === 'string' ? { key: e.key } : {}) });
      const held = holding.get(p);
      if (e.f === 'release' && held !== undefined) { add(p, 'hold', held.key, held.time, e.time); holding.delete(p); }
      continue;
    }
    const from = invoked.get(p);
    if (from !== undefined) { add(p, what(from.f), from.key, from.time, e.time); invoked.delete(p); }
    if (e.f === 'acquire' && e.type === 'ok') holding.set(p, { time: e.time, ...(from?.key !== undefined ? { key: from.key } : {}) });
  }
  for (const [p, o] of invoked) add(p, what(o.f), o.key, o.time, Infinity);
  for (const [p, h] of holding) add(p, 'hold', h.key, h.time, Infinity);
  return spans;
}

/** Each client's busy spans (ns): its operations, invoke to completion, and its holds, ok acquire to the next release's invoke. */
function busySpans(events: readonly HistoryEvent[]): Map<string, [number, number][]> {
  const spans = new Map<string, [number, number][]>();
  for (const s of clientSpans(events)) {
    let l = spans.get(s.client);
    if (!l) spans.set(s.client, (l = []));
    l.push([s.from, s.to]);
  }
  return spans;
}

/** runMs: how long the run lasted from its time 0 (for "the run ended before it was due"). */
export function faultEffects(faults: readonly FaultSpec[], events: readonly HistoryEvent[], runMs: number): FaultEffects {
  // Kinds come from the history's nemesis events (a report reads a user's file): own keys only.
  const applied: Record<string, number> = {};
  const healed: Record<string, number> = {};
  const failed = new Map<string, string[]>();
  const unreached = new Map<string, string[]>();
  const unreachable: Record<string, string> = {};
  /** Faults aimed at clients: when each began and (by its id) ended. */
  const aimed: { kind: string; id: unknown; clients: string[]; from: number }[] = [];
  const stopped = new Map<unknown, number>();
  for (const e of events) {
    if (e.process !== 'nemesis') continue;
    const v = (e.value ?? {}) as Record<string, unknown>;
    let k: string | undefined;
    if ((k = kindOf(e.f, '-unreached'))) {
      const l = unreached.get(k) ?? []; unreached.set(k, l);
      const why = `client ${String(v.client ?? '?')}: ${String(v.reason ?? 'no reason recorded')}`;
      l.push(why);
      if (v.always === true && getOwn(unreachable, k) === undefined) setOwn(unreachable, k, why);
    }
    else if ((k = kindOf(e.f, '-start-failed'))) { const l = failed.get(k) ?? []; failed.set(k, l); l.push(String(v.error ?? 'no reason recorded')); }
    else if ((k = kindOf(e.f, '-start'))) {
      setOwn(applied, k, (getOwn(applied, k) ?? 0) + 1);
      const clients = clientsAimed(v);
      const from = typeof v.began === 'number' ? v.began : e.time;
      if (clients && clients.length > 0 && from !== undefined) aimed.push({ kind: k, id: v.id, clients, from });
    } else if ((k = kindOf(e.f, '-stop'))) {
      setOwn(healed, k, (getOwn(healed, k) ?? 0) + 1);
      if (v.id !== undefined && e.time !== undefined) stopped.set(v.id, e.time);
    }
  }
  const missing: string[] = [];
  const seen = new Map<string, number>();
  let earlierFailed = false;
  for (const f of [...faults].sort((a, b) => a.at_ms - b.at_ms)) {
    const n = (seen.get(f.kind) ?? 0) + 1;
    seen.set(f.kind, n);
    if (n <= (getOwn(applied, f.kind) ?? 0)) continue;
    const failure = failed.get(f.kind)?.shift();
    const what = `fault "${describeFault(f)}" never took effect`;
    if (failure !== undefined) {
      missing.push(`${what}: it failed to start: ${failure}`);
      earlierFailed = true;
    } else if (isAnchoredPause(f)) {
      missing.push(`${what}: client ${anchoredClient(f) ?? String(f.target)} did not reach '${anchorPoint(f)}'${f.at_ms > 0 ? ` after ${f.at_ms} ms` : ' in the run'}`);
    } else if (earlierFailed) {
      missing.push(`${what}: the schedule stopped at an earlier fault that failed`);
    } else if (f.at_ms >= runMs) {
      missing.push(`${what}: the clients were done after ${Math.round(runMs)} ms, before it was due`);
    } else {
      missing.push(`${what}: no start was recorded`);
    }
  }
  // A fault aimed at clients none of which had an operation or a hold while it lasted is not counted.
  const idle = new Map<string, string>();
  if (aimed.length > 0) {
    const spans = busySpans(events);
    for (const a of aimed) {
      const to = (a.id !== undefined ? stopped.get(a.id) : undefined) ?? Infinity;
      if (a.clients.some((c) => spans.get(c)?.some(([s, t]) => s <= to && t >= a.from))) continue;
      setOwn(applied, a.kind, (getOwn(applied, a.kind) ?? 1) - 1);
      if (!idle.has(a.kind)) idle.set(a.kind, `fault '${a.kind}' did not reach the lock: client${a.clients.length > 1 ? 's' : ''} ${a.clients.join(', ')} had no operation and held nothing while it lasted`);
    }
  }
  missing.push(...idle.values());
  const kindsMissing: string[] = [];
  // Started, but not felt where it matters: the kind is not counted as applied in this run.
  for (const [kind, reasons] of unreached) {
    if (!faults.some((f) => f.kind === kind)) continue;
    const why = `fault '${kind}' did not reach the lock: ${[...new Set(reasons)].join('; ')}`;
    missing.push(why);
    kindsMissing.push(why);
    setOwn(applied, kind, 0);
  }
  for (const kind of new Set(faults.map((f) => f.kind))) {
    if ((getOwn(applied, kind) ?? 0) > 0 || unreached.has(kind)) continue;
    const first = missing.find((m) => m.includes(`never took effect`) && faults.some((f) => f.kind === kind && m.startsWith(`fault "${describeFault(f)}"`)));
    kindsMissing.push(first ?? idle.get(kind) ?? `no '${kind}' fault took effect`);
  }
  return { applied, healed, missing, kindsMissing, ...(Object.keys(unreachable).length ? { unreachable } : {}) };
}
