// What the HTML timeline draws, as plain data: lanes, op bars, holds, fault
// bands and anomaly marks on one axis (ms from run start, or event order when
// the history has no times). Big histories are cut to windows around the
// anomalies so the report stays small; html.ts only turns this into markup.
import { OVERLAPS } from '../../checkers/anomaly-kinds.ts';
import { setOwn } from '../own-key.ts';
import type { Op, ParsedHistory, NemesisEvent } from '../history/types.ts';
import type { Anomaly, CheckResult } from '../../checkers/types.ts';

/** Above this many ops the timeline shows windows around anomalies, not everything. */
export const FULL_LIMIT = 2500;
/** Ops kept on each side of an anomaly's own ops in a cut window. */
export const CONTEXT_OPS = 25;
/** At most this many windows are drawn; the rest of the anomalies are listed only. */
export const MAX_WINDOWS = 12;
/** A non-linearizable window with more ops than this outlines only its culprit op. */
export const MAX_OUTLINED = 40;
/** Ops still running when a window starts, kept per window (the nearest ones). */
const MAX_SPANNING = 20;

export type AxisMode = 'time' | 'order';

/** shared: a read-write lock's read hold; permits: a semaphore hold's, when the acquire gave them (docs/history-format.md). */
export interface Hold { process: number; key: string; a: number; b: number; open: boolean; fromLine: number; toLine: number; shared?: true; permits?: number; limit?: number }
/**
 * `at` is when the start record was written; `a` is where the fault began: its first recorded
 * step (`<kind>-step` records with the fault's id, written as it takes them: a failover cuts
 * replication, kills the primary, then records its start once a replica is promoted), else a
 * lead-in the start record states. `steps`: the recorded steps, in order. `failed`: its start
 * failed (`<kind>-start-failed`); it is drawn to its stop all the same, since its steps may have taken effect.
 */
export interface FaultBand { kind: string; label: string; a: number; at: number; b: number; open: boolean; lines: number[]; times: (number | undefined)[]; value?: unknown; steps: FaultStepMark[]; failed?: true }
/** A step a fault recorded (`<kind>-step`, value.step in words), where it happened on the axis. */
export interface FaultStepMark { a: number; words: string; line: number }

/**
 * Fields of a start record that say how long the start took before the record was written
 * (a failover records `promoted_after_ms`: cutting replication, taking the primary away and
 * Sentinel's promotion all come before it). With no step recorded (histories from before
 * `<kind>-step`), the band starts that long before the record.
 */
const LEAD_IN_FIELDS = ['took_ms', 'promoted_after_ms'] as const;
export function leadInMs(v: unknown): number {
  if (v === null || typeof v !== 'object') return 0;
  for (const k of LEAD_IN_FIELDS) {
    const x = (v as Record<string, unknown>)[k];
    if (typeof x === 'number' && Number.isFinite(x) && x > 0) return x;
  }
  return 0;
}
export interface FaultMark { label: string; a: number; line: number; time?: number; section?: boolean }
export interface AnomalyMark { index: number; anomaly: Anomaly; a: number; b: number; open: boolean; opIds: Set<number>; window: number }

export interface Window {
  id: number;
  a0: number; a1: number;          // axis range drawn
  ops: Op[];
  processes: number[];             // lanes, sorted
  holds: Hold[];
  anomalies: number[];             // indices into Timeline.anomalies
  firstOp: number; lastOp: number; // op ids of the window's main range
}

export interface Timeline {
  mode: AxisMode;
  pos: (seq: number, time: number | undefined) => number;
  windows: Window[];
  anomalies: AnomalyMark[];
  bands: FaultBand[];
  marks: FaultMark[];
  keys: string[];
  processes: number;
  totalOps: number;
  cut: boolean;
  end: number;                      // axis value of the last event
  t0: number;                       // ns of the history's first event: the axis is ms from there (the run's start)
}

/** Axis in ms when every event carries `time`, else event order (docs/history-format.md: order is real time). */
function axisMode(h: ParsedHistory): AxisMode {
  for (const op of h.ops) {
    if (op.invokeTime === undefined) return 'order';
    if (Number.isFinite(op.completeSeq) && op.completeTime === undefined) return 'order';
  }
  for (const e of h.nemesis) if (e.time === undefined) return 'order';
  return h.ops.length + h.nemesis.length > 0 ? 'time' : 'order';
}

export function opStart(op: Op, pos: Timeline['pos']): number { return pos(op.invokeSeq, op.invokeTime); }
/** Completion on the axis; undefined when the op never completed. */
export function opEnd(op: Op, pos: Timeline['pos']): number | undefined {
  return Number.isFinite(op.completeSeq) ? pos(op.completeSeq, op.completeTime) : undefined;
}

// "partition-start", "start-partition", ":start", "heal" → kind and phase; "failover-step": a step
// of a fault's start or heal; "failover-start-failed": a start that failed (its band runs to its stop).
const PHASE = /(^|[-_:/ ])(start|begin|stop|end|heal|resume|recover|step)(?=$|[-_:/ ])/i;
export function faultPhase(f: string): { kind: string; phase: 'start' | 'stop' | 'step' | 'once'; failed?: true } {
  const failed = /^(.+)-start-failed$/.exec(f);
  if (failed) return { kind: failed[1]!, phase: 'start', failed: true };
  const m = PHASE.exec(f);
  if (!m) return { kind: f, phase: 'once' };
  const word = m[2]!.toLowerCase();
  const kind = (f.slice(0, m.index) + f.slice(m.index + m[0].length)).replace(/^[-_:/ ]+|[-_:/ ]+$/g, '') || 'fault';
  return { kind, phase: word === 'start' || word === 'begin' ? 'start' : word === 'step' ? 'step' : 'stop' };
}

export function shortValue(v: unknown, max = 28): string {
  if (v === undefined) return '';
  let s: string;
  try {
    // {"client":0,"ms":50} reads better as client=0 ms=50 in a label.
    s = typeof v === 'string' ? v
      : v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length > 0
        ? Object.entries(v).map(([k, x]) => `${k}=${typeof x === 'string' ? x : JSON.stringify(x)}`).join(' ')
        : JSON.stringify(v) ?? String(v);
  } catch { s = String(v); }
  return s.length > max ? s.slice(0, max - 1) + '…' : s;
}

/** A fault's value for a label: nested objects flattened one level, the pairing `id` left out. */
export function faultValue(v: unknown, max: number): string {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return shortValue(v, max);
  const flat: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    if (k === 'id') continue;
    // Own keys only (setOwn): the value's names are the history's.
    if (x !== null && typeof x === 'object' && !Array.isArray(x)) for (const [k2, x2] of Object.entries(x)) setOwn(flat, k2, x2);
    else setOwn(flat, k, x);
  }
  return shortValue(flat, max);
}

/** Where a start/stop record pairs: its kind, and the fault's own id when it has one (overlapping faults of one kind). */
function pairKey(kind: string, v: unknown): string {
  const id = v !== null && typeof v === 'object' ? (v as { id?: unknown }).id : undefined;
  return id === undefined ? kind : `${kind}\u0000${String(id)}`;
}

/**
 * Pairs nemesis start/stop records into bands; other records become one-shot marks.
 * The runner's run-start/run-end records are not faults: they become section marks.
 */
function faultBands(events: NemesisEvent[], pos: Timeline['pos'], end: number): { bands: FaultBand[]; marks: FaultMark[] } {
  const bands: FaultBand[] = [];
  const marks: FaultMark[] = [];
  const open = new Map<string, FaultBand>();
  const lastClosed = new Map<string, FaultBand>();
  // Steps recorded before their fault's start record (keyed like the band they begin).
  const early = new Map<string, FaultStepMark[]>();
  const label = (kind: string, v: unknown): string => (v === undefined ? kind : `${kind} ${faultValue(v, 40)}`.trim());
  const stepWords = (v: unknown): string => {
    const w = v !== null && typeof v === 'object' ? (v as { step?: unknown }).step : undefined;
    return typeof w === 'string' ? w : faultValue(v, 60) || 'a step';
  };
  for (const e of events) {
    // A client's new process joining a fault begun: bookkeeping for the checker, drawn by the fault's band already.
    if (e.f === 'joined-fault') continue;
    const { kind, phase, failed } = faultPhase(e.f);
    const at = pos(e.seq, e.time);
    if (kind === 'run') {
      if (phase === 'start') marks.push({ label: label('run', e.value), a: at, line: e.line, time: e.time, section: true });
      continue;
    }
    const k = pairKey(kind, e.value);
    if (phase === 'step') {
      const step: FaultStepMark = { a: at, words: stepWords(e.value), line: e.line };
      const b = open.get(k);
      if (b) { b.steps.push(step); continue; }
      early.set(k, [...early.get(k) ?? [], step]);
    } else if (phase === 'start') {
      lastClosed.delete(k);
      const b = open.get(k);
      if (b) { b.lines.push(e.line); b.times.push(e.time); if (e.value !== undefined && b.label === kind) b.label = label(kind, e.value); continue; } // Jepsen: invoke then info of one start
      const before = early.get(k);
      early.delete(k);
      // From its first recorded step; else from the lead-in its start record states.
      const lead = before || e.time === undefined ? 0 : leadInMs(e.value);
      const a = before ? Math.min(at, before[0]!.a) : lead ? Math.min(at, pos(e.seq, e.time! - lead * 1e6)) : at;
      const nb: FaultBand = { kind, label: label(failed ? `${kind} start failed` : kind, e.value), a, at, b: end, open: true, lines: [e.line], times: [e.time],
        value: e.value, steps: before ?? [], ...(failed ? { failed } : {}) };
      open.set(k, nb);
      bands.push(nb);
    } else if (phase === 'stop') {
      const b = open.get(k) ?? lastClosed.get(k);
      if (!b) { marks.push({ label: e.f, a: at, line: e.line, time: e.time }); continue; }
      b.b = at; b.open = false; b.lines.push(e.line); b.times.push(e.time);
      open.delete(k);
      lastClosed.set(k, b);
    } else {
      marks.push({ label: label(e.f, e.value), a: at, line: e.line, time: e.time });
    }
  }
  // Steps of a fault that never recorded its start: marks where they happened.
  for (const steps of early.values()) for (const st of steps) marks.push({ label: st.words, a: st.a, line: st.line });
  return { bands, marks };
}

/**
 * Lock holds as the clients believed them (docs/history-format.md "Beliefs and double holders"): acquire ok until the
 * next release call, whatever its outcome (a failed release leaves the lock held at the server,
 * which the lease bar shows, but the client has left its critical section).
 */
export function holdsOf(ops: Op[], pos: Timeline['pos'], end: number): Hold[] {
  const holds: Hold[] = [];
  const current = new Map<string, Hold>();
  for (const op of ops) {
    if (op.outcome === 'fail' && op.f !== 'release') continue;
    const id = `${op.process}\u0000${op.key}`;
    if (op.f === 'acquire' && op.outcome === 'ok' && !current.has(id)) {
      const h: Hold = { process: op.process, key: op.key, a: opEnd(op, pos)!, b: end, open: true, fromLine: op.completeLine, toLine: Infinity };
      if (op.mode === 'shared') h.shared = true;
      if (op.limit !== undefined) { h.permits = op.permits ?? 1; h.limit = op.limit; }
      current.set(id, h);
      holds.push(h);
    } else if (op.f === 'release') {
      const h = current.get(id);
      if (h) { h.b = opStart(op, pos); h.open = false; h.toLine = op.invokeLine; current.delete(id); }
    }
  }
  return holds;
}

/**
 * Where an anomaly sits on the axis. A double holder is drawn over the overlap
 * itself (checkers/messages.ts: lines = [first acquire ok, second acquire ok,
 * end], times = [second acquire ok, end]); other anomalies over their lines and ops.
 */
function anomalyMark(an: Anomaly, index: number, mode: AxisMode, lineAt: Map<number, number>, byId: Map<number, Op>, pos: Timeline['pos'], end: number, t0: number): AnomalyMark {
  let ids = an.ops ?? [];
  if (ids.length > MAX_OUTLINED) {
    // Outlining hundreds of ops says nothing: keep the ones on the anomaly's own lines (the culprit).
    const lines = new Set(an.lines);
    ids = ids.filter((id) => { const op = byId.get(id); return op !== undefined && (lines.has(op.invokeLine) || lines.has(op.completeLine)); });
  }
  const opIds = new Set<number>(ids);
  const mapLines = (ls: number[]): number[] => ls.map((l) => lineAt.get(l)).filter((x): x is number => x !== undefined);
  if (an.type === 'double-holder' && an.lines.length >= 2) {
    const times = mode === 'time' && an.times && an.times.length > 0 ? an.times.map((t) => (t - t0) / 1e6) : undefined;
    const [a, b] = times ?? mapLines(an.lines.slice(1, 3));
    if (a !== undefined) return { index, anomaly: an, a, b: b ?? end, open: b === undefined, opIds, window: -1 };
  }
  // Several holders (checkers/permit-messages.ts: times = [the last holder's acquire ok, the first end]).
  if (OVERLAPS.has(an.type) && mode === 'time' && an.times && an.times.length > 0) {
    const [a, b] = an.times.map((t) => (t - t0) / 1e6);
    return { index, anomaly: an, a: a!, b: b ?? end, open: b === undefined, opIds, window: -1 };
  }
  const xs: number[] = mode === 'time' && an.times && an.times.length > 0 ? an.times.map((t) => (t - t0) / 1e6) : mapLines(an.lines);
  for (const id of opIds) {
    const op = byId.get(id);
    if (!op) continue;
    xs.push(opStart(op, pos));
    const e = opEnd(op, pos);
    if (e !== undefined) xs.push(e);
  }
  return { index, anomaly: an, a: xs.length ? Math.min(...xs) : NaN, b: xs.length ? Math.max(...xs) : NaN, open: false, opIds, window: -1 };
}

/** Array positions of the ops an anomaly names (by id or by line). */
function anomalyOpIndices(m: AnomalyMark, indexOfId: Map<number, number>, indexOfLine: Map<number, number>): number[] {
  const out: number[] = [];
  for (const id of m.opIds) { const i = indexOfId.get(id); if (i !== undefined) out.push(i); }
  for (const l of m.anomaly.lines) { const i = indexOfLine.get(l); if (i !== undefined) out.push(i); }
  return out;
}

export function buildTimeline(h: ParsedHistory, r: CheckResult, limits: { fullLimit?: number; context?: number; maxWindows?: number } = {}): Timeline {
  const fullLimit = limits.fullLimit ?? FULL_LIMIT;
  const context = limits.context ?? CONTEXT_OPS;
  const maxWindows = limits.maxWindows ?? MAX_WINDOWS;
  const mode = axisMode(h);
  // Times are shown from the history's first event (its run-start): a counterexample cut from the
  // 64th second of a search still reads 0–1.1 s.
  const t0 = mode === 'time' ? Math.min(h.ops[0]?.invokeTime ?? Infinity, h.nemesis[0]?.time ?? Infinity) : 0;
  const pos: Timeline['pos'] = mode === 'time' ? (_s, t) => ((t ?? t0) - t0) / 1e6 : (s) => s;
  const ops = h.ops;

  let end = 0;
  const lineAt = new Map<number, number>();
  const indexOfLine = new Map<number, number>();
  const indexOfId = new Map<number, number>();
  const byId = new Map<number, Op>();
  const keys = new Set<string>();
  const procs = new Set<number>();
  // Only the lines and ops the anomalies name are indexed: a million-op history stays one quick pass.
  const wantLines = new Set<number>();
  const wantIds = new Set<number>();
  for (const an of r.anomalies) { for (const l of an.lines) wantLines.add(l); for (const id of an.ops ?? []) wantIds.add(id); }
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i]!;
    const a = opStart(op, pos);
    const b = opEnd(op, pos);
    if (wantLines.has(op.invokeLine)) { lineAt.set(op.invokeLine, a); indexOfLine.set(op.invokeLine, i); }
    if (b !== undefined && wantLines.has(op.completeLine)) { lineAt.set(op.completeLine, b); indexOfLine.set(op.completeLine, i); }
    if (wantIds.has(op.id)) { indexOfId.set(op.id, i); byId.set(op.id, op); }
    if (a > end) end = a;
    if (b !== undefined && b > end) end = b;
    keys.add(op.key);
    procs.add(op.process);
  }
  for (const e of h.nemesis) { const x = pos(e.seq, e.time); lineAt.set(e.line, x); end = Math.max(end, x); }

  const { bands, marks } = faultBands(h.nemesis, pos, end);
  let first = ops.length ? opStart(ops[0]!, pos) : end;
  if (h.nemesis.length) first = Math.min(first, pos(h.nemesis[0]!.seq, h.nemesis[0]!.time));
  const holds = holdsOf(ops, pos, end);
  const anomalies = r.anomalies.map((an, i) => anomalyMark(an, i, mode, lineAt, byId, pos, end, t0));

  // Main op ranges (array positions) of the windows.
  let ranges: { lo: number; hi: number; anomalies: number[] }[] = [];
  const cut = ops.length > fullLimit;
  if (!cut) {
    ranges = [{ lo: 0, hi: ops.length - 1, anomalies: anomalies.map((m) => m.index) }];
  } else {
    for (const m of anomalies) {
      const idx = anomalyOpIndices(m, indexOfId, indexOfLine);
      if (idx.length === 0) continue;
      ranges.push({ lo: Math.max(0, Math.min(...idx) - context), hi: Math.min(ops.length - 1, Math.max(...idx) + context), anomalies: [m.index] });
    }
    ranges.sort((x, y) => x.lo - y.lo);
    const merged: typeof ranges = [];
    for (const rg of ranges) {
      const last = merged[merged.length - 1];
      if (last && rg.lo <= last.hi + 1) { last.hi = Math.max(last.hi, rg.hi); last.anomalies.push(...rg.anomalies); }
      else merged.push({ ...rg, anomalies: [...rg.anomalies] });
    }
    ranges = merged.slice(0, maxWindows);
    if (ranges.length === 0) ranges = [{ lo: 0, hi: Math.min(ops.length, 2 * context + 1) - 1, anomalies: [] }];
  }

  const windows: Window[] = ranges.map((rg, id) => {
    const main = ops.slice(rg.lo, rg.hi + 1);
    // A whole run starts at its first event (a counterexample cut from a longer invocation starts late).
    let a0 = cut ? Infinity : first;
    let a1 = cut ? -Infinity : end;
    if (cut) for (const op of main) { a0 = Math.min(a0, opStart(op, pos)); a1 = Math.max(a1, opEnd(op, pos) ?? opStart(op, pos)); }
    for (const i of rg.anomalies) { const m = anomalies[i]!; if (Number.isFinite(m.a)) { a0 = Math.min(a0, m.a); a1 = Math.max(a1, cut && m.open ? m.a : m.b); } }
    if (!(a1 > a0)) a1 = a0 + 1;
    a1 += (a1 - a0) * 0.03; // room for the last op's label
    a0 = Math.max(first >= 0 ? 0 : -Infinity, a0 - (a1 - a0) * 0.01); // never before the run started
    // Ops invoked before the window that were still running when it starts.
    const spanning: Op[] = [];
    for (let i = rg.lo - 1; i >= 0 && i >= rg.lo - 2000 && spanning.length < MAX_SPANNING; i--) {
      const op = ops[i]!;
      const e = opEnd(op, pos);
      if (e === undefined || e > a0) spanning.push(op);
    }
    const wops = cut ? [...spanning.reverse(), ...main] : main;
    const wholds = holds.filter((hd) => hd.a <= a1 && hd.b >= a0);
    const lanes = new Set<number>(wops.map((o) => o.process));
    for (const hd of wholds) lanes.add(hd.process);
    for (const i of rg.anomalies) { anomalies[i]!.window = id; for (const p of anomalies[i]!.anomaly.processes) lanes.add(p); }
    return {
      id, a0, a1, ops: wops, holds: wholds, anomalies: rg.anomalies,
      processes: [...lanes].sort((x, y) => x - y),
      firstOp: main[0]?.id ?? 0, lastOp: main[main.length - 1]?.id ?? 0,
    };
  });

  return { mode, pos, windows, anomalies, bands, marks, keys: [...keys].sort(), processes: procs.size, totalOps: ops.length, cut, end, t0: Number.isFinite(t0) ? t0 : 0 };
}
