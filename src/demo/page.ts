// The HTML of `lockpick demo`: one page per entry (the lock's code, the fault,
// what went wrong, the run's timeline, the fix) and the catalogue's index.
// Self-contained pages; the timeline is the run's own timeline.html (written by
// the replay with src/report/html.ts), framed and linked by relative path.
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { escapeHtml as esc } from '../report/html.ts';
import { getRecipe } from '../locks/registry.ts';
import { describePlan, validatePlan } from '../workload/plan.ts';
import type { RunSummary } from '../runner/index.ts';
import { entryText, type DemoEntry } from './entry.ts';
import type { DemoOutcome } from './run.ts';
import { excerpt } from './code.ts';
import { findDemo } from './registry.ts';
import { t, type Lang } from '../i18n/lang.ts';

const CSS = `body{font:15px/1.5 system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
h1{font-size:1.5em;margin-bottom:.2em}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ddd}
pre{background:#f6f6f6;padding:.7em;overflow-x:auto;font-size:13px;line-height:1.35}
.verdict{display:inline-block;padding:.15em .6em;border-radius:4px;font-weight:bold;color:#fff}
.UNSAFE{background:#c0392b}.SAFE{background:#27ae60}.INCONCLUSIVE{background:#7f8c8d}
.status-ok{color:#27ae60;font-weight:bold}.status-bad{color:#c0392b;font-weight:bold}
iframe{width:100%;height:900px;border:1px solid #ccc;display:block}table{border-collapse:collapse;width:100%}
td,th{border-bottom:1px solid #e3e3e3;padding:.35em .5em;text-align:left;vertical-align:top}
.ln{color:#999;user-select:none}`;

// The framed timeline says how tall it is (timeline-script.ts posts lockpickTimelineHeight): the frame
// takes that height, so no lane is cut off (file:// frames are other origins: no reading their size).
const FIT_FRAME = `<script>window.addEventListener('message',function(e){var h=e.data&&e.data.lockpickTimelineHeight;if(typeof h!=='number')return;
document.querySelectorAll('iframe[data-fit]').forEach(function(f){if(f.contentWindow===e.source)f.style.height=Math.ceil(h+4)+'px';});});</script>`;

function page(title: string, body: string, lang: Lang): string {
  return `<!doctype html>\n<html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<title>${esc(title)}</title><style>${CSS}</style></head><body>\n${body}\n</body></html>\n`;
}

export function verdictBadge(o: Pick<DemoOutcome, 'verdict' | 'status' | 'expected'>, lang: Lang = 'en'): string {
  const ok = o.status === 'as expected';
  const note = ok ? t(lang, 'demo.asExpected') : o.status === 'fix broke' ? t(lang, 'demo.fixBroke', { expected: o.expected }) : t(lang, 'demo.notReproduced', { expected: o.expected });
  return `<span class="verdict ${o.verdict}" data-verdict="${o.verdict}">${esc(t(lang, `verdict.${o.verdict}`))}</span> <span class="${ok ? 'status-ok' : 'status-bad'}" data-status="${o.status}">${esc(note)}</span>`;
}

function demoLink(name: string | undefined, lang: Lang): string {
  const d = name ? findDemo(name) : undefined;
  if (!d) return '';
  return `<p>${esc(t(lang, 'demo.seeIt'))} <a href="${esc(d.name)}.html" data-demo-link="${esc(d.name)}">${esc(d.name)}</a>: ${esc(entryText(d, lang).title)} (${esc(t(lang, `verdict.${d.expected}`))}).</p>`;
}

function codeBlock(entry: DemoEntry, lang: Lang): string {
  return entry.code.map((c) => {
    const x = excerpt(c);
    const lines = x.lines.map((l, i) => `<span class="ln">${String(x.first + i).padStart(4)}</span>  ${esc(l)}`).join('\n');
    return `<p><code>src/locks/${esc(x.file)}</code>${esc(t(lang, 'demo.lines', { from: x.first, to: x.first + x.lines.length - 1 }))}</p><pre>${lines}</pre>`;
  }).join('\n');
}

interface LastRun { check?: { anomalies?: { type: string; message: string }[] }; resource?: { message?: string; anomalies?: { type: string; message: string }[] } }

/** What the checkers said about the last run (results.json of the replay). */
function findings(summary: RunSummary | undefined, lang: Lang): string {
  if (!summary) return `<p>${esc(t(lang, 'demo.noRun'))}</p>`;
  let last: LastRun | null = null;
  try {
    last = (JSON.parse(readFileSync(join(summary.dir, 'results.json'), 'utf8')) as { last: LastRun | null }).last;
  } catch { /* no results.json: the summary's anomalies below still say it */ }
  type Found = { type: string; message: string };
  const items: Found[] = last ? [...(last.check?.anomalies ?? []), ...(last.resource?.anomalies ?? [])] : (summary.minimal?.anomalies ?? []) as Found[];
  const list = items.length
    ? `<ol>${items.slice(0, 10).map((a) => `<li><b>${esc(a.type)}</b>: ${esc(a.message)}</li>`).join('')}</ol>${items.length > 10 ? `<p>${esc(t(lang, 'demo.more', { n: items.length - 10 }))}</p>` : ''}`
    : `<p>${esc(t(lang, 'demo.noAnomaly'))}</p>`;
  return `${list}${last?.resource?.message ? `<p>${esc(t(lang, 'demo.resource'))} ${esc(last.resource.message.replace(/^resource: /, ''))}</p>` : ''}`;
}

export interface PageInput {
  test: Record<string, unknown>;
  summary?: RunSummary;
  /** The replay's own report lines. */
  report: string[];
  out: string;
  lang?: Lang;
}

export function renderDemoPage(entry: DemoEntry, o: DemoOutcome, input: PageInput): string {
  const lang = input.lang ?? 'en';
  const w = entryText(entry, lang);
  const recipe = getRecipe(String(input.test.lock));
  const plan = validatePlan(input.test.plan, `scenarios/${entry.name}/test.json`);
  const opts = input.test.lock_options as Record<string, unknown> | undefined;
  const optText = opts && Object.keys(opts).length ? ` with ${Object.entries(opts).map(([k, v]) => `--lock-opt ${k}=${String(v)}`).join(' ')}` : '';
  const timeline = input.summary ? join(input.summary.dir, 'counterexample', 'timeline.html') : undefined;
  const tl = timeline && existsSync(timeline)
    ? `<p><a href="${esc(relative(input.out, timeline))}" data-timeline>${esc(t(lang, 'demo.openTimeline'))}</a>. ${esc(t(lang, 'demo.runDir'))} <code>${esc(relative(input.out, input.summary!.dir))}</code> (history.jsonl, results.json; <code>lockpick check</code>).</p>` +
      `<iframe src="${esc(relative(input.out, timeline))}" title="timeline of ${esc(entry.name)}" data-fit></iframe>${FIT_FRAME}`
    : `<p>${esc(t(lang, 'demo.noTimeline', { why: o.error ?? t(lang, 'demo.noTimelineWhy') }))}</p>`;
  const h = (key: Parameters<typeof t>[1]) => `<h2>${esc(t(lang, key))}</h2>`;
  const body = `<p><a href="index.html">${esc(t(lang, 'demo.catalogue'))}</a></p>
<h1>${esc(w.title)}</h1>
<p>${verdictBadge(o, lang)} — ${esc(t(lang, 'demo.runsLine', { runs: o.runs, tries: o.tries, seconds: (o.elapsedMs / 1000).toFixed(1) }))}</p>
${h('demo.whatLock')}
<p><b>${esc(recipe.name)}</b>${esc(optText)}: ${esc(w.lock)}</p>
<p>${esc(t(lang, 'demo.recipe'))} ${esc(recipe.summary)} (${esc(recipe.source ?? 'lockpick')}).</p>
${codeBlock(entry, lang)}
${h('demo.fault')}
<p>${esc(w.fault)}</p>
<pre>${esc(describePlan(plan))}</pre>
${h('demo.wrong')}
<p>${esc(w.story)}</p>
<p>${esc(t(lang, 'demo.found', { property: String(input.test.property ?? 'both') }))}</p>
${findings(input.summary, lang)}
${h('demo.timeline')}
${tl}
${h('demo.fix')}
<p>${esc(w.fix)}</p>
${demoLink(entry.fixDemo, lang)}
${h('demo.yourself')}
<pre>lockpick demo ${esc(entry.name)}${lang === 'en' ? '' : ` --lang ${lang}`}
lockpick run --replay scenarios/${esc(entry.name)} --runs 3</pre>
<p>${esc(t(lang, 'demo.source'))} ${esc(w.source)}.</p>
<details><summary>${esc(t(lang, 'demo.report'))}</summary><pre>${esc(input.report.join('\n'))}</pre></details>`;
  return page(`${entry.name}: ${w.title}`, body, lang);
}

function titleOf(o: DemoOutcome, lang: Lang): string {
  const d = findDemo(o.name);
  return d ? entryText(d, lang).title : o.title;
}

export function renderIndex(outcomes: DemoOutcome[], elapsedMs: number, lang: Lang = 'en'): string {
  const rows = outcomes.map((o) => `<tr data-demo="${esc(o.name)}"><td><a href="${esc(o.name)}.html">${esc(o.name)}</a></td><td>${esc(titleOf(o, lang))}</td><td>${esc(t(lang, `verdict.${o.expected}`))}</td><td>${verdictBadge(o, lang)}</td><td>${o.runs}</td><td>${(o.elapsedMs / 1000).toFixed(1)} s</td></tr>`).join('\n');
  const bad = outcomes.filter((o) => o.status !== 'as expected').length;
  const body = `<h1>${esc(t(lang, 'demo.indexTitle'))}</h1>
<p>${esc(t(lang, 'demo.indexIntro'))}</p>
<p>${esc(t(lang, outcomes.length === 1 ? 'demo.indexCountOne' : 'demo.indexCount', { n: outcomes.length, ok: outcomes.length - bad, seconds: (elapsedMs / 1000).toFixed(0) }))}${bad ? ` <b>${esc(t(lang, 'demo.indexBad', { bad }))}</b>` : ''}</p>
<table><thead><tr><th>${esc(t(lang, 'demo.colDemo'))}</th><th>${esc(t(lang, 'demo.colWhat'))}</th><th>${esc(t(lang, 'course.expectedCol'))}</th><th>${esc(t(lang, 'col.verdict'))}</th><th>${esc(t(lang, 'col.runs'))}</th><th>${esc(t(lang, 'col.duration'))}</th></tr></thead><tbody>
${rows}
</tbody></table>`;
  return page(t(lang, 'demo.catalogue'), body, lang);
}
