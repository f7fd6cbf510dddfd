// test-lane: beside (starts no server)
// The timeline as a person sees it: `lockpick report` renders real counterexamples
// (histories/timeline-*.jsonl, copied from `lockpick run`), Debian's Chromium opens
// them headless (puppeteer-core, no browser download) and the test asserts on what
// is on screen: positions of lease ends, gaps and stale unlocks, fault rows
// labelled in full, no two labels overlapping (also after zooming), no console
// errors. Screenshots are kept in a temp dir whose path is printed.
import { tempDir } from '../support/temp-dir.ts';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import type { Browser, Page } from 'puppeteer-core';

const CHROMIUM = process.env.LOCKPICK_CHROMIUM ?? '/usr/bin/chromium';
const OUT = tempDir('lockpick-timeline-');
let skip: string | false = false;
let puppeteer: typeof import('puppeteer-core').default | undefined;
if (!existsSync(CHROMIUM)) skip = `Chromium not found at ${CHROMIUM} (Debian package chromium; bash scripts/setup.sh installs it): timeline browser tests skipped`;
else {
  try { puppeteer = (await import('puppeteer-core')).default; } catch (e) { skip = `puppeteer-core cannot be loaded (${(e as Error).message}); run npm ci: timeline browser tests skipped`; }
}
if (skip) console.log(skip);
else console.log(`timeline screenshots: ${OUT}`);

let browser: Browser | undefined;
before(async () => {
  if (skip || !puppeteer) return;
  browser = await puppeteer.launch({
    executablePath: CHROMIUM, headless: true, timeout: 90_000, protocolTimeout: 90_000,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', `--user-data-dir=${tempDir('lockpick-chromium-')}`],
  });
});
after(async () => { await browser?.close(); });

/** `lockpick report FILE --out OUT/NAME.html` (exit 1: these histories are INVALID), and `lockpick check --json` for the same file. */
function report(file: string, name: string): { html: string; messages: string[] } {
  const html = join(OUT, `${name}.html`);
  const r = spawnSync(process.execPath, ['bin/lockpick.mjs', 'report', file, '--out', html], { encoding: 'utf8' });
  assert.equal(r.status, 1, r.stderr + r.stdout);
  const c = spawnSync(process.execPath, ['bin/lockpick.mjs', 'check', file, '--json'], { encoding: 'utf8' });
  assert.equal(c.status, 1, c.stderr);
  return { html, messages: (JSON.parse(c.stdout) as { anomalies: { message: string }[] }).anomalies.map((a) => a.message) };
}

/** A message with its actors as placeholders: the page names clients (c1) where check's JSON names processes (process 105). */
const actors = (m: string): string => m.replace(/\b(process \d+|c\d+)\b/g, 'WHO');

// Page-side helpers, plain JavaScript (the project's TypeScript has no DOM types).
const HELPERS = `window.__t = {
  labels() {
    return [...document.querySelectorAll('svg.tl text')].flatMap((el) => {
      const cs = getComputedStyle(el), lane = el.closest('g.lane');
      if (cs.visibility === 'hidden' || cs.display === 'none' || (lane && lane.style.display === 'none')) return [];
      const b = el.getBoundingClientRect();
      if (b.width === 0 || !el.textContent) return [];
      const s = el.closest('svg').getBoundingClientRect();
      return [{ text: el.textContent, cls: el.getAttribute('class') || '', l: b.left, r: b.right, t: b.top, b: b.bottom, svgL: s.left, svgR: s.right }];
    });
  },
  box(sel) { const el = document.querySelector(sel); if (!el) return null; const b = el.getBoundingClientRect(); return { l: b.left, r: b.right, w: b.width, y: b.top }; },
  boxes(sel) { return [...document.querySelectorAll(sel)].map((el) => { const b = el.getBoundingClientRect(); return { l: b.left, r: b.right, w: b.width, y: b.top, tip: el.getAttribute('data-tip') || '' }; }); },
  texts(sel) { return [...document.querySelectorAll(sel)].map((el) => el.textContent || ''); },
  view() { const d = document.querySelector('svg.tl').dataset; return { a0: +d.a0, a1: +d.a1, v0: +d.v0, v1: +d.v1 }; },
  widths() { return { svg: document.querySelector('svg.tl').getBoundingClientRect().width, scroll: document.documentElement.scrollWidth, inner: window.innerWidth }; },
};`;
type Box = { l: number; r: number; w: number; y: number; tip: string };
const call = <T>(page: Page, expr: string): Promise<T> => page.evaluate(expr) as Promise<T>;

interface Opened { page: Page; errors: string[] }
async function open(html: string, width = 1400): Promise<Opened> {
  const page = await browser!.newPage();
  const errors: string[] = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`console ${m.type()}: ${m.text()}`); });
  page.on('pageerror', (e) => errors.push(`page error: ${(e as Error).message}`));
  page.on('requestfailed', (r) => errors.push(`request failed: ${r.url()}`));
  await page.setViewport({ width, height: 900 });
  await page.goto(`file://${html}`);
  await page.waitForSelector('html[data-ready="1"]', { timeout: 20_000 });
  await page.evaluate(HELPERS);
  return { page, errors };
}

async function shot(page: Page, name: string): Promise<void> {
  const path = join(OUT, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  console.log(`screenshot ${path}`);
}

/** Every label shown in the timelines, with its box on screen. */
function visibleLabels(page: Page): Promise<{ text: string; cls: string; l: number; r: number; t: number; b: number; svgL: number; svgR: number }[]> {
  return call(page, '__t.labels()');
}

async function assertNoOverlap(page: Page, when: string): Promise<void> {
  const ls = await visibleLabels(page);
  assert.ok(ls.length > 5, `${when}: labels are shown`);
  for (let i = 0; i < ls.length; i++) for (let j = i + 1; j < ls.length; j++) {
    const p = ls[i]!, q = ls[j]!;
    const dx = Math.min(p.r, q.r) - Math.max(p.l, q.l);
    const dy = Math.min(p.b, q.b) - Math.max(p.t, q.t);
    assert.ok(dx <= 0.5 || dy <= 0.5, `${when}: "${p.text}" (${p.cls}) and "${q.text}" (${q.cls}) overlap by ${dx.toFixed(1)} x ${dy.toFixed(1)} px`);
  }
}

/** The box on screen of the first element matching sel. */
async function xOf(page: Page, sel: string): Promise<Box> {
  const b = await call<Box | null>(page, `__t.box(${JSON.stringify(sel)})`);
  assert.ok(b, `${sel} is drawn`);
  return b;
}
const span = async (page: Page): Promise<number> => { const v = await call<{ v0: number; v1: number }>(page, '__t.view()'); return v.v1 - v.v0; };

test('DEL unlock + pause: the lease ends before the stale unlock, the second acquire lies inside the gap, the unlock is marked where it happened', { skip, timeout: 120_000 }, async () => {
  const { html, messages } = report('histories/timeline-del-pause.jsonl', 'del-pause');
  const { page, errors } = await open(html);
  await shot(page, 'del-pause');
  // Same anomalies as `lockpick check`.
  const listed = await call<string[]>(page, "__t.texts('.anoms li')");
  assert.equal(listed.length, messages.length);
  messages.forEach((m, i) => assert.ok(actors(listed[i]!).includes(actors(m)), `anomaly ${i + 1} as check says it: ${m}`));

  const c3 = 'g.lane[data-lane="c3"]';
  const leaseEnd = await xOf(page, `${c3} line.tick-lease-end`);
  const gap = await xOf(page, `${c3} rect.gap`);
  const stale = await xOf(page, `${c3} line.tick-stale-unlock`);
  const lease = await xOf(page, `${c3} rect.lease`);
  assert.ok(Math.abs(lease.r - leaseEnd.l) < 3 && Math.abs(gap.l - leaseEnd.l) < 3, `the lease bar ends where the gap starts (${lease.r}, ${leaseEnd.l}, ${gap.l})`);
  assert.ok(leaseEnd.l + 100 < stale.l, `lease end (${leaseEnd.l}) drawn well before the stale unlock (${stale.l})`);
  // The unlock mark sits on c3's release (at its return, less than a millisecond after its call here).
  const release = (await call<Box[]>(page, `__t.boxes(${JSON.stringify(`${c3} rect.op`)})`)).filter((r) => r.tip.startsWith('c3 (p106) release')).map((r) => r.l);
  assert.equal(release.length, 1);
  assert.ok(Math.abs(stale.l - release[0]!) < 3, `stale unlock at the release call (${stale.l} vs ${release[0]})`);
  assert.ok(Math.abs(gap.r - release[0]!) < 3, 'the gap runs to the release call');
  // c1's acquire ok is inside c3's gap.
  const intruder = await xOf(page, 'g.lane[data-lane="c1"] line.tick-gap-acquire');
  assert.ok(intruder.l > gap.l + 3 && intruder.l < gap.r - 3, `c1's acquire (${intruder.l}) inside c3's gap (${gap.l}–${gap.r})`);
  const texts = (await visibleLabels(page)).map((l) => l.text);
  for (const t of ['lease ends', '✕ stale unlock', "acquires in c3's gap", 'pause c3 1186 ms (> lease 800 ms) at in-critical-section', 'c1', 'c3', 'p105', 'p106', '#1 double holder', '#2 stale release']) {
    assert.ok(texts.includes(t), `"${t}" is shown (shown: ${texts.join(' | ')})`);
  }
  assert.ok(texts.includes('1600 ms') || texts.includes('1.6 s') || texts.includes('1400 ms'), `times from the run start: ${texts.filter((t) => /\d (ms|s)$/.test(t)).join(', ')}`);
  await assertNoOverlap(page, 'whole run');

  // A hash link on the open page zooms to the stale unlock.
  await page.evaluate("location.hash = '#a2'");
  await page.waitForFunction('(() => { const v = __t.view(); return v.v1 - v.v0 < (v.a1 - v.a0) / 2; })()', { timeout: 20_000 });
  const z = await call<{ v0: number; v1: number }>(page, '__t.view()');
  assert.ok(z.v0 < 1590.78 && z.v1 > 1590.78, `zoomed around the unlock at 1590.8 ms: ${z.v0}–${z.v1}`);
  await shot(page, 'del-pause-a2');
  await assertNoOverlap(page, 'zoomed to #a2');
  // Keys: 0 shows the whole run, + zooms in by half.
  await page.evaluate("document.querySelector('svg.tl').focus()");
  await page.keyboard.press('0');
  const whole = await span(page);
  await page.keyboard.press('+');
  const half = await span(page);
  assert.ok(Math.abs(half - whole / 2) < 1e-6 * whole, `+ halves the span (${whole} → ${half})`);
  // Ctrl+wheel zooms around the pointer.
  const box = (await page.$('svg.tl'))!;
  const bb = (await box.boundingBox())!;
  await page.mouse.move(bb.x + bb.width * 0.7, bb.y + bb.height / 2);
  await page.keyboard.down('Control');
  await page.mouse.wheel({ deltaY: -200 });
  await page.keyboard.up('Control');
  const wheeled = await span(page);
  assert.ok(wheeled < half * 0.6, `Ctrl+wheel zoomed in (${half} → ${wheeled})`);
  await assertNoOverlap(page, 'after key and wheel zoom');
  assert.deepEqual(errors, []);
  await page.close();
});

test("Kleppmann's scenario: both partitions and the clock jump visible and labelled in full, on their node lanes", { skip, timeout: 120_000 }, async () => {
  const { html, messages } = report('histories/timeline-kleppmann.jsonl', 'kleppmann');
  const { page, errors } = await open(html);
  await shot(page, 'kleppmann');
  const listed = await call<string[]>(page, "__t.texts('.anoms li')");
  messages.forEach((m, i) => assert.ok(actors(listed[i]!).includes(actors(m)), `anomaly ${i + 1} as check says it: ${m}`));
  const rows = await call<Box[]>(page, "__t.boxes('svg.tl rect.frow')");
  assert.equal(rows.length, 3);
  assert.equal(new Set(rows.map((r) => Math.round(r.y))).size, 3, 'one row per fault: none hides another');
  for (const r of rows) assert.ok(r.w > 50, `fault row ${r.w} px wide`);
  const labels = await visibleLabels(page);
  const plotL = (await xOf(page, 'svg.tl .clipr')).l;
  for (const words of ['partition clients c1 | nodes n4,n5 for 3313 ms', 'partition clients c2 | nodes n1,n2 for 3297 ms', 'clock of n3 jumps +20 s for 1313 ms']) {
    const l = labels.find((x) => x.cls === 'flabel' && x.text === words);
    assert.ok(l, `"${words}" shown in full`);
    assert.ok(l.l >= plotL - 1 && l.r <= l.svgR + 0.5, `"${words}" inside the plot, not cut (${l.l}–${l.r}, plot from ${plotL} to ${l.svgR})`);
  }
  for (const n of ['n1', 'n2', 'n3', 'n4', 'n5']) {
    const w = (await call<Box[]>(page, `__t.boxes('g.lane[data-lane="node:${n}"] rect.nfault')`)).map((r) => r.w);
    assert.ok(w.length >= 1 && w.every((x) => x > 50), `node ${n} shows its fault (${w})`);
  }
  await assertNoOverlap(page, 'Kleppmann');
  assert.deepEqual(errors, []);
  await page.close();
});

test('the width follows the window: no sideways scrolling at 1000 px, no empty half at 2560 px', { skip, timeout: 120_000 }, async () => {
  const { html } = report('histories/timeline-kleppmann.jsonl', 'kleppmann-width');
  for (const width of [1000, 2560]) {
    const { page, errors } = await open(html, width);
    const m = await call<{ svg: number; scroll: number; inner: number }>(page, '__t.widths()');
    assert.ok(m.scroll <= m.inner, `${width}: page ${m.scroll} px wide in a ${m.inner} px window`);
    assert.ok(m.svg > width - 80 && m.svg <= width, `${width}: timeline ${m.svg} px`);
    await shot(page, `kleppmann-${width}`);
    await assertNoOverlap(page, `${width} px`);
    // Resizing an open page refits it.
    await page.setViewport({ width: 1200, height: 900 });
    await page.waitForFunction('(() => { const w = __t.widths(); return Math.abs(w.svg - (w.inner - 36)) < 60; })()', { timeout: 20_000 });
    assert.deepEqual(errors, []);
    await page.close();
  }
});
