// The pages of `lockpick serve`: the store's index (filter, sort, live rows), a run's page, a
// merged set's page, two runs side by side and the course. Plain HTML and a little inline
// script, no front-end build and nothing fetched from the network; the words come from the
// message catalogue (src/i18n/) in the page's language. The timelines and demo pages are the
// files lockpick wrote, served from the store (/files/…) and framed.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { escapeHtml as esc } from '../report/html.ts';
import { anomalyName, messagesFor, t, LANGS, type Lang } from '../i18n/lang.ts';
import type { MessageKey } from '../i18n/messages.ts';
import { readJson, type StoreRow } from './store-scan.ts';

const CSS = `body{font:14px/1.5 system-ui,sans-serif;margin:0;color:#222}main{max-width:1300px;margin:0 auto;padding:1em}
header{background:#263238;color:#eee;padding:.5em 1em;display:flex;gap:1.5em;align-items:center}header a{color:#fff}header .sp{flex:1}
h1{font-size:1.4em}h2{font-size:1.1em;border-bottom:1px solid #ddd;margin-top:1.5em}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #e3e3e3;padding:.3em .5em;text-align:left;vertical-align:top}
th[data-sort]{cursor:pointer;user-select:none}th[data-sort]:hover{text-decoration:underline}
.verdict{display:inline-block;padding:.05em .5em;border-radius:4px;font-weight:bold;color:#fff;white-space:nowrap}
.UNSAFE{background:#c0392b}.SAFE{background:#27ae60}.INCONCLUSIVE,.UNFINISHED{background:#7f8c8d}.RUNNING{background:#2980b9}
.cls{font-size:12px;color:#555}.live{border:1px solid #2980b9;border-radius:6px;padding:.5em 1em;margin:.5em 0;background:#f3f8fc}
iframe{width:100%;height:760px;border:1px solid #ccc}.cols{display:grid;grid-template-columns:1fr 1fr;gap:1em}
pre{background:#f6f6f6;padding:.6em;overflow-x:auto;font-size:12px;white-space:pre-wrap;word-break:break-all}
.bar{display:flex;gap:.6em;align-items:center;margin:.5em 0}button{cursor:pointer}.muted{color:#777}`;

export interface PageContext {
  lang: Lang; title: string; path: string;
  /** Where the store's files are served: /files/<key> (guard.ts filesPrefix). */
  files: string;
}

/** A page: the header (store, course, languages), the body, and the messages its script reads as window.M. */
function page(c: PageContext, body: string, script = '', keys: readonly MessageKey[] = []): string {
  const langs = LANGS.map((l) => (l === c.lang ? `<b>${l === 'en' ? 'English' : '中文'}</b>` : `<a href="${esc(c.path)}${c.path.includes('?') ? '&' : '?'}lang=${l}" data-lang-link="${l}">${l === 'en' ? 'English' : '中文'}</a>`)).join(' · ');
  const m = JSON.stringify(messagesFor(c.lang, keys)).replace(/</g, '\\u003c');
  return `<!doctype html>\n<html lang="${c.lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<title>${esc(c.title)} · lockpick</title><link rel="icon" href="data:,"><style>${CSS}</style></head><body>` +
    `<header><b>lockpick</b><a href="/">${esc(t(c.lang, 'nav.store'))}</a><a href="/course">${esc(t(c.lang, 'nav.course'))}</a><span class="sp"></span>${langs}</header>` +
    `<main>${body}</main><script>window.M=${m};window.LANG=${JSON.stringify(c.lang)};window.FILES=${JSON.stringify(c.files)};</script>${script ? `<script>${script}</script>` : ''}</body></html>\n`;
}

export function verdictBadge(lang: Lang, v: string): string {
  const key = `verdict.${v}` as MessageKey;
  return `<span class="verdict ${esc(v)}" data-verdict="${esc(v)}">${esc(t(lang, key))}</span>`;
}

const VERDICT_KEYS = ['verdict.SAFE', 'verdict.UNSAFE', 'verdict.INCONCLUSIVE', 'verdict.RUNNING', 'verdict.UNFINISHED'] as const;

// Client side, plain JavaScript: a verdict badge and the live panel's line, shared by the pages.
const COMMON_JS = `function esc(s){return String(s).replace(/[&<>"']/g,function(c){return{'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;',"'":'&#39;'}[c];});}
function badge(v){return '<span class="verdict '+esc(v)+'" data-verdict="'+esc(v)+'">'+esc(M['verdict.'+v]||v)+'</span>';}
function fmt(k,vars){return (M[k]||k).replace(/\\{(\\w+)\\}/g,function(m,n){return vars&&n in vars?vars[n]:m;});}
function progressLine(p){if(!p)return '';var f=Object.keys(p.faultsApplied||{}).map(function(k){return k+' ×'+p.faultsApplied[k];}).join(', ');
return fmt('live.line',{runs:p.runs,violations:p.violations,contended:p.contended,faults:f||'–',coverage:p.cells?p.cells.percent+'% ('+p.cells.hit+'/'+p.cells.total+')':'–',phase:M['phase.'+p.phase]||p.phase});}
function dur(ms){if(ms==null)return '';var s=Math.round(ms/1000);return s<90?s+' s':Math.round(s/60)+' min';}`;

const INDEX_JS = `${COMMON_JS}
var rows=[],sortKey='date',sortDir=-1;
function cell(r,k){return k==='faults'?r.faults.join(','):k==='classes'?r.classes.join(' '):r[k]==null?'':r[k];}
function render(){var q=document.getElementById('q').value.toLowerCase(),vf=document.getElementById('vf').value;
var list=rows.filter(function(r){return (!vf||r.verdict===vf)&&(!q||[r.lock,r.faults.join(','),r.classes.join(' '),r.id,r.verdict].join(' ').toLowerCase().indexOf(q)>=0);});
list.sort(function(a,b){var x=cell(a,sortKey),y=cell(b,sortKey);return (x<y?-1:x>y?1:0)*sortDir;});
document.getElementById('rows').innerHTML=list.map(function(r){var href=(r.kind==='merged'?'/merged/':'/run/')+r.id.split('/').map(encodeURIComponent).join('/');
return '<tr data-id="'+esc(r.id)+'" data-kind="'+r.kind+'"><td><input type="checkbox" class="pick" value="'+esc(r.id)+'"'+(r.kind==='merged'?' disabled':'')+'></td><td>'+esc(M['kind.'+r.kind])+'</td><td><a href="'+href+'">'+esc(r.lock)+'</a><div class="cls">'+esc(r.id)+'</div></td><td>'+esc(r.faults.join(', ')||'–')+'</td><td>'+badge(r.verdict)+(r.progress?'<div class="cls">'+esc(progressLine(r.progress))+'</div>':'')+'</td><td class="cls">'+r.classes.map(esc).join('<br>')+'</td><td>'+esc((r.date||'').replace('T',' ').slice(0,19))+'</td><td>'+esc(dur(r.durationMs))+'</td><td>'+(r.coverage==null?'':esc(r.coverage+'%'))+'</td><td>'+(r.runs==null?'':r.runs)+'</td></tr>';}).join('');
document.getElementById('count').textContent=fmt('index.count',{shown:list.length,all:rows.length});
var live=rows.filter(function(r){return r.verdict==='RUNNING';});
document.getElementById('live').innerHTML=live.length?live.map(function(r){return '<div class="live" data-live="'+esc(r.id)+'"><b>'+esc(r.lock)+'</b> '+esc(r.faults.join(', '))+' '+badge('RUNNING')+'<div>'+esc(progressLine(r.progress))+'</div></div>';}).join(''):'<p class="muted">'+esc(M['index.noLive'])+'</p>';}
document.querySelectorAll('th[data-sort]').forEach(function(th){th.onclick=function(){var k=th.dataset.sort;sortDir=k===sortKey?-sortDir:1;sortKey=k;render();};});
document.getElementById('q').oninput=render;document.getElementById('vf').onchange=render;
document.getElementById('cmp').onclick=function(){var p=[].slice.call(document.querySelectorAll('.pick:checked')).map(function(x){return x.value;});
if(p.length!==2){alert(M['index.pickTwo']);return;}location.href='/compare?a='+encodeURIComponent(p[0])+'&b='+encodeURIComponent(p[1]);};
fetch('/api/rows').then(function(r){return r.json();}).then(function(r){rows=r;render();document.documentElement.dataset.ready='1';});
var es=new EventSource('/events');es.addEventListener('rows',function(e){rows=JSON.parse(e.data);render();});`;

export function indexPage(c: PageContext): string {
  const th = (k: string, key: MessageKey) => `<th data-sort="${k}">${esc(t(c.lang, key))}</th>`;
  const options = ['SAFE', 'UNSAFE', 'INCONCLUSIVE', 'RUNNING', 'UNFINISHED'].map((v) => `<option value="${v}">${esc(t(c.lang, `verdict.${v}` as MessageKey))}</option>`).join('');
  const body = `<h1>${esc(t(c.lang, 'index.title'))}</h1>
<h2>${esc(t(c.lang, 'index.live'))}</h2><div id="live"></div>
<h2>${esc(t(c.lang, 'index.runs'))}</h2>
<div class="bar"><input id="q" type="search" placeholder="${esc(t(c.lang, 'index.filter'))}" size="40"><select id="vf"><option value="">${esc(t(c.lang, 'index.anyVerdict'))}</option>${options}</select>
<button id="cmp">${esc(t(c.lang, 'index.compare'))}</button><span id="count" class="muted"></span></div>
<table><thead><tr><th></th>${th('kind', 'col.kind')}${th('lock', 'col.lock')}${th('faults', 'col.faults')}${th('verdict', 'col.verdict')}${th('classes', 'col.classes')}${th('date', 'col.date')}${th('durationMs', 'col.duration')}${th('coverage', 'col.coverage')}${th('runs', 'col.runs')}</tr></thead><tbody id="rows"></tbody></table>`;
  return page(c, body, INDEX_JS, [...VERDICT_KEYS, 'kind.run', 'kind.merged', 'index.count', 'index.noLive', 'index.pickTwo', 'live.line', 'phase.search', 'phase.shrink']);
}

/** A file of the store as the page links it (under the files prefix, each segment encoded). */
export const fileUrl = (c: PageContext, rel: string): string => `${c.files}/${rel.split('/').map(encodeURIComponent).join('/')}`;

/** The files of a run dir (two levels: its counterexamples and clients), for download. */
function filesOf(dir: string, rel: string): { rel: string; size: number }[] {
  const out: { rel: string; size: number }[] = [];
  const walk = (d: string, r: string, depth: number) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      let st; try { st = statSync(p); } catch { continue; }
      if (st.isDirectory()) { if (depth > 0) walk(p, `${r}/${name}`, depth - 1); } else out.push({ rel: `${r}/${name}`, size: st.size });
    }
  };
  walk(dir, rel, 1);
  return out;
}

const kb = (n: number): string => (n < 1024 ? `${n} B` : n < 1 << 20 ? `${(n / 1024).toFixed(1)} KB` : `${(n / (1 << 20)).toFixed(1)} MB`);

/** A failure's anomaly types named in the page's language (those this build knows). */
function named(lang: Lang, types: unknown): string {
  const names = (Array.isArray(types) ? types : []).map((x) => (typeof x === 'string' ? anomalyName(lang, x) : undefined)).filter((x) => x !== undefined);
  return names.length ? `<div class="atypes">${names.map(esc).join('; ')}</div>` : '';
}

/** A run's summary block: verdict, lock, faults, date, duration, runs, coverage, gaps, failures with their timelines. */
function runSummary(c: PageContext, row: StoreRow, dir: string, frames: boolean): string {
  const results = readJson(join(dir, 'results.json'));
  const failures = Array.isArray(results?.failures) ? results.failures as { class?: string; cause?: string; counterexample?: string; anomalies?: string[]; runs?: number }[] : [];
  const gaps = Array.isArray(results?.gaps) ? results.gaps as string[] : [];
  const cex = readdirSync(dir).filter((n) => /^counterexample(-\d+)?$/.test(n)).sort((a, b) => a.length - b.length || a.localeCompare(b));
  const items = cex.map((name, i) => {
    const f = failures.find((x) => typeof x.counterexample === 'string' && x.counterexample.endsWith(`/${name}`)) ?? failures[i];
    const tl = existsSync(join(dir, name, 'timeline.html')) ? `${row.id}/${name}/timeline.html` : undefined;
    return `<li data-counterexample="${esc(name)}"><b>${esc(name)}</b>${f?.class ? `: ${esc(f.class)}` : ''}${f?.cause ? `<div class="cls">${esc(f.cause)}</div>` : ''}` +
      `${named(c.lang, f?.anomalies)}` +
      `${tl ? ` <a href="${fileUrl(c, tl)}" data-timeline target="_blank">${esc(t(c.lang, 'run.openTimeline'))}</a>` : ''}` +
      ` · <a href="${fileUrl(c, `${row.id}/${name}/history.jsonl`)}?download=1">history.jsonl</a>` +
      `${tl && frames && i === 0 ? `<iframe src="${fileUrl(c, tl)}" title="timeline"></iframe>` : ''}</li>`;
  }).join('');
  return `<p>${verdictBadge(c.lang, row.verdict)} <b>${esc(row.lock)}</b> · ${esc(t(c.lang, 'col.faults'))}: ${esc(row.faults.join(', ') || '–')}</p>
<table><tbody>
<tr><th>${esc(t(c.lang, 'col.date'))}</th><td>${esc(row.date ?? '')}</td></tr>
<tr><th>${esc(t(c.lang, 'col.duration'))}</th><td>${row.durationMs === undefined ? '' : `${(row.durationMs / 1000).toFixed(1)} s`}</td></tr>
<tr><th>${esc(t(c.lang, 'col.runs'))}</th><td>${row.runs ?? ''}</td></tr>
<tr><th>${esc(t(c.lang, 'col.coverage'))}</th><td>${row.coverage === undefined ? esc(t(c.lang, 'run.noCoverage')) : `${row.coverage}%`}</td></tr>
${gaps.length ? `<tr><th>${esc(t(c.lang, 'run.gaps'))}</th><td><ul>${gaps.map((g) => `<li>${esc(g)}</li>`).join('')}</ul></td></tr>` : ''}
</tbody></table>
<h2>${esc(t(c.lang, 'run.counterexamples'))}</h2>${items ? `<ol>${items}</ol>` : `<p class="muted">${esc(t(c.lang, 'run.noCounterexample'))}</p>`}`;
}

const RUN_JS = `${COMMON_JS}
var id=document.body.querySelector('[data-run-id]').dataset.runId,pageNo=0,q='';
function load(){fetch('/api/history/'+id.split('/').map(encodeURIComponent).join('/')+'?page='+pageNo+'&q='+encodeURIComponent(q)).then(function(r){return r.json();}).then(function(h){
document.getElementById('hist').textContent=h.lines.join('\\n');document.getElementById('hpage').textContent=fmt('run.historyPage',{page:h.page+1,pages:Math.max(1,h.pages),matches:h.matches});
document.getElementById('prev').disabled=h.page<=0;document.getElementById('next').disabled=h.page>=h.pages-1;document.documentElement.dataset.ready='1';});}
document.getElementById('prev').onclick=function(){pageNo--;load();};document.getElementById('next').onclick=function(){pageNo++;load();};
document.getElementById('hq').onchange=function(){q=this.value;pageNo=0;load();};load();
var es=new EventSource('/events');es.addEventListener('rows',function(e){var r=JSON.parse(e.data).filter(function(x){return x.id===id;})[0];if(!r)return;
var el=document.getElementById('livebox');if(r.verdict==='RUNNING'){el.innerHTML='<div class="live">'+badge('RUNNING')+' '+esc(progressLine(r.progress))+'</div>';}
else if(el.dataset.was==='RUNNING'){location.reload();}el.dataset.was=r.verdict;});`;

export function runPage(c: PageContext, row: StoreRow, dir: string): string {
  const files = filesOf(dir, row.id).map((f) => `<li><a href="${fileUrl(c, f.rel)}?download=1">${esc(f.rel.slice(row.id.length + 1))}</a> <span class="muted">${kb(f.size)}</span></li>`).join('');
  const body = `<h1 data-run-id="${esc(row.id)}">${esc(t(c.lang, 'run.title', { lock: row.lock }))}</h1><p class="muted">${esc(row.id)}</p>
<div id="livebox" data-was="${esc(row.verdict)}">${row.verdict === 'RUNNING' ? `<div class="live">${verdictBadge(c.lang, 'RUNNING')}</div>` : ''}</div>
${runSummary(c, row, dir, true)}
<h2>${esc(t(c.lang, 'run.history'))}</h2>
<div class="bar"><input id="hq" type="search" placeholder="${esc(t(c.lang, 'run.historySearch'))}" size="40"><button id="prev">←</button><button id="next">→</button><span id="hpage" class="muted"></span></div>
<pre id="hist"></pre>
<h2>${esc(t(c.lang, 'run.files'))}</h2><ul>${files}</ul>`;
  return page(c, body, RUN_JS, [...VERDICT_KEYS, 'run.historyPage', 'live.line', 'phase.search', 'phase.shrink']);
}

export function comparePage(c: PageContext, a: { row: StoreRow; dir: string }, b: { row: StoreRow; dir: string }): string {
  const col = (x: { row: StoreRow; dir: string }) => `<div data-side="${esc(x.row.id)}"><h2><a href="/run/${x.row.id.split('/').map(encodeURIComponent).join('/')}">${esc(x.row.lock)}</a></h2><p class="muted">${esc(x.row.id)}</p>${runSummary(c, x.row, x.dir, true)}</div>`;
  const body = `<h1>${esc(t(c.lang, 'compare.title'))}</h1><div class="cols">${col(a)}${col(b)}</div>`;
  return page(c, body, 'document.documentElement.dataset.ready="1";');
}

export function mergedPage(c: PageContext, row: StoreRow, dir: string, rel: (abs: string) => string | undefined): string {
  const results = readJson(join(dir, 'results.json')) ?? {};
  const failures = Array.isArray(results.failures) ? results.failures as { class?: string; cause?: string; shards?: string[]; runs?: number; timeline?: string }[] : [];
  const gaps = Array.isArray(results.gaps) ? results.gaps as string[] : [];
  const shards = (row.shards ?? []).map((s) => `<tr><td>${esc(s.shard)}</td><td>${verdictBadge(c.lang, s.verdict)}</td><td>${s.id ? `<a href="/run/${s.id.split('/').map(encodeURIComponent).join('/')}">${esc(s.id)}</a>` : `<span class="muted">${esc(t(c.lang, 'merged.outside'))}</span>`}</td></tr>`).join('');
  const fails = failures.map((f) => {
    const tl = f.timeline ? rel(f.timeline) : undefined;
    return `<li><b>${esc(f.class ?? '')}</b>${f.cause ? `<div class="cls">${esc(f.cause)}</div>` : ''} ${esc((f.shards ?? []).join(', '))}${tl ? ` · <a href="${fileUrl(c, tl)}" data-timeline target="_blank">${esc(t(c.lang, 'run.openTimeline'))}</a>` : ''}</li>`;
  }).join('');
  const body = `<h1>${esc(t(c.lang, 'merged.title', { lock: row.lock }))}</h1><p class="muted">${esc(row.id)}</p>
<p>${verdictBadge(c.lang, row.verdict)} · ${esc(t(c.lang, 'col.faults'))}: ${esc(row.faults.join(', ') || '–')} · ${esc(t(c.lang, 'col.runs'))}: ${row.runs ?? ''}${row.coverage !== undefined ? ` · ${esc(t(c.lang, 'col.coverage'))}: ${row.coverage}%` : ''}</p>
${gaps.length ? `<h2>${esc(t(c.lang, 'run.gaps'))}</h2><ul>${gaps.map((g) => `<li>${esc(g)}</li>`).join('')}</ul>` : ''}
<h2>${esc(t(c.lang, 'merged.failures'))}</h2>${fails ? `<ol>${fails}</ol>` : `<p class="muted">${esc(t(c.lang, 'run.noCounterexample'))}</p>`}
<h2>${esc(t(c.lang, 'merged.shards'))}</h2><table><tbody>${shards}</tbody></table>
<p><a href="${fileUrl(c, `${row.id}/index.html`)}">index.html</a> · <a href="${fileUrl(c, `${row.id}/results.json`)}?download=1">results.json</a> · <a href="${fileUrl(c, `${row.id}/junit.xml`)}?download=1">junit.xml</a></p>`;
  return page(c, body, 'document.documentElement.dataset.ready="1";');
}

export interface CourseItem { name: string; title: string; expected: string; fault: string }

const COURSE_JS = `${COMMON_JS}
function post(u,b){return fetch(u,{method:'POST',headers:{'content-type':'application/json'},body:JSON.stringify(b||{})}).then(function(r){return r.json();}).then(function(j){if(j.error)alert(j.error);});}
document.querySelectorAll('button[data-start]').forEach(function(b){b.onclick=function(){post('/api/course/start',{name:b.dataset.start});};});
document.getElementById('stop').onclick=function(){post('/api/course/stop');};
function show(s){var el=document.getElementById('state');document.getElementById('stop').disabled=!(s&&s.status==='running');
document.querySelectorAll('button[data-start]').forEach(function(b){b.disabled=!!(s&&s.status==='running');});
if(!s){el.innerHTML='<p class="muted">'+esc(M['course.idle'])+'</p>';return;}
var h='<div class="live" data-course="'+esc(s.name)+'" data-status="'+esc(s.status)+'"><b>'+esc(s.title)+'</b> · '+esc(M['course.status.'+s.status]||s.status);
if(s.verdict)h+=' '+badge(s.verdict)+' '+esc(fmt('course.expected',{expected:M['verdict.'+s.expected]||s.expected}));
if(s.status==='running')h+=' <span class="muted">'+Math.round((Date.now()-s.startedAt)/1000)+' s</span>';
if(s.error)h+='<pre>'+esc(s.error)+'</pre>';h+='</div>';if(s.page){var u=FILES+'/'+s.page.split('/').map(encodeURIComponent).join('/');h+='<p><a href="'+u+'" target="_blank">'+esc(M['course.openPage'])+'</a></p><iframe src="'+u+'" title="demo"></iframe>';}
if(el.dataset.sig!==s.status+s.name){el.innerHTML=h;el.dataset.sig=s.status+s.name;}else if(s.status==='running'){el.querySelector('.live').outerHTML=h;}}
fetch('/api/course').then(function(r){return r.json();}).then(function(s){show(s);document.documentElement.dataset.ready='1';});
var es=new EventSource('/events');es.addEventListener('course',function(e){show(JSON.parse(e.data));});
setInterval(function(){var l=document.querySelector('.live[data-status="running"] .muted');if(l)l.textContent=(parseInt(l.textContent)+1)+' s';},1000);`;

export function coursePage(c: PageContext, items: CourseItem[]): string {
  const rows = items.map((d) => `<tr data-entry="${esc(d.name)}"><td><button data-start="${esc(d.name)}">${esc(t(c.lang, 'course.run'))}</button></td><td><b>${esc(d.title)}</b><div class="cls">${esc(d.fault)}</div></td><td>${verdictBadge(c.lang, d.expected)}</td></tr>`).join('');
  const body = `<h1>${esc(t(c.lang, 'course.title'))}</h1><p>${esc(t(c.lang, 'course.intro'))}</p>
<div class="bar"><button id="stop" disabled>${esc(t(c.lang, 'course.stop'))}</button></div><div id="state"></div>
<table><thead><tr><th></th><th>${esc(t(c.lang, 'course.entry'))}</th><th>${esc(t(c.lang, 'course.expectedCol'))}</th></tr></thead><tbody>${rows}</tbody></table>`;
  return page(c, body, COURSE_JS, [...VERDICT_KEYS, 'course.idle', 'course.expected', 'course.openPage', 'course.status.running', 'course.status.done', 'course.status.stopped', 'course.status.failed']);
}

export function errorPage(c: PageContext, status: number, why: string): string {
  return page({ ...c, title: String(status) }, `<h1>${status}</h1><p>${esc(why)}</p>`);
}
