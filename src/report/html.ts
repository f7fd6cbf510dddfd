// One self-contained timeline.html (inline CSS, SVG and script; no external
// URL): a lane per process, each op a bar from call to return, lock holds,
// fault periods as shaded bands, anomalies in red with a plain-words list at
// the top that zooms to each. Big histories are cut to windows around the
// anomalies (timeline-model.ts) so the file stays small.
import type { Op, ParsedHistory } from '../history/types.ts';
import type { CheckResult } from '../../checkers/types.ts';
import { buildTimeline, opStart, opEnd, shortValue, type Timeline, type Window, type AnomalyMark } from './timeline-model.ts';
import { G, niceTicks, tickLabel } from './timeline-geometry.ts';
import { timelineScript } from './timeline-script.ts';
import { timelineCss } from './timeline-style.ts';

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
function lineOf(l: number): string { return Number.isFinite(l) ? `line ${l}` : 'end of history'; }

function opTip(op: Op, tl: Timeline): string {
  const a = opStart(op, tl.pos);
  const b = opEnd(op, tl.pos);
  const head = `p${op.process} ${op.f}${op.key ? ` "${op.key}"` : ''} → ${op.outcome}${op.outcome === 'info' ? ' (unknown: may take effect any time after the call)' : op.outcome === 'fail' ? ' (certainly did not happen)' : ''}`;
  const vals = [
    op.invokeValue !== undefined ? `call value: ${shortValue(op.invokeValue, 80)}` : '',
    op.value !== undefined ? `return value: ${shortValue(op.value, 80)}` : '',
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

/** Which fault periods an axis range overlaps, in words. */
function faultsDuring(tl: Timeline, a: number, b: number): string[] {
  return [...new Set(tl.bands.filter((f) => f.a <= b && f.b >= a).map((f) => f.kind))];
}

/** The latest fault that started before x (a one-shot event or a period's start). */
function lastFaultBefore(tl: Timeline, x: number): { kind: string; label: string; a: number } | undefined {
  let best: { kind: string; label: string; a: number } | undefined;
  for (const f of [...tl.bands, ...tl.marks.filter((m) => !m.section).map((m) => ({ kind: m.label, label: m.label, a: m.a }))]) if (f.a <= x && (!best || f.a > best.a)) best = f;
  return best;
}

function anomalyWhere(tl: Timeline, m: AnomalyMark): string {
  const an = m.anomaly;
  const bits: string[] = [an.type];
  if (an.key) bits.push(`key "${an.key}"`);
  if (an.processes.length) bits.push(`process${an.processes.length > 1 ? 'es' : ''} ${an.processes.join(', ')}`);
  if (an.lines.length) bits.push(an.lines.length > 1 ? `lines ${Math.min(...an.lines)}–${Math.max(...an.lines)}` : `line ${an.lines[0]}`);
  if (Number.isFinite(m.a)) bits.push(m.b > m.a ? `${at(tl, m.a)} – ${at(tl, m.b)}` : at(tl, m.a));
  if (Number.isFinite(m.a)) {
    const f = faultsDuring(tl, m.a, m.b);
    if (f.length) bits.push(`during ${f.join(', ')}`);
    const last = lastFaultBefore(tl, m.a);
    if (last && !f.includes(last.kind)) bits.push(`after ${last.label} at ${at(tl, last.a)}`);
  }
  return bits.join(' · ');
}

function ticksSvg(tl: Timeline, w: Window, X: (a: number) => number, h: number): string {
  const { ticks, step } = niceTicks(w.a0, w.a1, 10);
  return ticks.map((v) => {
    const x = X(v).toFixed(1);
    return `<line x1="${x}" x2="${x}" y1="${G.top - 6}" y2="${h}" class="tick"/><text x="${x}" y="${G.top - 10}" class="tk">${tickLabel(v, step, tl.mode)}</text>`;
  }).join('');
}

/** A rect placed on the axis; data-a/data-b let the page script move it when zooming. */
function rect(X: (a: number) => number, a: number, b: number | undefined, y: number, h: number, attrs: string): string {
  const end = G.labelW + G.plotW;
  const x0 = Math.max(G.labelW - 2, X(a));
  const x1 = Math.max(x0 + G.minW, b === undefined ? end + 2 : Math.min(end + 2, X(b)));
  return `<rect x="${x0.toFixed(1)}" y="${y}" width="${(x1 - x0).toFixed(1)}" height="${h}" data-a="${n(a)}"${b === undefined ? '' : ` data-b="${n(b)}"`} ${attrs}/>`;
}

function windowSvg(tl: Timeline, w: Window): string {
  const multiKey = tl.keys.length > 1;
  const X = (a: number): number => G.labelW + ((a - w.a0) * G.plotW) / (w.a1 - w.a0);
  const laneY = new Map(w.processes.map((p, i) => [p, i]));
  const height = G.top + w.processes.length * G.laneH + 8;
  const plotH = w.processes.length * G.laneH;
  const end = G.labelW + G.plotW;
  const out: string[] = [];
  out.push(`<svg class="tl" width="${G.width}" height="${height}" viewBox="0 0 ${G.width} ${height}" data-mode="${tl.mode}" data-a0="${n(w.a0)}" data-a1="${n(w.a1)}" data-v0="${n(w.a0)}" data-v1="${n(w.a1)}">`);
  out.push(`<clipPath id="clip${w.id}"><rect x="${G.labelW}" y="0" width="${G.plotW}" height="${height}"/></clipPath>`);
  out.push(`<g clip-path="url(#clip${w.id})">`);
  // Fault periods: full height, behind everything, labelled in the header row.
  const heads: { x: number; text: string; attrs: string }[] = [];
  for (const f of tl.bands) {
    if (f.b < w.a0 || f.a > w.a1) continue;
    const tip = `fault: ${f.label}${f.value === undefined ? '' : `\nvalue: ${shortValue(f.value, 200)}`}\nfrom ${at(tl, f.a)} (${lineOf(f.lines[0]!)})\n${f.open ? 'never healed in this history' : `to ${at(tl, f.b)} (${lineOf(f.lines[f.lines.length - 1]!)})`}`;
    out.push(rect(X, f.a, f.b, G.top, plotH, `class="fault full" data-tip="${escapeHtml(tip)}"`));
    out.push(rect(X, f.a, f.b, G.top - 38, 15, `class="fstrip" data-tip="${escapeHtml(tip)}"`));
    heads.push({ x: Math.max(G.labelW + 2, X(f.a) + 2), text: f.label, attrs: `data-a="${n(f.a)}" data-b="${n(f.b)}" class="flabel"` });
  }
  for (const m of tl.marks) {
    if (m.a < w.a0 || m.a > w.a1) continue;
    const x = X(m.a).toFixed(1);
    out.push(`<line x1="${x}" x2="${x}" y1="${G.top - 38}" y2="${G.top + plotH}" data-a="${n(m.a)}" class="mark${m.section ? ' sect' : ''}" data-tip="${escapeHtml(`${m.section ? '' : 'fault event: '}${m.label}\nat ${at(tl, m.a)} (line ${m.line})`)}"/>`);
    heads.push({ x: X(m.a) + 2, text: m.label, attrs: `data-a="${n(m.a)}" class="flabel${m.section ? ' sect' : ''}"` });
  }
  // Header labels that would run into the next one are hidden (hover the strip for them).
  heads.sort((p, q) => p.x - q.x).forEach((hd, i) => {
    const next = heads[i + 1]?.x ?? end + 400;
    const hidden = hd.x + hd.text.length * G.charW > next - 4;
    out.push(`<text x="${hd.x.toFixed(1)}" y="${G.top - 27}" ${hd.attrs}${hidden ? ' style="visibility:hidden"' : ''}>${escapeHtml(hd.text)}</text>`);
  });
  // Anomaly tags in the top row, numbered as in the list.
  for (const i of w.anomalies) {
    const m = tl.anomalies[i]!;
    if (!Number.isFinite(m.a)) continue;
    // A guide across all lanes: an overlap of a fraction of a millisecond is still seen at full zoom-out.
    out.push(`<line x1="${X(m.a).toFixed(1)}" x2="${X(m.a).toFixed(1)}" y1="18" y2="${G.top + plotH}" data-a="${n(m.a)}" class="aguide an-${i}"/>`);
    const tag = w.anomalies.length === 1 ? `#${i + 1} ${m.anomaly.type}` : `#${i + 1}`;
    out.push(`<text x="${Math.max(G.labelW + 2, X(m.a) + 2).toFixed(1)}" y="14" data-a="${n(m.a)}" data-b="${n(m.b)}" class="atag an-${i}" data-tip="${escapeHtml(`#${i + 1} ${m.anomaly.message}`)}">${escapeHtml(tag)}</text>`);
  }
  out.push('</g>');
  out.push(`<g class="axis">${ticksSvg(tl, w, X, G.top + plotH)}</g>`);

  // Lanes: stripe, label, holds, anomaly bands, op bars, op labels.
  const byLane = new Map<number, string[]>(w.processes.map((p) => [p, []]));
  const labelsByLane = new Map<number, { a: number; text: string; key: string }[]>();
  for (const hd of w.holds) {
    const tip = `p${hd.process} holds "${hd.key}"\nfrom ${at(tl, hd.a)} (${lineOf(hd.fromLine)}: acquire ok)\n${hd.open ? 'until the end of the history (never released)' : `until ${at(tl, hd.b)} (${lineOf(hd.toLine)}: release called)`}`;
    byLane.get(hd.process)!.push(rect(X, hd.a, hd.open ? undefined : hd.b, G.holdY, G.holdH, `class="hold" data-key="${escapeHtml(hd.key)}" data-tip="${escapeHtml(tip)}"`));
  }
  for (const i of w.anomalies) {
    const m = tl.anomalies[i]!;
    if (!Number.isFinite(m.a)) continue;
    const tip = `#${i + 1} ${m.anomaly.message}\n${anomalyWhere(tl, m)}`;
    // Two holders: a solid band over the overlap on both lanes. A window of ops: outlined, faint band.
    const solid = m.anomaly.type === 'double-holder' || m.opIds.size === 0;
    const procs = solid ? m.anomaly.processes : [...new Set(w.ops.filter((o) => m.opIds.has(o.id)).map((o) => o.process))];
    const cls = solid ? 'dh' : 'nlw';
    for (const p of procs) {
      byLane.get(p)?.push(rect(X, m.a, m.b, 1, G.laneH - 2, `class="an ${cls} an-${i}" data-key="${escapeHtml(m.anomaly.key)}" data-tip="${escapeHtml(tip)}"`));
    }
  }
  const anomalousOps = new Map<number, number>();
  const culpritLines = new Set<number>();
  for (const i of w.anomalies) {
    for (const id of tl.anomalies[i]!.opIds) anomalousOps.set(id, i);
    if (tl.anomalies[i]!.anomaly.type === 'nonlinearizable') for (const l of tl.anomalies[i]!.anomaly.lines) culpritLines.add(l);
  }
  for (const op of w.ops) {
    const a = opStart(op, tl.pos);
    const b = opEnd(op, tl.pos);
    const bad = anomalousOps.get(op.id);
    const culprit = bad !== undefined && (culpritLines.has(op.invokeLine) || culpritLines.has(op.completeLine));
    const cls = `op ${op.outcome}${bad === undefined ? '' : ` bad an-${bad}`}${culprit ? ' culprit' : ''}`;
    byLane.get(op.process)!.push(rect(X, a, op.outcome === 'info' ? undefined : b, G.barY, G.barH, `class="${cls}" data-key="${escapeHtml(op.key)}" data-tip="${escapeHtml(opTip(op, tl))}"`));
    if (!labelsByLane.has(op.process)) labelsByLane.set(op.process, []);
    labelsByLane.get(op.process)!.push({ a, text: opLabel(op, multiKey), key: op.key });
  }
  for (const [p, ls] of labelsByLane) {
    ls.sort((x, y) => x.a - y.a);
    ls.forEach((l, i) => {
      const x = X(l.a);
      const nx = i + 1 < ls.length ? X(ls[i + 1]!.a) : end + 400;
      const hidden = x < G.labelW - 1 || x > end || x + l.text.length * G.charW > nx - 3;
      byLane.get(p)!.push(`<text x="${(x + 2).toFixed(1)}" y="${G.barY + 12}" data-a="${n(l.a)}" data-key="${escapeHtml(l.key)}" class="lbl"${hidden ? ' style="visibility:hidden"' : ''}>${escapeHtml(l.text)}</text>`);
    });
  }
  w.processes.forEach((p) => {
    const y = G.top + laneY.get(p)! * G.laneH;
    out.push(`<g class="lane" data-p="${p}" transform="translate(0,${y})"><rect class="stripe" x="0" y="0" width="${G.width}" height="${G.laneH}"/><text class="pl" x="6" y="${G.barY + 12}">p${p}</text><g clip-path="url(#clip${w.id})">${byLane.get(p)!.join('')}</g></g>`);
  });
  out.push(`<rect class="sel" x="0" y="${G.top}" width="0" height="${plotH}"/>`);
  out.push('</svg>');
  return out.join('');
}

function legend(): string {
  const sw = (cls: string, label: string): string => `<span class="lg"><svg width="34" height="14"><rect class="${cls}" x="1" y="1" width="32" height="12"/></svg>${label}</span>`;
  return [sw('op ok', 'ok'), sw('op fail', 'fail (did not happen)'), sw('op info', 'info (unknown, open-ended)'), sw('hold', 'holding the lock'),
    sw('fault', 'fault period'), sw('an dh', 'anomaly (e.g. two holders)'), sw('op ok bad', 'op in a non-linearizable window')].join('');
}

function verdictWord(v: CheckResult['valid']): { word: string; cls: string } {
  return v === true ? { word: 'VALID', cls: 'ok' } : v === false ? { word: 'INVALID', cls: 'bad' } : { word: 'UNKNOWN', cls: 'unk' };
}

export function renderTimelineHtml(h: ParsedHistory, r: CheckResult, meta?: Record<string, unknown>): string {
  const tl = buildTimeline(h, r);
  const v = verdictWord(r.valid);
  const title = `lockpick: ${v.word} — ${h.source}`;
  const facts = [`model <b>${escapeHtml(r.model)}</b>`, `${fmtInt(tl.totalOps)} ops`, `${fmtInt(tl.keys.length)} key${tl.keys.length === 1 ? '' : 's'}`,
    `${fmtInt(tl.processes)} processes`, `${fmtInt(h.nemesis.length)} fault events`, `checked in ${fmtInt(Math.round(r.elapsed_ms))} ms`,
    tl.mode === 'time' ? 'time axis: ms from run start' : 'axis: event order (the history has no times)'];
  const metaEntries = meta ? Object.entries(meta).filter(([, x]) => x !== undefined && x !== null) : [];
  const metaRows = metaEntries.map(([k, x]) => `<tr><th>${escapeHtml(k)}</th><td>${escapeHtml(shortValue(x, 160))}</td></tr>`).join('');
  // The run's description folds away; a one-line summary of what matters most stays visible.
  const metaLine = metaEntries.filter(([k]) => ['run', 'lock', 'faults', 'seed', 'path'].includes(k)).map(([k, x]) => `${escapeHtml(k)} <code>${escapeHtml(shortValue(x, 60))}</code>`).join(' · ');

  const listed = tl.anomalies.slice(0, MAX_LISTED).map((m) => {
    const drawn = m.window >= 0 && Number.isFinite(m.a);
    const body = `<span class="num">#${m.index + 1}</span> ${escapeHtml(m.anomaly.message)}<div class="where">${escapeHtml(anomalyWhere(tl, m))}${drawn ? '' : ' · not drawn (beyond the windows kept)'}</div>`;
    return drawn ? `<li><a href="#w${m.window}" data-anom="${m.index}" data-win="w${m.window}" data-a="${n(m.a)}" data-b="${n(m.b)}">${body}</a></li>` : `<li>${body}</li>`;
  }).join('');
  const more = tl.anomalies.length > MAX_LISTED ? `<p class="more">… and ${fmtInt(tl.anomalies.length - MAX_LISTED)} more anomalies (all are in results.json / <code>--format json</code>).</p>` : '';
  const anomSection = tl.anomalies.length
    ? `<section class="anoms"><h2>${fmtInt(tl.anomalies.length)} anomal${tl.anomalies.length === 1 ? 'y' : 'ies'} (click one to zoom to it)</h2><ol>${listed}</ol>${more}</section>`
    : `<section class="anoms none"><h2>${r.valid === true ? 'No anomalies: the history is consistent with the model.' : `No anomalies listed${r.reason ? `: ${escapeHtml(r.reason)}` : ''}.`}</h2></section>`;
  const keyDetail = tl.keys.length > 1 ? Object.entries(r.keys_detail).filter(([, d]) => d.valid !== true) : [];
  const keysNote = keyDetail.length ? `<p class="keys">Keys not valid: ${keyDetail.slice(0, 20).map(([k, d]) => `<code>${escapeHtml(k || '(default)')}</code> ${d.valid === false ? 'invalid' : 'unknown'}${d.reason ? ` (${escapeHtml(d.reason)})` : ''}`).join(', ')}${keyDetail.length > 20 ? ', …' : ''}</p>` : '';
  const drawnOps = tl.windows.reduce((s, w) => s + w.ops.length, 0);
  const cutNote = tl.cut
    ? `<p class="cut">This history has ${fmtInt(tl.totalOps)} ops: it was cut to keep this page small. Drawn: ${tl.windows.length} window${tl.windows.length === 1 ? '' : 's'} (${fmtInt(drawnOps)} ops) ${tl.anomalies.length ? 'around the anomalies, each with the ops just before and after' : 'at the start of the run'}. The full history is ${escapeHtml(h.source)}.</p>`
    : '';
  const keySelect = tl.keys.length > 1
    ? `<label>key: <select id="keyf"><option value="">all ${fmtInt(tl.keys.length)} keys</option>${tl.keys.slice(0, 500).map((k) => `<option value="${escapeHtml(k)}">${escapeHtml(k || '(empty)')}</option>`).join('')}</select></label>`
    : '';
  const windows = tl.windows.map((w) => {
    const heading = tl.cut
      ? `Window ${w.id + 1}: ops ${w.firstOp}–${w.lastOp}, ${at(tl, w.a0)} – ${at(tl, w.a1)}${w.anomalies.length ? ` (anomal${w.anomalies.length === 1 ? 'y' : 'ies'} ${w.anomalies.map((i) => `#${i + 1}`).join(', ')})` : ''}`
      : `Whole run: ${at(tl, w.a0)} – ${at(tl, tl.end)}`;
    const zoom = '<span class="zoom"><button data-z="left">◀</button><button data-z="in">+</button><button data-z="out">-</button><button data-z="right">▶</button><button data-z="reset">reset</button> drag across the timeline to zoom · double-click to reset · hover a bar for its times and lines</span>';
    return `<section class="win" id="w${w.id}"><h3>${escapeHtml(heading)}</h3>${zoom}<div class="scroll">${windowSvg(tl, w)}</div></section>`;
  }).join('');

  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title><style>${timelineCss()}</style></head>
<body>
<header><h1><span class="verdict ${v.cls}">${v.word}</span> <span class="src">${escapeHtml(h.source)}</span></h1>
<p class="facts">${facts.join(' · ')}</p>${metaRows ? `<details class="meta"><summary>${metaLine || 'about this run'}</summary><table class="meta">${metaRows}</table></details>` : ''}</header>
${anomSection}${keysNote}${cutNote}
<div class="controls">${keySelect}<span class="legend">${legend()}</span></div>
<svg width="0" height="0" style="position:absolute"><defs>
<linearGradient id="g-info"><stop offset="0" stop-color="#ffb74d" stop-opacity="0.95"/><stop offset="1" stop-color="#ffb74d" stop-opacity="0.08"/></linearGradient>
<pattern id="p-fault" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="8" height="8" fill="#ede7f6"/><rect width="3" height="8" fill="#d1c4e9"/></pattern>
</defs></svg>
${windows}
<div id="tip"></div>
<script>${timelineScript()}</script>
</body></html>
`;
}
