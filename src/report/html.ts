// One self-contained timeline.html (inline CSS, SVG and script; no external
// URL) that tells the lock's story: a lane per client (c1, its process ids as
// detail) with its ops, the hold it believes and the lease it was granted, the
// gap between them and who acquired inside it, stale unlocks where they
// happened, one row per fault in words on the lanes and server nodes it
// targets, anomalies in red with a plain-words list at the top. Times are ms
// from the run's start. Big histories are cut to windows around the anomalies
// (timeline-model.ts) with an overview strip, so the file stays small.
import { inClientTerms } from './text.ts';
import { RUNNER_RECORDS } from '../history/runner-records.ts';
import type { Op, ParsedHistory } from '../history/types.ts';
import type { CheckResult } from '../../checkers/types.ts';
import { OVERLAPS } from '../../checkers/anomaly-kinds.ts';
import { buildTimeline, opStart, opEnd, shortValue, type Timeline, type Window, type AnomalyMark } from './timeline-model.ts';
import { buildStory, type Lane, type LaneKind, type Story, type TimelineExtras } from './timeline-story.ts';
import { G, niceTicks, tickLabel } from './timeline-geometry.ts';
import { timelineScript } from './timeline-script.ts';
import { timelineCss } from './timeline-style.ts';
import { describeOutcomes, opOutcomes, type Outcomes } from './outcomes.ts';
import { anomalyName, t, type Lang } from '../i18n/lang.ts';

export type { TimelineExtras } from './timeline-story.ts';

/** Anomalies listed in words at the top; the rest are counted. */
export const MAX_LISTED = 100;

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
const n = (x: number): string => (Number.isInteger(x) ? String(x) : x.toFixed(4).replace(/0+$/, '').replace(/\.$/, ''));
const fmtInt = (x: number): string => x.toLocaleString('en-US');

function at(tl: Timeline, x: number): string {
  return tl.mode === 'time' ? `${x.toFixed(3)} ms` : `event #${Math.round(x)}`;
}

/** An anomaly's tag on the drawing: its name in the page's language up to the explanation (the type itself for one this build does not know). */
function shortName(lang: Lang, type: string): string {
  return anomalyName(lang, type)?.split('：')[0] ?? type;
}

/** An anomaly's type named in the page's language, before its message (which stays in English). */
function typeTag(lang: Lang, type: string): string {
  const name = anomalyName(lang, type);
  return name === undefined ? '' : `<b class="atype">${escapeHtml(name)}</b> — `;
}

/** A message's "process N" as the client lane it is drawn on (c1), as the text report words it. */
function said(st: Story, message: string): string {
  const clients = new Map<number, string>();
  for (const l of st.lanes.values()) if (l.kind === 'client' && !/^p\d+$/.test(l.id)) for (const p of l.processes) clients.set(p, l.id);
  return inClientTerms(message, clients);
}

function lineOf(l: number): string { return Number.isFinite(l) ? `line ${l}` : 'end of history'; }

function opTip(op: Op, tl: Timeline, st: Story): string {
  const a = opStart(op, tl.pos);
  const b = opEnd(op, tl.pos);
  const who = st.laneOf(op.process) === `p${op.process}` ? `p${op.process}` : `${st.laneOf(op.process)} (p${op.process})`;
  const head = `${who} ${op.f}${op.key ? ` "${op.key}"` : ''} → ${op.outcome}${op.outcome === 'info' ? ' (unknown: may take effect any time after the call)' : op.outcome === 'fail' ? ' (certainly did not happen)' : ''}`;
  const vals = [
    op.invokeValue !== undefined ? `call value: ${shortValue(op.invokeValue, 80)}` : '',
    op.value !== undefined ? `return value: ${shortValue(op.value, 80)}` : '',
    op.leaseMs !== undefined ? `lease granted: ${op.leaseMs} ms` : '',
  ].filter(Boolean);
  const call = `call:   ${at(tl, a)} (line ${op.invokeLine})`;
  const ret = b === undefined ? 'return: none (never answered)' : `return: ${at(tl, b)} (line ${op.completeLine})${tl.mode === 'time' ? `, took ${(b - a).toFixed(3)} ms` : ''}`;
  return [head, ...vals, call, ret].join('\n');
}

function opLabel(op: Op, multiKey: boolean): string {
  const v = op.value !== undefined && op.outcome === 'ok' ? op.value : op.invokeValue;
  const parts = [op.f];
  if (multiKey && op.key) parts.push(op.key);
  if (v !== undefined) parts.push(shortValue(v, 22));
  return parts.join(' ');
}

function anomalyWhere(tl: Timeline, st: Story, m: AnomalyMark): string {
  const an = m.anomaly;
  const bits: string[] = [an.type];
  if (an.key) bits.push(`key "${an.key}"`);
  const who = (p: number): string => (st.laneOf(p) === `p${p}` ? String(p) : `${p} (${st.laneOf(p)})`);
  if (an.processes.length) bits.push(`process${an.processes.length > 1 ? 'es' : ''} ${an.processes.map(who).join(', ')}`);
  if (an.lines.length) bits.push(an.lines.length > 1 ? `lines ${Math.min(...an.lines)}–${Math.max(...an.lines)}` : `line ${an.lines[0]}`);
  if (Number.isFinite(m.a)) bits.push(m.b > m.a ? `${at(tl, m.a)} – ${at(tl, m.b)}` : at(tl, m.a));
  if (Number.isFinite(m.a)) {
    // The faults under way, else the last one that started before (the likely cause).
    const during = [...new Set(st.faults.filter((f) => f.a <= m.b && f.b >= m.a).map((f) => f.words))];
    if (during.length) bits.push(`during ${during.join('; ')}`);
    else {
      const last = st.faults.filter((f) => f.a <= m.a).sort((p, q) => q.a - p.a)[0];
      if (last) bits.push(`after ${last.words} at ${at(tl, last.a)}`);
    }
  }
  return bits.join(' · ');
}

function ticksSvg(tl: Timeline, w: Window, X: (a: number) => number, y0: number, h: number): string {
  const { ticks, step } = niceTicks(w.a0, w.a1, 10);
  return ticks.map((v) => {
    const x = X(v).toFixed(1);
    return `<line x1="${x}" x2="${x}" y1="${y0}" y2="${h}" class="tick"/><text x="${x}" y="32" class="tk">${tickLabel(v, step, tl.mode)}</text>`;
  }).join('');
}

/** A rect placed on the axis; data-a/data-b let the page script move it when zooming. */
function rect(X: (a: number) => number, a: number, b: number | undefined, y: number, h: number, attrs: string): string {
  const end = G.labelW + G.plotW;
  const x0 = Math.max(G.labelW - 2, X(a));
  const x1 = Math.max(x0 + G.minW, b === undefined ? end + 2 : Math.min(end + 2, X(b)));
  return `<rect x="${x0.toFixed(1)}" y="${y}" width="${(x1 - x0).toFixed(1)}" height="${h}" data-a="${n(a)}"${b === undefined ? '' : ` data-b="${n(b)}"`} ${attrs}/>`;
}
function vline(X: (a: number) => number, a: number, y1: number, y2: number, attrs: string): string {
  const x = X(a).toFixed(1);
  return `<line x1="${x}" x2="${x}" y1="${y1}" y2="${y2}" data-a="${n(a)}" ${attrs}/>`;
}
/** A text the page script places: `rows` are the y positions it may take (the first free one), `pri` who goes first. */
function note(X: (a: number) => number, a: number, rows: readonly number[], pri: number, text: string, cls: string, tip: string, short?: string, slide?: number): string {
  return `<text x="${(X(a) + 3).toFixed(1)}" y="${rows[0]}" data-a="${n(a)}" data-rows="${rows.join(',')}" data-pri="${pri}"${short ? ` data-short="${escapeHtml(short)}"` : ''}${slide ? ` data-slide="${slide}"` : ''} class="note ${cls}" data-tip="${escapeHtml(tip)}">${escapeHtml(text)}</text>`;
}

const laneHeight = (l: Lane, story: boolean): number => (l.kind === 'client' ? (story ? G.clientH : G.laneH) : l.kind === 'resource' ? G.resourceH : G.laneH);

/** The lanes a window draws: its clients, then the server nodes and keys its faults and anomalies name, then the resource. */
function windowLanes(w: Window, st: Story): Lane[] {
  const ids = new Set<string>(w.processes.map((p) => st.laneOf(p)));
  const inWin = (a: number, b: number): boolean => b >= w.a0 && a <= w.a1;
  for (const f of st.faults) if (inWin(f.a, f.b)) for (const l of f.lanes) if (l.startsWith('node:')) ids.add(l);
  for (const s of st.stuck) if (inWin(s.a, s.b)) ids.add(s.lane);
  if (st.lanes.has('resource') && st.notes.some((x) => x.lane === 'resource' && inWin(x.a, x.a))) ids.add('resource');
  const order: Record<LaneKind, number> = { client: 0, key: 1, resource: 2, node: 3 };
  const num = (id: string): number => Number(/(\d+)$/.exec(id)?.[1] ?? 0);
  return [...ids].map((id) => st.lanes.get(id)!).filter(Boolean)
    .sort((p, q) => order[p.kind] - order[q.kind] || num(p.id) - num(q.id) || p.id.localeCompare(q.id));
}

function windowSvg(tl: Timeline, st: Story, w: Window, lang: Lang): string {
  const multiKey = tl.keys.length > 1;
  const X = (a: number): number => G.labelW + ((a - w.a0) * G.plotW) / (w.a1 - w.a0);
  const inWin = (a: number, b: number): boolean => b >= w.a0 && a <= w.a1;
  const faults = st.faults.filter((f) => inWin(f.a, f.b));
  const lanes = windowLanes(w, st);
  const story = tl.mode === 'time';
  // Faults that overlap (band or words) get rows of their own; one that starts after another's
  // band and words end may share its row (zooming in only moves them apart).
  const end = G.labelW + G.plotW;
  const rowEnds: number[] = [];
  const faultRow = faults.map((f) => {
    const wpx = f.words.length * G.charW + 6;
    const x0 = Math.max(G.labelW, Math.min(X(f.a), end - wpx));
    const x1 = Math.max(f.open ? end : X(f.b), x0 + wpx) + 10;
    let r = rowEnds.findIndex((e) => e < x0);
    if (r < 0) r = rowEnds.push(0) - 1;
    rowEnds[r] = x1;
    return r;
  });
  const top = G.headH + rowEnds.length * G.faultH + (faults.length ? 6 : 0);
  const laneY = new Map<string, number>();
  let y = top;
  for (const l of lanes) { laneY.set(l.id, y); y += laneHeight(l, story); }
  const plotBottom = y;
  const height = plotBottom + 8;
  const out: string[] = [];
  out.push(`<svg class="tl" tabindex="0" aria-label="timeline window ${w.id + 1}" width="${G.width}" height="${height}" viewBox="0 0 ${G.width} ${height}" data-w="${G.width}" data-top="${top}" data-mode="${tl.mode}" data-a0="${n(w.a0)}" data-a1="${n(w.a1)}" data-v0="${n(w.a0)}" data-v1="${n(w.a1)}">`);
  out.push(`<clipPath id="clip${w.id}"><rect class="clipr" x="${G.labelW}" y="0" width="${G.plotW}" height="${height}"/></clipPath>`);
  out.push(`<g class="axis">${ticksSvg(tl, w, X, G.headH - 6, plotBottom)}</g>`);
  out.push(`<g clip-path="url(#clip${w.id})">`);
  // One row per fault, its parameters in words (none hides another).
  faults.forEach((f, i) => {
    const fy = G.headH + faultRow[i]! * G.faultH;
    out.push(rect(X, f.a, f.open ? undefined : f.b, fy + 2, G.faultH - 4, `class="frow k-${escapeHtml(f.kind)}" data-tip="${escapeHtml(f.tip)}"`));
    out.push(`<text x="${Math.max(G.labelW + 2, X(f.a) + 3).toFixed(1)}" y="${fy + 13}" data-a="${n(f.a)}" data-b="${n(f.b)}" class="flabel" data-tip="${escapeHtml(f.tip)}">${escapeHtml(f.words)}</text>`);
    // Its steps (a failover: replication cut, primary taken away, promotion): a tick under the row's words and a faint guide across the lanes.
    for (const s of f.steps) out.push(vline(X, s.a, fy + 14, plotBottom, `class="fstep" data-tip="${escapeHtml(`${f.words}\nstep at ${at(tl, s.a)}: ${s.words}`)}"`));
  });
  // Anomaly tags in the top row, numbered as in the list, with a guide across every lane.
  for (const i of w.anomalies) {
    const m = tl.anomalies[i]!;
    if (!Number.isFinite(m.a)) continue;
    out.push(vline(X, m.a, 18, plotBottom, `class="aguide an-${i}"`));
    // Tags of anomalies close together: "#n", moved up to 24 px beside their guide (the guide stays exact).
    out.push(note(X, m.a, [14], 0, `#${i + 1} ${shortName(lang, m.anomaly.type)}`, `atag an-${i}`, `#${i + 1} ${said(st, m.anomaly.message)}`, `#${i + 1}`, 24));
  }
  // One-shot fault events and run sections: a dashed line, words on hover.
  for (const m of tl.marks) {
    if (m.a < w.a0 || m.a > w.a1) continue;
    out.push(vline(X, m.a, G.headH - 6, plotBottom, `class="mark${m.section ? ' sect' : ''}" data-tip="${escapeHtml(`${m.section ? '' : 'fault event: '}${m.label}\nat ${at(tl, m.a)} (line ${m.line})`)}"`));
  }
  out.push('</g>');

  const byLane = new Map<string, string[]>(lanes.map((l) => [l.id, []]));
  const push = (lane: string, s: string): void => { byLane.get(lane)?.push(s); };
  const H = (id: string): number => laneHeight(st.lanes.get(id)!, story);
  // Faults shade the lanes they target, behind everything else on the lane.
  for (const f of faults) for (const id of f.lanes) {
    const node = id.startsWith('node:');
    push(id, rect(X, f.a, f.open ? undefined : f.b, node ? 3 : 0, node ? G.laneH - 6 : H(id), `class="${node ? 'nfault' : 'fault'} k-${escapeHtml(f.kind)}" data-tip="${escapeHtml(f.tip)}"`));
  }
  // Their words after every band, so a later band on the same node never paints over them.
  for (const f of faults) for (const id of f.lanes) if (id.startsWith('node:')) push(id, note(X, f.a, [18], 2, f.words, 'nnote', f.tip));
  for (const s of st.stuck) if (inWin(s.a, s.b)) {
    const tip = `#${s.anomaly + 1} ${said(st, tl.anomalies[s.anomaly]!.anomaly.message)}`;
    push(s.lane, rect(X, s.a, s.b, 3, G.laneH - 6, `class="stuck an-${s.anomaly}" data-tip="${escapeHtml(tip)}"`));
    push(s.lane, note(X, s.a, [18], 0, s.words, 'snote', tip));
  }
  for (const hd of w.holds) {
    const lane = st.laneOf(hd.process);
    const what = hd.shared ? ' for reading (shared)' : hd.limit !== undefined ? ` (${hd.permits} of its ${hd.limit} permits)` : '';
    const tip = `${lane} (p${hd.process}) believes it holds "${hd.key}"${what}\nfrom ${at(tl, hd.a)} (${lineOf(hd.fromLine)}: acquire ok)\n${hd.open ? 'until the end of the history (never released)' : `until ${at(tl, hd.b)} (${lineOf(hd.toLine)}: release called)`}`;
    push(lane, rect(X, hd.a, hd.open ? undefined : hd.b, story ? G.holdY : 9, story ? G.holdH : 10, `class="hold${hd.shared ? ' shared' : ''}" data-key="${escapeHtml(hd.key)}" data-tip="${escapeHtml(tip)}"`));
  }
  if (story) {
    for (const l of st.leases) {
      if (!inWin(l.a, l.beliefEnd) || l.end <= l.a) continue;
      const sure = Math.max(l.a, l.unsure);
      const tip = `${l.lane}'s lease on "${l.key}": ${l.leaseMs} ms per grant${l.renewals ? `, renewed ${l.renewals}×` : ''}\nheld from ${at(tl, l.a)} (acquire returned); the server keeps it at least until ${at(tl, sure)} and may drop it from then on, at the latest ${at(tl, l.end)}${l.ranOut ? ` (${(l.beliefEnd - l.end).toFixed(0)} ms before ${l.lane} left its critical section)` : ''}`;
      if (sure > l.a) push(l.lane, rect(X, l.a, sure, G.leaseY, G.leaseH, `class="lease" data-key="${escapeHtml(l.key)}" data-tip="${escapeHtml(tip)}"`));
      // The server granted it somewhere between the acquire's call and its return: the lease ends somewhere in here.
      if (l.end > sure) {
        const utip = `the lease ends in here: granted between the acquire's call and its return\n${l.lane}'s ${l.leaseMs} ms lease on "${l.key}" may end from ${at(tl, l.unsure)} (call + lease${l.unsure < l.a ? ', before the acquire returned' : ''}); it ends by ${at(tl, l.end)} at the latest`;
        push(l.lane, rect(X, sure, l.end, G.leaseY, G.leaseH, `class="lease-unsure" data-key="${escapeHtml(l.key)}" data-tip="${escapeHtml(utip)}"`));
      }
    }
    for (const g of st.gaps) {
      if (!inWin(g.a, g.b)) continue;
      const tip = `${g.lane} still believes it holds "${g.key}" but its lease ran out: ${(g.b - g.a).toFixed(0)} ms past the lease, from ${at(tl, g.a)} to ${at(tl, g.b)}${g.intruders.length ? `\nmeanwhile ${g.intruders.map((i) => `${i.lane} acquired at ${at(tl, i.a)}`).join(', ')}` : ''}`;
      push(g.lane, rect(X, g.a, g.b, G.holdY - 2, G.leaseY + G.leaseH - G.holdY + 4, `class="gap" data-key="${escapeHtml(g.key)}" data-tip="${escapeHtml(tip)}"`));
    }
  }
  const rows = (lane: string): readonly number[] => (lane === 'resource' ? [16, 32] : G.noteRows);
  for (const x of st.notes) {
    if (x.a < w.a0 || x.a > w.a1 || !byLane.has(x.lane) || (!story && x.lane !== 'resource')) continue;
    const res = x.lane === 'resource';
    const cls = `n-${x.kind}${x.anomaly === undefined ? '' : ` an-${x.anomaly}`}`;
    if (x.kind !== 'token' && x.kind !== 'write') push(x.lane, vline(X, x.a, res ? 2 : G.barY - 2, res ? 36 : rows(x.lane)[0]! - 9, `class="tick-${x.kind}${x.anomaly === undefined ? '' : ` an-${x.anomaly}`}" data-tip="${escapeHtml(x.tip)}"`));
    push(x.lane, note(X, x.a, rows(x.lane), x.pri, x.text, cls, x.tip));
  }
  for (const i of w.anomalies) {
    const m = tl.anomalies[i]!;
    if (!Number.isFinite(m.a) || m.anomaly.type === 'liveness') continue;
    const tip = `#${i + 1} ${said(st, m.anomaly.message)}\n${anomalyWhere(tl, st, m)}`;
    // Two holders: a band over the overlap on both lanes. A window of ops: outlined, faint band.
    const solid = OVERLAPS.has(m.anomaly.type) || m.opIds.size === 0;
    if (m.anomaly.type === 'stale-release' && story) continue; // marked at the unlock itself
    const procs = solid ? m.anomaly.processes : [...new Set(w.ops.filter((o) => m.opIds.has(o.id)).map((o) => o.process))];
    const cls = solid ? 'dh' : 'nlw';
    for (const lane of new Set(procs.map((p) => st.laneOf(p)))) {
      push(lane, rect(X, m.a, m.b, 1, story ? G.leaseY + G.leaseH + 1 : G.laneH - 2, `class="an ${cls} an-${i}" data-key="${escapeHtml(m.anomaly.key)}" data-tip="${escapeHtml(tip)}"`));
    }
  }
  const anomalousOps = new Map<number, number>();
  const culpritLines = new Set<number>();
  for (const i of w.anomalies) {
    for (const id of tl.anomalies[i]!.opIds) anomalousOps.set(id, i);
    if (tl.anomalies[i]!.anomaly.type === 'nonlinearizable') for (const l of tl.anomalies[i]!.anomaly.lines) culpritLines.add(l);
  }
  const barY = story ? G.barY : 6;
  const barH = story ? G.barH : 16;
  for (const op of w.ops) {
    const a = opStart(op, tl.pos);
    const b = opEnd(op, tl.pos);
    const bad = anomalousOps.get(op.id);
    const culprit = bad !== undefined && (culpritLines.has(op.invokeLine) || culpritLines.has(op.completeLine));
    const cls = `op ${op.outcome}${bad === undefined ? '' : ` bad an-${bad}`}${culprit ? ' culprit' : ''}`;
    const lane = st.laneOf(op.process);
    push(lane, rect(X, a, op.outcome === 'info' ? undefined : b, barY, barH, `class="${cls}" data-key="${escapeHtml(op.key)}" data-tip="${escapeHtml(opTip(op, tl, st))}"`));
    push(lane, `<text x="${(X(a) + 2).toFixed(1)}" y="${barY + barH - 3}" data-a="${n(a)}" data-key="${escapeHtml(op.key)}" class="lbl">${escapeHtml(opLabel(op, multiKey))}</text>`);
  }
  out.push('<g class="lanes">');
  for (const l of lanes) {
    const ly = laneY.get(l.id)!;
    const detail = l.detail.length > 14 ? `${l.detail.slice(0, 13)}…` : l.detail;
    const ltip = l.kind === 'client' ? `client ${l.label}${l.processes.length ? `: process${l.processes.length > 1 ? 'es' : ''} ${l.processes.join(', ')} in the history` : ''}` : l.kind === 'node' ? `server node ${l.label}: the faults that target it` : l.kind === 'key' ? `lock "${l.label}": when nobody could acquire it` : 'the protected resource (a counter each critical section increments)';
    out.push(`<g class="lane ${l.kind}" data-lane="${escapeHtml(l.id)}"${l.processes.length ? ` data-p="${l.processes.join(' ')}"` : ''} transform="translate(0,${ly})"><rect class="stripe fullw" x="0" y="0" width="${G.width}" height="${laneHeight(l, story)}"/>`
      + `<text class="pl" x="6" y="${story && l.kind === 'client' ? 16 : 18}" data-tip="${escapeHtml(ltip)}">${escapeHtml(l.label.length > 12 ? `${l.label.slice(0, 11)}…` : l.label)}</text>`
      + (detail && (story || l.kind !== 'client') ? `<text class="pd" x="6" y="29" data-tip="${escapeHtml(ltip)}">${escapeHtml(detail)}</text>` : '')
      + `<g clip-path="url(#clip${w.id})">${byLane.get(l.id)!.join('')}</g></g>`);
  }
  out.push('</g>');
  out.push(`<rect class="sel" x="0" y="${top}" width="0" height="${plotBottom - top}"/>`);
  out.push('</svg>');
  return out.join('');
}

/** A legend swatch: a box or a line drawn with the mark's class, then its words. */
const box = (cls: string, label: string): string => `<span class="lg"><svg width="34" height="14"><rect class="${cls}" x="1" y="1" width="32" height="12"/></svg>${label}</span>`;
const line = (cls: string, label: string): string => `<span class="lg"><svg width="14" height="14"><line class="${cls}" x1="7" x2="7" y1="0" y2="14"/></svg>${label}</span>`;

/** The legend in order (in the page's language): a swatch, shown when the page holds any of its marks' texts (none listed: always). */
const legendItems = (lang: Lang): readonly (readonly [drawnIf: readonly string[], swatch: string])[] => [
  [[], box('op ok', t(lang, 'tl.lg.ok'))], [[], box('op fail', t(lang, 'tl.lg.fail'))], [[], box('op info', t(lang, 'tl.lg.info'))],
  [[], box('hold', t(lang, 'tl.lg.hold'))],
  [['class="hold shared'], box('hold shared', t(lang, 'tl.lg.shared'))],
  [['class="lease"'], box('lease', t(lang, 'tl.lg.lease'))],
  [['class="lease-unsure"'], box('lease-unsure', t(lang, 'tl.lg.leaseUnsure'))],
  [['class="gap"'], box('gap', t(lang, 'tl.lg.gap'))],
  [['class="tick-lease-end'], line('tick-lease-end', t(lang, 'tl.lg.leaseEnd'))],
  [['class="tick-gap-acquire'], line('tick-gap-acquire', t(lang, 'tl.lg.gapAcquire'))],
  [['class="tick-stale-unlock'], line('tick-stale-unlock', t(lang, 'tl.lg.staleUnlock'))],
  [['class="tick-crash'], line('tick-crash', t(lang, 'tl.lg.crash'))],
  [['class="note n-token'], `<span class="lg"><b class="tokl">${t(lang, 'tl.lg.tokenN')}</b>${t(lang, 'tl.lg.token')}</span>`],
  [['class="frow'], box('frow', t(lang, 'tl.lg.frow'))],
  [['class="fault '], box('fault', t(lang, 'tl.lg.fault'))],
  [['class="nfault'], box('nfault', t(lang, 'tl.lg.nfault'))],
  [['class="fstep"'], line('fstep', t(lang, 'tl.lg.fstep'))],
  [['class="mark"'], line('mark', t(lang, 'tl.lg.mark'))],
  [['class="an dh'], box('an dh', t(lang, 'tl.lg.doubleHolder'))],
  [['class="an nlw'], box('op ok bad', t(lang, 'tl.lg.noOrder'))],
  [['class="stuck'], box('stuck', t(lang, 'tl.lg.stuck'))],
  [['class="tick-write', 'n-write'], `<span class="lg">${t(lang, 'tl.lg.writes')}</span>`],
  [['class="tick-stale-write'], line('tick-stale-write', t(lang, 'tl.lg.staleWrite'))],
  [['class="tick-rejected'], line('tick-rejected', t(lang, 'tl.lg.rejected'))],
];

/** Swatches for the marks this page uses (every mark drawn has its entry). */
function legend(html: string, lang: Lang): string {
  return legendItems(lang).filter(([drawnIf]) => drawnIf.length === 0 || drawnIf.some((t) => html.includes(t))).map(([, swatch]) => swatch).join('');
}

/** For a cut history: the whole run as a strip of op density, anomalies in red, the drawn windows boxed (click to go). */
function overviewSvg(h: ParsedHistory, tl: Timeline, lang: Lang): string {
  const bins = 200;
  const span = Math.max(tl.end, 1e-9);
  const counts = new Array<number>(bins).fill(0);
  for (const op of h.ops) counts[Math.min(bins - 1, Math.max(0, Math.floor((opStart(op, tl.pos) / span) * bins)))]!++;
  const max = Math.max(1, ...counts);
  const W = 1000;
  const H = 36;
  const bx = (a: number): number => (a / span) * W;
  const bars = counts.map((c, i) => (c ? `<rect x="${((i * W) / bins).toFixed(1)}" y="${(H - (c / max) * (H - 4)).toFixed(1)}" width="${(W / bins).toFixed(1)}" height="${((c / max) * (H - 4)).toFixed(1)}" class="ovbar"/>` : '')).join('');
  const wins = tl.windows.map((w) => `<a href="#w${w.id}"><rect x="${bx(w.a0).toFixed(1)}" y="0" width="${Math.max(3, bx(w.a1) - bx(w.a0)).toFixed(1)}" height="${H}" class="ovwin"><title>${escapeHtml(t(lang, 'tl.ovWindow', { n: w.id + 1 }))}: ${escapeHtml(at(tl, w.a0))} – ${escapeHtml(at(tl, w.a1))}</title></rect></a>`).join('');
  const anoms = tl.anomalies.filter((m) => Number.isFinite(m.a)).slice(0, 2000).map((m) => `<line x1="${bx(m.a).toFixed(1)}" x2="${bx(m.a).toFixed(1)}" y1="0" y2="${H}" class="ovan"/>`).join('');
  return `<section class="overview"><h3>${escapeHtml(t(lang, 'tl.overview', { ops: fmtInt(tl.totalOps), from: at(tl, 0), to: at(tl, tl.end) }))}</h3>`
    + `<svg class="ov" viewBox="0 0 ${W} ${H}" preserveAspectRatio="none" width="100%" height="${H}">${bars}${anoms}${wins}</svg></section>`;
}

function verdictWord(v: CheckResult['valid'], lang: Lang): { word: string; cls: string } {
  return v === true ? { word: t(lang, 'tl.VALID'), cls: 'ok' } : v === false ? { word: t(lang, 'tl.INVALID'), cls: 'bad' } : { word: t(lang, 'tl.UNKNOWN'), cls: 'unk' };
}

// The reproduction rate of a counterexample's page is measured later than the page is written
// (`lockpick run --replay DIR --runs N --measure`): the page keeps a marked place for it, filled
// in or replaced when a measure is done; a page written before the place existed gets it after its header.
const REPRO_START = '<!--lockpick:reproduction-->';
const REPRO_END = '<!--/lockpick:reproduction-->';

/** The marked place, with the rate in words when there is one. */
function reproductionSlot(text: string | undefined, lang: Lang): string {
  return `${REPRO_START}${text ? `<p class="reproduction"><b>${t(lang, 'tl.replayed')}</b> ${escapeHtml(text)}</p>` : ''}${REPRO_END}`;
}

/** A timeline page with its reproduction place holding `text` (replacing what it held). */
export function withReproduction(html: string, text: string): string {
  const lang: Lang = html.includes('<html lang="zh-CN">') ? 'zh-CN' : 'en';   // the page's own language
  const a = html.indexOf(REPRO_START);
  const b = a < 0 ? -1 : html.indexOf(REPRO_END, a);
  if (a >= 0 && b >= 0) return html.slice(0, a) + reproductionSlot(text, lang) + html.slice(b + REPRO_END.length);
  const h = html.indexOf('</header>');
  if (h < 0) return html;
  const at = h + '</header>'.length;
  return html.slice(0, at) + reproductionSlot(text, lang) + html.slice(at);
}

/**
 * The timeline page of a history and its check result. `meta` is shown as the run's description;
 * `extras` adds what the history file does not carry (client names, the resource's log).
 * A library call: `lockpick report`, the runner's counterexample and `lockpick demo` use it.
 */
export function renderTimelineHtml(h: ParsedHistory, r: CheckResult, meta?: Record<string, unknown>, extras?: TimelineExtras & { outcomes?: Outcomes; reproduction?: string }): string {
  const lang = extras?.lang ?? 'en';
  const tl = buildTimeline(h, r);
  const st = buildStory(h, tl, extras);
  const v = verdictWord(r.valid, lang);
  const title = `lockpick: ${v.word} — ${h.source}`;
  const clientLanes = [...st.lanes.values()].filter((l) => l.kind === 'client').length;
  const facts = [t(lang, 'tl.model', { model: escapeHtml(r.model) }), t(lang, 'tl.ops', { n: fmtInt(tl.totalOps) }), t(lang, tl.keys.length === 1 ? 'tl.key1' : 'tl.keys', { n: fmtInt(tl.keys.length) }),
    clientLanes !== tl.processes ? t(lang, 'tl.clients', { clients: fmtInt(clientLanes), processes: fmtInt(tl.processes) }) : t(lang, 'tl.processes', { processes: fmtInt(tl.processes) }),
    t(lang, 'tl.faultEvents', { n: fmtInt(h.nemesis.filter((n) => !RUNNER_RECORDS.has(n.f) && n.f !== 'client-crash').length) }), t(lang, 'tl.checked', { ms: fmtInt(Math.round(r.elapsed_ms)) }),
    t(lang, tl.mode === 'time' ? 'tl.axisTime' : 'tl.axisOrder')];
  const metaEntries = meta ? Object.entries(meta).filter(([, x]) => x !== undefined && x !== null) : [];
  const metaRows = metaEntries.map(([k, x]) => `<tr><th>${escapeHtml(k)}</th><td>${escapeHtml(typeof x === 'string' ? x : JSON.stringify(x) ?? String(x))}</td></tr>`).join('');
  // The run's description folds away; a one-line summary of what matters most stays visible.
  const metaLine = metaEntries.filter(([k]) => ['run', 'lock', 'faults', 'seed', 'path'].includes(k)).map(([k, x]) => `${escapeHtml(k)} <code>${escapeHtml(shortValue(x, 60))}</code>`).join(' · ');

  const listed = tl.anomalies.slice(0, MAX_LISTED).map((m) => {
    const drawn = m.window >= 0 && Number.isFinite(m.a);
    const body = `<span class="num">#${m.index + 1}</span> ${typeTag(lang, m.anomaly.type)}${escapeHtml(said(st, m.anomaly.message))}<div class="where">${escapeHtml(anomalyWhere(tl, st, m))}${drawn ? '' : t(lang, 'tl.notDrawn')}</div>`;
    return drawn ? `<li id="l${m.index + 1}"><a href="#a${m.index + 1}" data-anom="${m.index}" data-win="w${m.window}" data-a="${n(m.a)}" data-b="${n(m.b)}">${body}</a></li>` : `<li>${body}</li>`;
  }).join('');
  const more = tl.anomalies.length > MAX_LISTED ? `<p class="more">${t(lang, 'tl.more', { n: fmtInt(tl.anomalies.length - MAX_LISTED) })}</p>` : '';
  const anomSection = tl.anomalies.length
    ? `<section class="anoms"><h2>${t(lang, tl.anomalies.length === 1 ? 'tl.anomaly1' : 'tl.anomalies', { n: fmtInt(tl.anomalies.length) })}</h2><ol>${listed}</ol>${more}</section>`
    : `<section class="anoms none"><h2>${r.valid === true ? t(lang, 'tl.noAnomalies') : r.reason ? t(lang, 'tl.noneListedWhy', { reason: escapeHtml(r.reason) }) : t(lang, 'tl.noneListed')}</h2></section>`;
  const resource = st.resourceNote ? `<p class="resnote">${escapeHtml(st.resourceNote)}${extras?.resource?.anomalies.length ? `: ${extras.resource.anomalies.slice(0, 5).map((a) => escapeHtml(a.message)).join('; ')}` : ''}</p>` : '';
  // Every operation by outcome and the errors by message (the runner's, from its events), else the counts the history's ops give.
  const outcomeLines = describeOutcomes(extras?.outcomes ?? opOutcomes(h.ops));
  const outcomes = outcomeLines.length ? `<p class="outcomes">${outcomeLines.map(escapeHtml).join('<br>')}</p>` : '';
  const keyDetail = tl.keys.length > 1 ? Object.entries(r.keys_detail).filter(([, d]) => d.valid !== true) : [];
  const keysNote = keyDetail.length ? `<p class="keys">${t(lang, 'tl.keysNotValid')}${keyDetail.slice(0, 20).map(([k, d]) => `<code>${escapeHtml(k || '(default)')}</code> ${t(lang, d.valid === false ? 'tl.invalid' : 'tl.unknown')}${d.reason ? ` (${escapeHtml(d.reason)})` : ''}`).join(', ')}${keyDetail.length > 20 ? ', …' : ''}</p>` : '';
  const drawnOps = tl.windows.reduce((s, w) => s + w.ops.length, 0);
  const cutNote = tl.cut
    ? `<p class="cut">${t(lang, 'tl.cut', { total: fmtInt(tl.totalOps), windows: t(lang, tl.windows.length === 1 ? 'tl.window1' : 'tl.windows', { n: tl.windows.length }), ops: fmtInt(drawnOps), where: t(lang, tl.anomalies.length ? 'tl.cutAround' : 'tl.cutStart'), source: escapeHtml(h.source) })}</p>${overviewSvg(h, tl, lang)}`
    : '';
  const keySelect = tl.keys.length > 1
    ? `<label>${t(lang, 'tl.keyLabel')}<select id="keyf"><option value="">${t(lang, 'tl.allKeys', { n: fmtInt(tl.keys.length) })}</option>${tl.keys.slice(0, 500).map((k) => `<option value="${escapeHtml(k)}">${escapeHtml(k || '(empty)')}</option>`).join('')}</select></label>`
    : '';
  const windows = tl.windows.map((w) => {
    const heading = tl.cut
      ? t(lang, 'tl.windowHead', { n: w.id + 1, first: w.firstOp, last: w.lastOp, from: at(tl, w.a0), to: at(tl, w.a1) })
        + (w.anomalies.length ? t(lang, w.anomalies.length === 1 ? 'tl.windowAnomaly1' : 'tl.windowAnomalies', { list: w.anomalies.map((i) => `#${i + 1}`).join(', ') }) : '')
      : t(lang, 'tl.wholeRun', { from: at(tl, w.a0), to: at(tl, tl.end) });
    const zoom = t(lang, 'tl.zoom');
    return `<section class="win" id="w${w.id}"><h3><a class="self" href="#w${w.id}">${escapeHtml(heading)}</a></h3>${zoom}<div class="scroll">${windowSvg(tl, st, w, lang)}</div></section>`;
  }).join('');

  return `<!doctype html>
<html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title><style>${timelineCss()}</style></head>
<body>
<header><h1><span class="verdict ${v.cls}">${v.word}</span> <span class="src">${escapeHtml(h.source)}</span></h1>
<p class="facts">${facts.join(' · ')}</p>${metaRows ? `<details class="meta"><summary>${metaLine || t(lang, 'tl.about')}</summary><table class="meta">${metaRows}</table></details>` : ''}</header>${reproductionSlot(extras?.reproduction, lang)}
${anomSection}${resource}${outcomes}${keysNote}${cutNote}
<div class="controls">${keySelect}<span class="legend">${legend(windows, lang)}</span></div>
<svg width="0" height="0" style="position:absolute"><defs>
<linearGradient id="g-info"><stop offset="0" stop-color="#ffb74d" stop-opacity="0.95"/><stop offset="1" stop-color="#ffb74d" stop-opacity="0.08"/></linearGradient>
<pattern id="p-fault" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="8" height="8" fill="#ede7f6"/><rect width="3" height="8" fill="#d1c4e9"/></pattern>
<pattern id="p-unsure" width="5" height="5" patternUnits="userSpaceOnUse" patternTransform="rotate(-45)"><rect width="5" height="5" fill="#e8f5e9"/><rect width="2" height="5" fill="#81c784"/></pattern>
<pattern id="p-gap" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#ffebee"/><rect width="2.5" height="6" fill="#ef9a9a"/></pattern>
</defs></svg>
${windows}
<div id="tip"></div>
<script>${timelineScript()}</script>
</body></html>
`;
}
