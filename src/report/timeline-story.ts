// The lock's story on top of the plain timeline (timeline-model.ts): which
// client each process is, the lease each acquire was granted (renewals extend
// it) next to the hold the client believed, the gap between the two and who
// acquired inside it, stale unlocks where they happened, each fault as its own
// row in words on the lanes (clients, server nodes) it targets, a liveness
// stuck interval on its key's lane, and the protected resource's steps. Plain
// data; html.ts turns it into markup.
import { closeSync, openSync, readSync } from 'node:fs';
import { notRegularFile } from '../regular-file.ts';
import type { Op, ParsedHistory } from '../history/types.ts';
import type { ResourceEntry, ResourceResult } from '../../checkers/resource.ts';
import { faultValue, opEnd, shortValue, opStart, type Timeline } from './timeline-model.ts';
import { kindDef } from '../../nemesis/kinds.ts';
import { finite, fmtMs, forDur, type FaultBand, type FaultStep } from '../../nemesis/band.ts';
import { t, type Lang } from '../i18n/lang.ts';

export type { FaultStep };

/** What a caller may add that the history file does not carry. All optional. */
export interface TimelineExtras {
  /** process → client name ('c1'); read from the history file's invokes when absent. */
  clients?: ReadonlyMap<number, string> | Record<number, string>;
  /** The run's resource check and its log (drawn on a resource lane). */
  resource?: ResourceResult;
  resourceEntries?: readonly ResourceEntry[];
  /** The page's language (default en): its headings, legend and the story's fixed words; fault words and the checkers' messages stay English. */
  lang?: Lang;
}

export type LaneKind = 'client' | 'node' | 'key' | 'resource';
export interface Lane { id: string; kind: LaneKind; label: string; detail: string; processes: number[] }

export interface Lease {
  lane: string; process: number; key: string;
  a: number;            // acquire ok
  end: number;          // when the server may have dropped it at the latest: last grant's return + lease_ms, or the release
  /** The grant happened between the call and its return, so the lease ends somewhere in [unsure, end] (unsure = call + lease_ms). */
  unsure: number;
  leaseMs: number; renewals: number; ranOut: boolean;
  beliefEnd: number;    // release call (or the end of the history)
  token?: number;
}
export interface Gap { lane: string; process: number; key: string; a: number; b: number; intruders: { lane: string; process: number; a: number }[] }
export interface Note { lane: string; a: number; kind: 'lease-end' | 'gap-acquire' | 'stale-unlock' | 'crash' | 'token' | 'write' | 'stale-write' | 'rejected'; text: string; tip: string; anomaly?: number; pri: number }
export interface FaultRow { kind: string; words: string; a: number; b: number; open: boolean; lanes: string[]; tip: string; steps: FaultStep[] }

export interface Stuck { lane: string; a: number; b: number; words: string; anomaly: number }

export interface Story {
  lanes: Map<string, Lane>;
  laneOf: (process: number) => string;
  leases: Lease[]; gaps: Gap[]; notes: Note[]; faults: FaultRow[]; stuck: Stuck[];
  resourceNote?: string;
}

/** process → client from the recorder's `client` field on invokes (the parsed history does not keep it). Read in chunks: a 1M-op file stays a quick pass. */
export function clientsFromFile(path: string): Map<number, string> {
  const out = new Map<number, string>();
  // A pipe was read by the checker already: it cannot be read again (and a FIFO would block here).
  if (!path.endsWith('.jsonl') || notRegularFile(path) !== undefined) return out;
  const re = /"process":(\d+)[^\n]*?"client":"([^"\\]{1,40})"/g;
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const buf = Buffer.alloc(4 << 20);
    let tail = '';
    for (let got; (got = readSync(fd, buf, 0, buf.length, null)) > 0;) {
      const text = tail + buf.toString('utf8', 0, got);
      const cut = text.lastIndexOf('\n') + 1;
      for (const m of text.slice(0, cut).matchAll(re)) out.set(Number(m[1]), m[2]!);
      tail = text.slice(cut);
    }
    for (const m of tail.matchAll(re)) out.set(Number(m[1]), m[2]!);
  } catch { /* no names: lanes say p<id> */ } finally { if (fd !== undefined) closeSync(fd); }
  return out;
}

/** 'client:c1' → c1; anything else is a server node (n3, primary, …). */
export function faultTargets(v: Record<string, unknown>): { clients: string[]; nodes: string[] } {
  const grudge = (v.params as Record<string, unknown> | undefined)?.grudge;
  // A grudge names its endpoints in params.grudge ("c1:n4,n5 n1:n3").
  const ends = v.target === 'grudge' && typeof grudge === 'string' ? [...new Set(grudge.split(/[\s:,]+/).filter(Boolean))] : undefined;
  const raw = v.client !== undefined ? [v.client] : ends ?? (Array.isArray(v.target) ? v.target : v.target !== undefined ? [v.target] : []);
  const clients: string[] = [];
  let nodes: string[] = [];
  for (const t of raw.map(String)) {
    if (t.startsWith('client:')) clients.push(t.slice(7));
    else if (v.client !== undefined || /^c\d+$/.test(t)) clients.push(t);
    else nodes.push(t);
  }
  // A symbolic target (primary, leader) is resolved when the fault starts: the record names the nodes.
  const named = [v.nodes, v.node, v.old_primary, v.new_primary].flat().filter((x): x is string => typeof x === 'string');
  if (named.length) nodes = [...new Set(named)];
  return { clients, nodes };
}

/** A fault in words with its parameters, e.g. "pause c1 1088 ms (> lease 800 ms)": its kind's own (KindDef.band), else its record as it is. */
export function faultWords(kind: string, value: unknown, measuredMs: number | undefined, leaseMs?: number): string {
  const v = (value !== null && typeof value === 'object' && !Array.isArray(value) ? value : {}) as Record<string, unknown>;
  const p = (v.params ?? {}) as Record<string, unknown>;
  const { clients, nodes } = faultTargets(v);
  const point = v.point ?? p.point;
  const band: FaultBand = {
    value: v, params: p, who: [...clients, ...nodes].join(', ') || 'all',
    durMs: finite(v.duration_ms) ?? finite(p.duration_ms) ?? measuredMs, leaseMs,
    point: typeof point === 'string' ? point : undefined,
  };
  const words = kindDef(kind)?.band;
  if (words) return words(band);
  const rest = faultValue(value, 200);
  return `${kind}${rest ? ` ${rest}` : ''}${forDur(band)}`;
}

/** Lease of the hold a client was in at axis time x (for "pause c1 … (> lease 800 ms)"). */
function leaseAt(leases: Lease[], lane: string, x: number): number | undefined {
  return leases.find((l) => l.lane === lane && l.a <= x && l.beliefEnd >= x)?.leaseMs ?? leases.filter((l) => l.lane === lane && l.a <= x).pop()?.leaseMs;
}

function leasesOf(ops: Op[], tl: Timeline, laneOf: (p: number) => string, ns: (t: number) => number): Lease[] {
  // The server granted (or extended) the lease somewhere between the call and its return: it ends
  // no earlier than call + lease (grantLo) and no later than return + lease (grantHi). Only after
  // grantHi is the client surely past its lease. A lock that reports the validity left (valid_ms,
  // on the acquire or a renew) narrows grantHi to return + valid_ms.
  type Open = Lease & { grantLo: number; grantHi: number };
  const out: Open[] = [];
  const open = new Map<string, Open>();
  const settle = (l: Open, freed: number): void => {
    l.end = Math.min(l.grantHi, freed, tl.end);
    l.unsure = Math.min(l.grantLo, l.end);
    l.ranOut = l.grantHi < l.beliefEnd;
  };
  for (const op of ops) {
    const id = `${op.process}\u0000${op.key}`;
    const cur = open.get(id);
    if (op.f === 'acquire' && op.outcome === 'ok' && !cur) {
      if (op.leaseMs === undefined || op.invokeTime === undefined) continue;
      const tok = (op.value as { token?: unknown } | undefined)?.token;
      const a = opEnd(op, tl.pos)!;
      const l = { lane: laneOf(op.process), process: op.process, key: op.key, a, end: tl.end, unsure: tl.end, leaseMs: op.leaseMs, renewals: 0, ranOut: false, beliefEnd: tl.end,
        grantLo: ns(op.invokeTime) + op.leaseMs, grantHi: a + Math.min(op.leaseMs, op.validMs ?? Infinity), ...(typeof tok === 'number' ? { token: tok } : {}) };
      open.set(id, l);
      out.push(l);
    } else if (cur && op.f === 'renew' && op.outcome === 'ok' && op.invokeTime !== undefined) {
      const ms = op.leaseMs ?? cur.leaseMs;
      cur.grantLo = Math.max(cur.grantLo, ns(op.invokeTime) + ms);
      // A renew that reported the validity it renewed narrows its grant as an acquire's does.
      cur.grantHi = Math.max(cur.grantHi, (opEnd(op, tl.pos) ?? ns(op.invokeTime)) + Math.min(ms, op.validMs ?? Infinity));
      cur.renewals++;
    } else if (cur && op.f === 'release') {
      cur.beliefEnd = opStart(op, tl.pos);
      const done = opEnd(op, tl.pos);
      // A release that worked ends the lease then; a failed or unknown one leaves it to run out.
      settle(cur, op.outcome === 'ok' && done !== undefined ? done : Infinity);
      open.delete(id);
    }
  }
  for (const l of open.values()) settle(l, Infinity);
  return out.map(({ grantLo: _l, grantHi: _h, ...l }) => l);
}

export function buildStory(h: ParsedHistory, tl: Timeline, extras: TimelineExtras = {}): Story {
  const given = extras.clients instanceof Map ? extras.clients : extras.clients ? new Map(Object.entries(extras.clients).map(([k, v]) => [Number(k), v])) : undefined;
  const clients = given ?? clientsFromFile(h.source);
  const lang = extras.lang ?? 'en';
  const lanes = new Map<string, Lane>();
  const laneOf = (p: number): string => { const c = clients.get(p); return c === undefined ? `p${p}` : c; };
  for (const op of h.ops) {
    const id = laneOf(op.process);
    let l = lanes.get(id);
    if (!l) lanes.set(id, (l = { id, kind: 'client', label: id, detail: '', processes: [] }));
    if (!l.processes.includes(op.process)) l.processes.push(op.process);
  }
  for (const l of lanes.values()) l.detail = clients.size ? l.processes.map((p) => `p${p}`).join(' ') : '';
  const ns = (t: number): number => tl.pos(0, t);

  const leases = tl.mode === 'time' ? leasesOf(h.ops, tl, laneOf, ns) : [];
  const gaps: Gap[] = [];
  const notes: Note[] = [];
  // Ok acquires per key by completion, so each gap finds the acquires inside it by binary search.
  const okByKey = new Map<string, { x: number; op: Op }[]>();
  for (const o of h.ops) {
    if (o.f !== 'acquire' || o.outcome !== 'ok') continue;
    const l = okByKey.get(o.key) ?? [];
    l.push({ x: opEnd(o, tl.pos)!, op: o });
    okByKey.set(o.key, l);
  }
  for (const l of okByKey.values()) l.sort((p, q) => p.x - q.x);
  for (const l of leases) {
    if (l.token !== undefined) notes.push({ lane: l.lane, a: l.a, kind: 'token', text: t(lang, 'tl.st.token', { token: l.token }), tip: `fencing token ${l.token} handed out with this hold`, pri: 3 });
    if (!l.ranOut) continue;
    // A lease may run out before its acquire even returned (counted from the call): the gap starts with the belief.
    const g: Gap = { lane: l.lane, process: l.process, key: l.key, a: Math.max(l.end, l.a), b: l.beliefEnd, intruders: [] };
    const acq = okByKey.get(l.key) ?? [];
    let lo = 0;
    for (let hi = acq.length; lo < hi;) { const mid = (lo + hi) >> 1; if (acq[mid]!.x <= g.a) lo = mid + 1; else hi = mid; }
    for (let i = lo; i < acq.length && acq[i]!.x < g.b; i++) {
      const o = acq[i]!.op;
      if (o.process !== l.process) g.intruders.push({ lane: laneOf(o.process), process: o.process, a: acq[i]!.x });
    }
    gaps.push(g);
    notes.push({ lane: l.lane, a: l.end, kind: 'lease-end', text: t(lang, 'tl.st.leaseEnds'), pri: 1,
      tip: `${l.lane}'s ${fmtMs(l.leaseMs)} lease${l.renewals ? ` (renewed ${l.renewals}×)` : ''} on "${l.key}" ran out at the server by ${l.end.toFixed(3)} ms at the latest (counted from the return of the call that granted it${l.unsure < l.end ? `; from ${l.unsure.toFixed(3)} ms if the server granted it as soon as it was called` : ''})\n${l.lane} still believed it held the lock until ${l.beliefEnd.toFixed(3)} ms: ${fmtMs(l.beliefEnd - l.end)} past its lease` });
    for (const i of g.intruders) {
      notes.push({ lane: i.lane, a: i.a, kind: 'gap-acquire', text: t(lang, 'tl.st.gapAcquire', { lane: l.lane }), pri: 0,
        tip: `${i.lane} (p${i.process}) acquired "${l.key}" at ${i.a.toFixed(3)} ms: ${l.lane}'s lease had run out at ${l.end.toFixed(3)} ms but ${l.lane} still believed it held the lock (until ${l.beliefEnd.toFixed(3)} ms)` });
    }
  }

  // Stale unlocks, at the unlock itself.
  const releaseByLine = new Map<number, Op>();
  for (const o of h.ops) if (o.f === 'release') { releaseByLine.set(o.invokeLine, o); releaseByLine.set(o.completeLine, o); }
  tl.anomalies.forEach((m, i) => {
    if (m.anomaly.type !== 'stale-release') return;
    const rel = m.anomaly.lines.map((ln) => releaseByLine.get(ln)).find((o) => o !== undefined && o.process === m.anomaly.processes[0]);
    if (!rel) return;
    const called = opStart(rel, tl.pos), returned = opEnd(rel, tl.pos);
    // Marked where the unlock had taken effect by: its return (a release held up inside, between its
    // compare and its delete, frees the lock long after its call); at its call when it never returned.
    const x = returned ?? called;
    // The anomaly's tag and list link go to the unlock, not to the hold it came from.
    m.a = called;
    m.b = Math.max(called, x);
    notes.push({ lane: laneOf(rel.process), a: x, kind: 'stale-unlock', text: t(lang, 'tl.st.staleUnlock'), anomaly: i, pri: 0,
      tip: `#${i + 1} stale unlock by ${laneOf(rel.process)} (p${rel.process}): its release was called at ${called.toFixed(3)} ms (line ${rel.invokeLine})${returned !== undefined ? ` and returned at ${returned.toFixed(3)} ms (line ${rel.completeLine}): it took effect in between` : ' and never returned'}\n${m.anomaly.message}` });
  });

  // Client crashes of the lock's code (checkers/crash.ts): a mark on that client's lane where its process died.
  tl.anomalies.forEach((m, i) => {
    const c = m.anomaly.crash;
    if (m.anomaly.type !== 'client-crash' || !c || !Number.isFinite(m.a)) return;
    const p = m.anomaly.processes[0];
    const lane = p !== undefined ? laneOf(p) : c.client;
    if (!lanes.has(lane)) return;
    notes.push({ lane, a: m.a, kind: 'crash', text: t(lang, 'tl.st.crashed'), anomaly: i, pri: 0,
      tip: `#${i + 1} ${lane}'s process crashed at ${m.a.toFixed(3)} ms (line ${m.anomaly.lines[0]})${c.fault ? `, after ${c.fault.words}` : ''}\n${c.stack ?? `${c.error}${c.log ? ` (its stderr: ${c.log})` : ''}`}` });
  });

  // Faults: one row each, on the lanes they target; server nodes get lanes of their own.
  const faults: FaultRow[] = tl.bands.map((b) => {
    const v = (b.value !== null && typeof b.value === 'object' ? b.value : {}) as Record<string, unknown>;
    const t = faultTargets(v);
    for (const n of t.nodes) if (!lanes.has(`node:${n}`)) lanes.set(`node:${n}`, { id: `node:${n}`, kind: 'node', label: n, detail: '', processes: [] });
    const clientLanes = t.clients.filter((c) => lanes.has(c));
    const lease = t.clients.length === 1 ? leaseAt(leases, t.clients[0]!, b.a) : undefined;
    const words = b.failed ? `${b.kind} failed to start: ${shortValue(v.error ?? 'no reason recorded', 120)}` : faultWords(b.kind, b.value, b.open ? undefined : b.b - b.a, lease);
    // The steps it recorded; a history without step records: those its kind reads from the start record.
    const steps = b.steps.length ? b.steps : b.a < b.at ? kindDef(b.kind)?.bandSteps?.(v, b.a, b.at) ?? [] : [];
    const from = b.a < b.at
      ? `from ${b.a.toFixed(3)} ms (its first step; the ${b.failed ? 'failed ' : ''}start record at line ${b.lines[0]} was written at ${b.at.toFixed(3)} ms)`
      : `from ${b.a.toFixed(3)} ms (line ${b.lines[0]})`;
    return { kind: b.kind, words, a: b.a, b: b.b, open: b.open, lanes: [...clientLanes, ...t.nodes.map((n) => `node:${n}`)], steps,
      tip: `fault: ${words}\n${from}${steps.map((x) => `\n  ${x.a.toFixed(3)} ms: ${x.words}`).join('')}\n${b.open ? 'never healed in this history' : `to ${b.b.toFixed(3)} ms (line ${b.lines[b.lines.length - 1]}), ${fmtMs(b.b - b.a)}`}` };
  });

  // Liveness: the stuck interval on its key's lane, in words.
  const stuck: Stuck[] = [];
  tl.anomalies.forEach((m, i) => {
    if (m.anomaly.type !== 'liveness' || !Number.isFinite(m.a)) return;
    const id = `key:${m.anomaly.key}`;
    if (!lanes.has(id)) lanes.set(id, { id, kind: 'key', label: m.anomaly.key, detail: '', processes: [] });
    const holder = m.anomaly.processes[0];
    const words = holder === undefined ? t(lang, 'tl.st.stuck', { key: m.anomaly.key, duration: fmtMs(m.b - m.a) })
      : t(lang, 'tl.st.stuckAfter', { key: m.anomaly.key, duration: fmtMs(m.b - m.a), lane: laneOf(holder) });
    stuck.push({ lane: id, a: m.a, b: m.b, words, anomaly: i });
  });

  // The protected resource: steps carry no time, so each is drawn at its writer's hold.
  let resourceNote: string | undefined;
  if (extras.resourceEntries?.length) {
    lanes.set('resource', { id: 'resource', kind: 'resource', label: 'resource', detail: '', processes: [] });
    const holdsBy = new Map<number, { a: number; b: number }[]>();
    for (const hd of tl.windows.flatMap((w) => w.holds)) {
      const l = holdsBy.get(hd.process) ?? [];
      if (!l.some((x) => x.a === hd.a)) l.push({ a: hd.a, b: hd.b });
      holdsBy.set(hd.process, l);
    }
    const seen = new Map<number, number>();
    const stale = new Set((extras.resource?.anomalies ?? []).filter((a) => a.type === 'stale-write').map((a) => a.processes[0]));
    for (const e of [...extras.resourceEntries].sort((x, y) => x.seq - y.seq)) {
      if (e.op !== 'write') continue;
      const k = seen.get(e.process) ?? 0;
      seen.set(e.process, k + 1);
      const hold = (holdsBy.get(e.process) ?? []).sort((x, y) => x.a - y.a)[k];
      if (!hold) continue;
      const who = laneOf(e.process);
      const kind = !e.accepted ? 'rejected' : stale.has(e.process) && e.read !== undefined && e.prev !== e.read ? 'stale-write' : 'write';
      const text = kind === 'rejected' ? (e.token === undefined ? t(lang, 'tl.st.rejected', { who }) : t(lang, 'tl.st.rejectedToken', { who, token: e.token, max: String(e.max) }))
        : kind === 'stale-write' ? t(lang, 'tl.st.staleWrite', { who, read: String(e.read), value: String(e.value), prev: String(e.prev) }) : t(lang, 'tl.st.writes', { who, value: String(e.value) });
      notes.push({ lane: 'resource', a: hold.b, kind, text, pri: kind === 'write' ? 3 : 0,
        tip: `${text}\n${who} (p${e.process}) ${e.op} on "${e.key}": counter was ${e.prev}${e.read === undefined ? '' : `, it had read ${e.read}`}${e.token === undefined ? '' : `, token ${e.token} (highest seen ${e.max})`}; ${e.accepted ? 'accepted' : 'rejected by the fencing check'}\n(resource steps carry no time: drawn at the end of ${who}'s hold)` });
    }
    resourceNote = extras.resource?.message;
  } else if (extras.resource?.anomalies.some((a) => a.processes.length)) {
    // Only the check's result: its stale writes at the end of the writer's last hold on that key.
    lanes.set('resource', { id: 'resource', kind: 'resource', label: 'resource', detail: '', processes: [] });
    for (const an of extras.resource.anomalies) {
      const p = an.processes[0];
      const hold = p === undefined ? undefined : tl.windows.flatMap((w) => w.holds).filter((hd) => hd.process === p && hd.key === an.key).sort((x, y) => x.a - y.a).pop();
      if (!hold) continue;
      const who = laneOf(p!);
      notes.push({ lane: 'resource', a: hold.b, kind: 'stale-write', text: `! ${who} ${an.type}`, pri: 0, tip: `${an.message}\n(drawn at the end of ${who}'s last hold on "${an.key}": the resource check gives no time)` });
    }
    resourceNote = extras.resource.message;
  }
  return { lanes, laneOf, leases, gaps, notes, faults, stuck, ...(resourceNote ? { resourceNote } : {}) };
}
