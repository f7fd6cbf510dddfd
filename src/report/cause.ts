// What made an anomaly possible, in the user's terms: the fault whose period overlaps the
// anomaly's operations, and what it hit (a client in its critical section, or in the middle of
// its release; the servers while a client held the lock). Read from the history alone (the
// nemesis' <kind>-start/-stop events and the ops), so it works for a replay and for `report`.
import type { Anomaly } from '../../checkers/types.ts';
import type { HistoryEvent, NemesisEvent, Op, ParsedHistory } from '../history/types.ts';
import { HistoryBuilder } from '../history/build.ts';
import { faultTargets } from './timeline-story.ts';
import { leadInMs } from './timeline-model.ts';
import { kindDef } from '../../nemesis/kinds.ts';

export interface FaultPeriod {
  kind: string;
  start: number;              // ns: its first recorded step (`<kind>-step`), else its start record less the lead-in it states
  effect: number;             // ns: its start record (it is all in effect)
  steps: { time: number; words: string }[];   // the steps it recorded up to its start record, in order
  end?: number;               // ns; undefined: not healed within the history
  clients: string[];
  nodes: string[];
  point?: string;             // an anchored fault: the point it fired at
  value: Record<string, unknown>;
}

const obj = (v: unknown): Record<string, unknown> => (v !== null && typeof v === 'object' && !Array.isArray(v) ? v as Record<string, unknown> : {});

/**
 * The faults of a history as periods: each `<kind>-start` with its `-stop` (same id, or same kind
 * and client), from its first `<kind>-step` when it recorded steps before its start record.
 */
export function faultPeriods(nemesis: readonly NemesisEvent[]): FaultPeriod[] {
  const out: FaultPeriod[] = [];
  const open = new Map<string, FaultPeriod>();
  const early = new Map<string, FaultPeriod['steps']>();
  const keyOf = (kind: string, v: Record<string, unknown>) => `${kind}|${String(v.id ?? v.client ?? JSON.stringify(v.target ?? ''))}`;
  for (const e of nemesis) {
    const m = /^(.*)-(start|stop|step)$/.exec(e.f);
    if (!m || e.time === undefined || m[1] === 'run') continue;   // run-start / run-end frame runs, they are no fault
    const [, kind, phase] = m as unknown as [string, string, string];
    const v = obj(e.value);
    const k = keyOf(kind, v);
    if (phase === 'step') {
      const step = { time: e.time, words: typeof v.step === 'string' ? v.step : 'a step' };
      // Only the steps that led up to its start record say how it began (a heal's steps do not).
      if (!open.has(k)) early.set(k, [...early.get(k) ?? [], step]);
    } else if (phase === 'start') {
      const { clients, nodes } = faultTargets(v);
      const point = typeof v.point === 'string' ? v.point : typeof obj(v.params).point === 'string' ? String(obj(v.params).point) : undefined;
      const steps = early.get(k) ?? [];
      early.delete(k);
      const start = steps.length ? Math.min(steps[0]!.time, e.time) : e.time - leadInMs(v) * 1e6;
      const p: FaultPeriod = { kind, start, effect: e.time, steps, clients, nodes, value: v, ...(point ? { point } : {}) };
      open.set(k, p);
      out.push(p);
    } else {
      const p = open.get(k);
      if (p) { p.end = e.time; open.delete(k); }
    }
  }
  return out;
}

const s = (ns: number) => `${(ns / 1e9).toFixed(3)} s`;
const msOf = (ns: number) => `${Math.round(ns / 1e6)} ms`;

/**
 * 'send:release:2' → "just before the 2nd command of its release went out", or with the command
 * word the client's bytes named (src/runner/command-word.ts) "just before its DEL (the 2nd
 * command of its release) went out".
 */
export function pointWords(point: string, command?: string): string {
  const io = /^(send|reply):(\w+):(\d+)$/.exec(point);
  if (io) {
    const n = Number(io[3]);
    const nth = `${n}${n === 1 ? 'st' : n === 2 ? 'nd' : n === 3 ? 'rd' : 'th'}`;
    if (io[1] === 'send') return command ? `just before its ${command} (the ${nth} command of its ${io[2]}) went out` : `just before the ${nth} command of its ${io[2]} went out`;
    return `just after the ${nth} reply to its ${io[2]} came in`;
  }
  if (point === 'in-critical-section') return 'in its critical section, just after its acquire returned';
  if (point === 'before-write') return 'just before its write, after its last look at the lock';
  if (point === 'before-release') return 'at the start of its release, after it had stopped believing it held the lock';
  return `at its point '${point}'`;
}

/** A process in the user's terms: "c1 (process 4)", or "process 4" when no client name is known. */
export function who(p: number, clients: ReadonlyMap<number, string>): string {
  const c = clients.get(p);
  return c ? `${c} (process ${p})` : `process ${p}`;
}

/** Where a client was when the fault began: in an operation, holding the lock, or idle. */
function whereWas(ops: readonly Op[], p: number, t: number): string {
  const mine = ops.filter((o) => o.process === p && o.invokeTime !== undefined);
  const during = mine.find((o) => o.invokeTime! <= t && (o.completeTime === undefined || o.completeTime >= t));
  if (during) return `during its ${during.f} (invoked at line ${during.invokeLine})`;
  const done = mine.filter((o) => o.invokeTime! <= t && o.outcome !== 'fail');
  // Renewals while it held: the lease runs from the last one (the acquire's lease if it names none).
  let i = done.length - 1;
  while (i >= 0 && done[i]!.f === 'renew' && done[i]!.outcome === 'ok') i--;
  const before = done[i];
  if (before?.f === 'acquire' && before.outcome === 'ok') {
    const renew = i < done.length - 1 ? done[done.length - 1]! : undefined;
    const from = renew ?? before;
    const leaseMs = from.leaseMs ?? before.leaseMs;
    const lease = leaseMs !== undefined && from.invokeTime !== undefined
      ? `; its ${leaseMs} ms lease${renew ? `, renewed at line ${renew.completeLine},` : ''} ran out at ${s(from.invokeTime + leaseMs * 1e6)}` : '';
    return `while it held the lock (acquire ok at line ${before.completeLine}${lease})`;
  }
  return 'between its operations';
}

/** What the client did next, after the fault ended. */
function nextOf(ops: readonly Op[], p: number, t: number | undefined): string {
  if (t === undefined) return '';
  const after = ops.find((o) => o.process === p && o.invokeTime !== undefined && (o.invokeTime >= t || (o.completeTime !== undefined && o.completeTime >= t)));
  if (!after) return '';
  return after.invokeTime! >= t ? `; its next operation was its ${after.f} at line ${after.invokeLine}, after it`
    : `; that ${after.f} completed at line ${after.completeLine}, after it`;
}

/**
 * One sentence per anomaly (undefined when no fault overlaps it): the fault that made it possible.
 * Client faults on the anomaly's own clients come first, then server faults inside its window.
 */
export function explainAnomalies(h: Pick<ParsedHistory, 'ops' | 'nemesis'>, anomalies: readonly Anomaly[], clients: ReadonlyMap<number, string>): (string | undefined)[] {
  const periods = faultPeriods(h.nemesis);
  const byId = new Map(h.ops.map((o) => [o.id, o]));
  const byLine = new Map<number, Op>();
  for (const o of h.ops) { byLine.set(o.invokeLine, o); if (Number.isFinite(o.completeLine)) byLine.set(o.completeLine, o); }
  /** The anomaly's ops: by id, else by the lines it names (some checkers name lines only). */
  const opsOf = (a: Anomaly): Op[] => [...new Set([...(a.ops ?? []).map((id) => byId.get(id)), ...a.lines.map((l) => byLine.get(l))]
    .filter((o): o is Op => o !== undefined))];
  const direct = anomalies.map((a) => direct1(a));
  // A double holder between clients no fault touched: the stale release on the same key inside it
  // (a paused client's late unlock that freed the first holder's lock) is what let the second in.
  return anomalies.map((a, i) => {
    // A client crash: a fault on that client still on at the crash, else the last fault before it (checkers/crash.ts).
    const f = a.crash?.fault;
    if (a.type === 'client-crash' && f && !(direct[i] && !direct[i]!.others)) return `${f.words}${f.time !== undefined ? ` from ${s(f.time)}` : ''} (line ${f.line}), the last fault before the crash`;
    if (a.type !== 'double-holder' || (direct[i] && !direct[i]!.others)) return direct[i]?.text;
    // Before the second holder's acquire returned (the double holder's first time): a release after it let nobody in.
    const began = a.times?.[0] ?? Infinity;
    const lateRelease = (b: Anomaly) => opsOf(b).find((o) => o.f === 'release' && o.invokeTime !== undefined && o.invokeTime < began);
    const j = anomalies.findIndex((b, k) => k !== i && b.type === 'stale-release' && b.key === a.key && direct[k] !== undefined && lateRelease(b) !== undefined);
    if (j < 0) return direct[i]?.text;
    const rel = lateRelease(anomalies[j]!)!;
    return `the stale release at line ${rel.invokeLine} by ${who(rel.process, clients)} freed the lock it no longer held, which let the second holder in; ${direct[j]!.text}`;
  });

  function direct1(a: Anomaly): { text: string; others: boolean } | undefined {
    const ops = opsOf(a);
    const times = ops.flatMap((o) => [o.invokeTime, o.completeTime]).filter((x): x is number => x !== undefined);
    for (const t of a.times ?? []) times.push(t);
    if (times.length === 0) return undefined;
    const from = Math.min(...times), to = Math.max(...times);
    const overlapping = periods.filter((f) => f.start <= to && (f.end ?? Infinity) >= from);
    const procs = a.processes.filter((p) => typeof p === 'number');
    const names = new Map(procs.map((p) => [clients.get(p), p]));
    const own = overlapping.find((f) => f.clients.some((c) => names.has(c)));
    const f = own ?? overlapping.find((x) => x.nodes.length > 0) ?? overlapping[0];
    if (!f) return undefined;
    return { text: say(f, own !== undefined, procs, names), others: own === undefined };
  }

  function say(f: FaultPeriod, ownFault: boolean, procs: number[], names: Map<string | undefined, number>): string {
    const dur = f.end !== undefined ? ` for ${msOf(f.end - f.start)}` : ' until the end of the run';
    const at = f.point ? `, ${pointWords(f.point, typeof f.value.command === 'string' ? f.value.command : undefined)}` : '';
    if (ownFault) {
      const c = f.clients.find((x) => names.has(x))!;
      const p = names.get(c)!;
      const verb = kindDef(f.kind)?.clientVerb ?? `was hit by ${f.kind}`;
      return `${who(p, clients)} ${verb}${dur} from ${s(f.start)}${at}, ${whereWas(h.ops, p, f.start)}${nextOf(h.ops, p, f.end)}`;
    }
    // Held when the fault was all in effect (a failover: once the replica was promoted): granted
    // before then, and no release (nor lapse) of it invoked by then.
    const heldAt = (o: Op) => !h.ops.some((r) => r.process === o.process && r.key === o.key && r.f === 'release' && r.invokeTime !== undefined && r.invokeTime > o.completeTime! && r.invokeTime <= f.effect);
    const holder = procs.map((p) => ({ p, o: h.ops.filter((o) => o.process === p && o.f === 'acquire' && o.outcome === 'ok' && o.completeTime !== undefined && o.completeTime <= f.effect).pop() }))
      .find((x) => x.o !== undefined && heldAt(x.o));
    const target = f.nodes.length ? ` of ${f.nodes.join(', ')}` : f.clients.length ? ` of ${f.clients.join(', ')}` : '';
    const steps = f.steps.length ? ` (${f.steps.map((x) => `${x.words} at ${s(x.time)}`).join('; ')})` : '';
    return `${f.kind}${target}${dur} from ${s(f.start)}${steps}${at}${holder ? `, while ${who(holder.p, clients)} held the lock (acquire ok at line ${holder.o!.completeLine})` : ''}`;
  }
}

/** A run's events (as the recorder wrote them): its clients by process, and a cause per anomaly. */
export function explainRun(events: readonly HistoryEvent[], anomalies: readonly Anomaly[]): { clients: Map<number, string>; causes: (string | undefined)[] } {
  const clients = new Map<number, string>();
  const b = new HistoryBuilder('run');
  events.forEach((e, i) => {
    b.add(e, i + 1);
    if (typeof e.process === 'number' && typeof e.client === 'string') clients.set(e.process, e.client);
  });
  return { clients, causes: explainAnomalies(b.finish(), anomalies, clients) };
}
