// test-lane: beside (starts no server)
// The timeline at the widths people use (800 and 1400 px), in Debian's Chromium:
// every anomaly tag shown, no two labels overlapping (bounding boxes), the lease
// of an acquire that waited drawn from its grant (bounded by the call and the
// return), and a Sentinel failover band from its first step. Histories: real runs
// (histories/timeline-*.jsonl; scenarios/evidence/: a Sentinel failover from before
// step records, close anomalies) and small hand-written ones, so each test takes seconds.
import { tempDir } from '../support/temp-dir.ts';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import type { Browser, Page } from 'puppeteer-core';

const CHROMIUM = process.env.LOCKPICK_CHROMIUM ?? '/usr/bin/chromium';
const OUT = tempDir('lockpick-timeline-layout-');
let skip: string | false = false;
let puppeteer: typeof import('puppeteer-core').default | undefined;
if (!existsSync(CHROMIUM)) skip = `Chromium not found at ${CHROMIUM}: timeline layout tests skipped`;
else {
  try { puppeteer = (await import('puppeteer-core')).default; } catch (e) { skip = `puppeteer-core cannot be loaded (${(e as Error).message}): timeline layout tests skipped`; }
}
if (!skip) console.log(`timeline screenshots: ${OUT}`);

let browser: Browser | undefined;
before(async () => {
  if (skip || !puppeteer) return;
  browser = await puppeteer.launch({
    executablePath: CHROMIUM, headless: true, timeout: 90_000, protocolTimeout: 90_000,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
      `--user-data-dir=${tempDir('lockpick-chromium-')}`],
  });
});
after(async () => { await browser?.close(); });

const WIDTHS = [800, 1400];

function report(file: string, name: string): string {
  const html = join(OUT, `${name}.html`);
  const r = spawnSync(process.execPath, ['bin/lockpick.mjs', 'report', file, '--out', html], { encoding: 'utf8' });
  assert.ok(r.status === 0 || r.status === 1, r.stderr + r.stdout);
  return html;
}

interface Label { text: string; cls: string; l: number; r: number; t: number; b: number }
type Box = { l: number; r: number; y: number; tip: string };
const PAGE = `window.__t = {
  labels() { return [...document.querySelectorAll('svg.tl text')].flatMap((el) => {
    const cs = getComputedStyle(el), lane = el.closest('g.lane');
    if (cs.visibility === 'hidden' || cs.display === 'none' || (lane && lane.style.display === 'none')) return [];
    const b = el.getBoundingClientRect();
    return b.width === 0 || !el.textContent ? [] : [{ text: el.textContent, cls: el.getAttribute('class') || '', l: b.left, r: b.right, t: b.top, b: b.bottom }]; }); },
  boxes(sel) { return [...document.querySelectorAll(sel)].map((el) => { const b = el.getBoundingClientRect(); return { l: b.left, r: b.right, y: b.top, tip: el.getAttribute('data-tip') || '' }; }); },
  x(a) { const svg = document.querySelector('svg.tl'), d = svg.dataset, w = +d.w, k = (w - 92) / (+d.v1 - +d.v0);
    return svg.getBoundingClientRect().left + (92 + (a - +d.v0) * k) * svg.getBoundingClientRect().width / w; },
  anomalies() { return document.querySelectorAll('.anoms li').length; },
};`;
const call = <T>(page: Page, expr: string): Promise<T> => page.evaluate(expr) as Promise<T>;

async function open(html: string, width: number, name: string): Promise<Page> {
  const page = await browser!.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push((e as Error).message));
  await page.setViewport({ width, height: 900 });
  await page.goto(`file://${html}`);
  await page.waitForSelector('html[data-ready="1"]', { timeout: 20_000 });
  await page.evaluate(PAGE);
  await page.screenshot({ path: join(OUT, `${name}-${width}.png`), fullPage: true });
  assert.deepEqual(errors, []);
  return page;
}

/** Every anomaly's tag is shown (in full or as "#n"), and no two labels overlap. */
async function assertLegible(page: Page, when: string): Promise<Label[]> {
  const ls = await call<Label[]>(page, '__t.labels()');
  const n = await call<number>(page, '__t.anomalies()');
  for (let i = 1; i <= n; i++) assert.ok(ls.some((l) => l.cls.includes('atag') && (l.text === `#${i}` || l.text.startsWith(`#${i} `))), `${when}: anomaly tag #${i} shown (tags: ${ls.filter((l) => l.cls.includes('atag')).map((l) => l.text).join(', ')})`);
  for (let i = 0; i < ls.length; i++) for (let j = i + 1; j < ls.length; j++) {
    const p = ls[i]!, q = ls[j]!;
    const dx = Math.min(p.r, q.r) - Math.max(p.l, q.l), dy = Math.min(p.b, q.b) - Math.max(p.t, q.t);
    assert.ok(dx <= 0.5 || dy <= 0.5, `${when}: "${p.text}" (${p.cls}) and "${q.text}" (${q.cls}) overlap by ${dx.toFixed(1)} x ${dy.toFixed(1)} px`);
  }
  return ls;
}

test('the stored counterexamples at 800 and 1400 px: every anomaly tag shown, no labels overlapping', { skip, timeout: 60_000 }, async () => {
  // The last two have anomalies a few ms apart (their tags once hid one another: "#2" was dropped).
  for (const [file, name] of [['histories/timeline-del-pause.jsonl', 'del-pause'], ['histories/timeline-kleppmann.jsonl', 'kleppmann'],
    ['scenarios/evidence/redisson-style--client-pause/history.jsonl', 'redisson-pause'], ['scenarios/evidence/npm-redis-semaphore--clock-bump/history.jsonl', 'semaphore-clock']] as const) {
    const html = report(file, name);
    for (const w of WIDTHS) {
      const page = await open(html, w, name);
      await assertLegible(page, `${name} at ${w} px`);
      await page.close();
    }
  }
});

// c1 waits 1000 ms in acquire (lease 800 ms), holds to 1700 ms: inside its lease counted from
// the grant, though past call + lease. c2 then waits too, holds from 1900 ms past its lease
// (ok 1900 + 800 = 2700; released at 3000); c1 acquires in c2's gap at 2800 ms.
const T0 = 1_000_000_000;
const ms = (x: number): number => T0 + Math.round(x * 1e6);
const WAITED = [
  { type: 'info', f: 'run-start', process: 'nemesis', value: { run: 1 }, time: ms(0) },
  { type: 'invoke', f: 'acquire', process: 0, key: 'k', time: ms(10), client: 'c1' },
  { type: 'invoke', f: 'acquire', process: 1, key: 'k', time: ms(20), client: 'c2' },
  { type: 'ok', f: 'acquire', process: 0, key: 'k', time: ms(1010), lease_ms: 800 },
  { type: 'invoke', f: 'release', process: 0, key: 'k', time: ms(1700), client: 'c1' },
  { type: 'ok', f: 'release', process: 0, key: 'k', time: ms(1702) },
  { type: 'ok', f: 'acquire', process: 1, key: 'k', time: ms(1900), lease_ms: 800 },
  { type: 'invoke', f: 'acquire', process: 0, key: 'k', time: ms(2000), client: 'c1' },
  { type: 'ok', f: 'acquire', process: 0, key: 'k', time: ms(2800), lease_ms: 800 },
  { type: 'invoke', f: 'release', process: 1, key: 'k', time: ms(3000), client: 'c2' },
  { type: 'fail', f: 'release', process: 1, key: 'k', time: ms(3002) },
  { type: 'invoke', f: 'release', process: 0, key: 'k', time: ms(3100), client: 'c1' },
  { type: 'ok', f: 'release', process: 0, key: 'k', time: ms(3102) },
  { type: 'info', f: 'run-end', process: 'nemesis', value: { run: 1 }, time: ms(3200) },
];

test('an acquire that waited: its lease is drawn from the grant (between call and return), past the lease only after return + lease', { skip, timeout: 60_000 }, async () => {
  const file = join(OUT, 'waited.jsonl');
  writeFileSync(file, WAITED.map((e) => JSON.stringify(e)).join('\n') + '\n');
  const html = report(file, 'waited');
  for (const w of WIDTHS) {
    const page = await open(html, w, 'waited');
    await assertLegible(page, `waited at ${w} px`);
    const x = (a: number): Promise<number> => call<number>(page, `__t.x(${a})`);
    const lane = (c: string, sel: string): Promise<Box[]> => call<Box[]>(page, `__t.boxes(${JSON.stringify(`g.lane[data-lane="${c}"] ${sel}`)})`);
    // c1's first hold: call + lease (810 ms) is before its return (1010 ms), so the whole lease is
    // unsure, from the return until the release that worked (1702 ms; return + lease would be 1810 ms).
    const [u1] = await lane('c1', 'rect.lease-unsure');
    assert.ok(u1, 'c1 has an unsure lease band');
    assert.ok(Math.abs(u1.l - (await x(1010))) < 2, `c1's band starts at its acquire's return (${u1.l} vs ${await x(1010)})`);
    assert.ok(Math.abs(u1.r - (await x(1702))) < 2, `c1's band ends at its release (${u1.r} vs ${await x(1702)})`);
    assert.match(u1.tip, /the lease ends in here: granted between the acquire's call and its return/);
    const x1750 = await x(1750);
    const gaps1 = (await lane('c1', 'rect.gap')).filter((g) => g.l < x1750);
    assert.deepEqual(gaps1, [], "c1's first hold is not drawn as past its lease");
    // c2: call + lease = 820 ms, before its return (1900 ms): unsure until 2700 ms, then past its lease until its release call (3000 ms).
    const gaps2 = await lane('c2', 'rect.gap');
    assert.equal(gaps2.length, 1, 'c2 is past its lease once');
    assert.ok(Math.abs(gaps2[0]!.l - (await x(2700))) < 2, `c2's gap starts at return + lease, 2700 ms (${gaps2[0]!.l} vs ${await x(2700)})`);
    const [end2] = await lane('c2', 'line.tick-lease-end');
    assert.ok(end2 && Math.abs(end2.l - (await x(2700))) < 2, 'lease end marked at 2700 ms');
    await page.close();
  }
});

/** The failover's row, its steps' ticks and its node bands, and c1's first op, on screen. */
async function failoverBoxes(page: Page): Promise<{ row: Box; steps: { l: number; words: string }[]; nodes: (Box | undefined)[]; acquire: Box }> {
  const [row] = await call<Box[]>(page, "__t.boxes('svg.tl rect.frow')");
  assert.ok(row, 'the failover has a row');
  const steps = (await call<Box[]>(page, "__t.boxes('svg.tl line.fstep')")).map((s) => ({ l: s.l, words: s.tip.split('\n')[1]!.replace(/^step at [\d.]+ ms: /, '') }));
  const nodes = await Promise.all(['n1', 'n2'].map(async (n) => (await call<Box[]>(page, `__t.boxes('g.lane[data-lane="node:${n}"] rect.nfault')`))[0]));
  const acquire = (await call<Box[]>(page, `__t.boxes('g.lane[data-lane="c1"] rect.op')`))[0]!;
  return { row, steps, nodes, acquire };
}

test('the Sentinel failover band runs from its first recorded step (the replication cut) to its heal, each step where it was recorded', { skip, timeout: 60_000 }, async () => {
  // A real run (histories/expected.json): run-start at 31.173049 ms; failover-step records at
  // 2715.059895 (replication of n1 cut), 5218.041012 (n1 killed), 7570.057706 (n2 promoted) and
  // 14250.314855 ms (n1 back); failover-start at 7570.192325, failover-stop at 24946.000318 ms.
  const t0 = 31.173049;
  const html = report('histories/timeline-sentinel-failover.jsonl', 'sentinel-steps');
  for (const w of WIDTHS) {
    const page = await open(html, w, 'sentinel-steps');
    await assertLegible(page, `sentinel (steps recorded) at ${w} px`);
    const x = (a: number): Promise<number> => call<number>(page, `__t.x(${a})`);
    const { row, steps, nodes, acquire } = await failoverBoxes(page);
    assert.ok(Math.abs(row.l - (await x(2715.059895 - t0))) < 2, `band starts at the replication cut, 2684 ms (${row.l} vs ${await x(2715.059895 - t0)})`);
    assert.ok(Math.abs(row.r - (await x(24946.000318 - t0))) < 2, `band ends at the heal, 24915 ms (${row.r} vs ${await x(24946.000318 - t0)})`);
    assert.ok(row.l < acquire.l && acquire.l < (await x(7570.192325 - t0)), 'c1 acquired after the cut, before the promotion the start record was written at');
    assert.deepEqual(steps.map((s) => s.words), ['replication of n1 cut', 'n1 killed', 'n2 promoted', 'n1 back, until Sentinel demotes it']);
    const recorded = [2715.059895, 5218.041012, 7570.057706, 14250.314855];
    for (const [i, s] of steps.entries()) assert.ok(Math.abs(s.l - (await x(recorded[i]! - t0))) < 2, `step "${s.words}" where it was recorded`);
    nodes.forEach((nb, i) => assert.ok(nb && Math.abs(nb.l - row.l) < 2, `node n${i + 1}'s band starts with the row`));
    await page.close();
  }
});

test('a Sentinel history from before step records: the band starts at the lead-in its start record states', { skip, timeout: 60_000 }, async () => {
  // A real run: failover-start written at 5790 ms after the run start with promoted_after_ms 4790, lead_ms 2500.
  const html = report('scenarios/evidence/redis-sentinel--failover/history.jsonl', 'sentinel');
  for (const w of WIDTHS) {
    const page = await open(html, w, 'sentinel');
    await assertLegible(page, `sentinel at ${w} px`);
    const x = (a: number): Promise<number> => call<number>(page, `__t.x(${a})`);
    const { row, steps, nodes, acquire } = await failoverBoxes(page);
    const cut = 5819.580432 - 29.561632 - 4790;
    assert.ok(Math.abs(row.l - (await x(cut))) < 2, `band starts at the replication cut, ${cut.toFixed(0)} ms (${row.l} vs ${await x(cut)})`);
    assert.ok(row.l < acquire.l, 'the failover began before c1 acquired');
    assert.deepEqual(steps.map((s) => s.words), ['replication of n1 cut', 'n1 killed', 'n2 promoted']);
    assert.ok(Math.abs(steps[1]!.l - (await x(cut + 2500))) < 2, 'the kill lead_ms after the cut');
    nodes.forEach((nb, i) => assert.ok(nb && Math.abs(nb.l - row.l) < 2, `node n${i + 1}'s band starts with the row`));
    await page.close();
  }
});

test('a demo page frames the timeline at its content height: the node lanes are not cut off; the index says "1 entry"', { skip, timeout: 60_000 }, async () => {
  const { renderDemoPage, renderIndex } = await import('../../src/demo/page.ts');
  const { findDemo } = await import('../../src/demo/registry.ts');
  const { readFileSync, mkdirSync } = await import('node:fs');
  const entry = findDemo('sentinel-failover')!;
  const dir = join(OUT, 'demo-run');
  mkdirSync(join(dir, 'counterexample'), { recursive: true });
  report('scenarios/evidence/redis-sentinel--failover/history.jsonl', 'demo-run/counterexample/timeline');
  const outcome = { name: entry.name, title: entry.title, expected: entry.expected, verdict: 'UNSAFE', status: 'as expected', runs: 1, tries: 1, elapsedMs: 1000, runDir: dir, page: join(OUT, 'sentinel-failover.html') } as const;
  const testJson = JSON.parse(readFileSync('scenarios/sentinel-failover/test.json', 'utf8')) as Record<string, unknown>;
  const html = renderDemoPage(entry, outcome, { test: testJson, summary: { dir } as never, report: [], out: OUT });
  const file = outcome.page;
  writeFileSync(file, html);
  const page = await browser!.newPage();
  await page.setViewport({ width: 1400, height: 900 });
  await page.goto(`file://${file}`);
  const frame = (await (await page.waitForSelector('iframe[data-fit]'))!.contentFrame())!;
  await frame.waitForSelector('html[data-ready="1"]', { timeout: 20_000 });
  await page.waitForFunction("document.querySelector('iframe[data-fit]').style.height !== ''", { timeout: 10_000 });
  const inner = await frame.evaluate('document.body.getBoundingClientRect().bottom') as number;
  const outer = await page.evaluate("document.querySelector('iframe[data-fit]').getBoundingClientRect().height") as number;
  assert.ok(outer >= inner && outer <= inner + 40, `the frame (${outer} px) holds the whole timeline page (${inner} px), no more`);
  const lanes = await frame.evaluate("[...document.querySelectorAll('g.lane')].map((g) => ({ id: g.dataset.lane, bottom: g.getBoundingClientRect().bottom }))") as { id: string; bottom: number }[];
  assert.ok(lanes.some((l) => l.id === 'node:n2'), 'the node lanes are drawn');
  for (const l of lanes) assert.ok(l.bottom <= outer, `lane ${l.id} inside the frame (${l.bottom} ≤ ${outer})`);
  await (await page.$('iframe[data-fit]'))!.screenshot({ path: join(OUT, 'demo-sentinel-failover.png') });
  await page.close();
  assert.match(renderIndex([outcome], 1000), /<p>1 entry, 1 as expected/);
  assert.match(renderIndex([outcome, { ...outcome, name: 'x' }], 1000), /<p>2 entries, 2 as expected/);
});
