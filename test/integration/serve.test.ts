// test-lane: beside (its servers are its own, on free ports; verdicts wait on what the page shows, not on timing)
// `lockpick serve` as a user sees it: a store made by real runs on local servers (a safe run,
// two shards of an unsafe search and their merge), served; Debian's Chromium (puppeteer-core)
// opens the index, sees each verdict, opens the unsafe run's timeline, starts a catalogue entry
// from the course page and sees its verdict arrive live; the same pages in zh-CN. Then the
// refusals over real HTTP (no token, a foreign Host, a cross-site change, paths out of the
// store), a store that is not one (exit 2), and Ctrl-C during a course run leaving nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { bin, lockpick, markedProcesses, repoRoot, runDirs, tempStore } from './run-helpers.ts';
import { tempDir } from '../support/temp-dir.ts';
import { filesPrefix } from '../../src/serve/guard.ts';

const CHROMIUM = process.env.LOCKPICK_CHROMIUM ?? '/usr/bin/chromium';
const SHOTS = process.env.LOCKPICK_SERVE_SHOTS ?? tempDir('lockpick-serve-shots-');
const NO_ENGINE = { CI_NODE_INDEX: '', CI_NODE_TOTAL: '', BUILDKITE_PARALLEL_JOB: '', BUILDKITE_PARALLEL_JOB_COUNT: '', JOB_COMPLETION_INDEX: '', LOCKPICK_SHARD_TOTAL: '' };
const MARK = `serve-${process.pid}`;
/** The catalogue entry run from the page: a Redis lock broken by a client pause. */
const ENTRY = 'set-px-del-pause';

let puppeteer: typeof import('puppeteer-core').default | undefined;
let skip: string | false = false;
if (!existsSync(CHROMIUM)) skip = `Chromium not found at ${CHROMIUM} (bash scripts/setup.sh installs it): the browser test skipped`;
else try { puppeteer = (await import('puppeteer-core')).default; } catch (e) { skip = `puppeteer-core cannot be loaded (${(e as Error).message})`; }
if (skip) console.log(skip);

const store = tempStore();
let serve: ChildProcess | undefined;
let url = '';
let port = 0;
let browser: Browser | undefined;

function startServe(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [bin, 'serve', ...args], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LOCKPICK_TEST_MARK: MARK, ...env } });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr!.on('data', (d) => { err += d; });
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]+/.exec(out);
      if (m) resolve({ child, url: m[0] });
    });
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${out}${err}`)));
  });
}

before(async () => {
  // Runs counted, not timed (a loaded machine runs fewer in a budget). A safe run (no faults, 8 clients contend) and an unsafe search in two shards, merged into the store.
  const shard = ['run', '--lock', 'redis-set-px-del', '--faults', 'client-pause', '--runs', '6', '--time', '90', '--shrink-time', '2', '--seed', '11', '--store', store, '--json'];
  const [safe, s1, s2] = await Promise.all([
    lockpick(['run', '--lock', 'redis-set-px-lua', '--clients', '8', '--runs', '3', '--time', '90', '--store', store, '--json']),
    lockpick([...shard, '--shard', '1/2'], 150_000, NO_ENGINE),
    lockpick([...shard, '--shard', '2/2'], 150_000, NO_ENGINE),
  ]);
  assert.equal(safe.code, 0, safe.stderr.slice(-2000));
  assert.ok(s1.code === 1 || s2.code === 1, `no shard found the DEL unlock's violation: ${s1.code}, ${s2.code}`);
  const m = await lockpick(['merge', path.join(store, 'redis-set-px-del'), '--out', path.join(store, 'merged'), '--json'], 30_000);
  assert.equal(m.code, 1, m.stderr);
  ({ child: serve, url } = await startServe(['--store', store, '--port', '0']));
  port = Number(new URL(url).port);
  if (puppeteer) {
    browser = await puppeteer.launch({
      executablePath: CHROMIUM, headless: true, timeout: 90_000, protocolTimeout: 300_000,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', `--user-data-dir=${tempDir('lockpick-chromium-')}`],
    });
  }
});
after(async () => {
  await browser?.close();
  if (serve && serve.exitCode === null) { serve.kill('SIGTERM'); await new Promise((r) => serve!.once('exit', r)); }
});

/** Waits for `selector` by polling on a timer (waitForSelector's default polls on animation frames, which a tab in the background does not get). */
async function until(page: Page, selector: string, timeout = 30_000): Promise<void> {
  await page.waitForFunction(`!!document.querySelector(${JSON.stringify(selector)})`, { polling: 250, timeout });
}

/** A GET or POST with the headers given (Host included: fetch cannot set it). */
function http(pathname: string, headers: Record<string, string>, method = 'GET', body = ''): Promise<{ status: number; text: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: pathname, method, headers, setHost: false }, (res) => {
      let text = '';
      res.on('data', (d) => { text += d; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

test('the browser: every verdict on the index, the unsafe run\'s timeline, a catalogue entry run from the page, live; the same in zh-CN', { skip }, async () => {
  const page = await browser!.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('requestfailed', (r) => { if (!r.url().endsWith('/events')) errors.push(`request failed: ${r.url()}`); });
  await page.setViewport({ width: 1300, height: 900 });
  await page.goto(url);
  assert.ok(!page.url().includes('token='), 'the token leaves the address bar for the cookie');
  await page.waitForSelector('html[data-ready="1"]');
  await page.waitForSelector('tr[data-kind="merged"]');
  const rows = await page.$$eval('#rows tr', (trs) => trs.map((tr) => ({ id: tr.getAttribute('data-id'), kind: tr.getAttribute('data-kind'), verdict: tr.querySelector('[data-verdict]')!.getAttribute('data-verdict'), text: tr.textContent })));
  const safe = rows.find((r) => r.text!.includes('redis-set-px-lua'));
  assert.equal(safe?.verdict, 'SAFE', JSON.stringify(rows));
  assert.equal(rows.find((r) => r.kind === 'merged')?.verdict, 'UNSAFE');
  const unsafe = rows.find((r) => r.kind === 'run' && r.verdict === 'UNSAFE');
  assert.ok(unsafe, `an unsafe shard on the index: ${JSON.stringify(rows)}`);
  assert.equal(rows.filter((r) => r.kind === 'run').length, runDirs(store).length, 'every run dir listed');
  await page.screenshot({ path: path.join(SHOTS, 'serve-index.png') });

  // Two runs picked on the index and compared side by side: each column its own verdict.
  await page.click(`tr[data-id="${safe!.id}"] input.pick`);
  await page.click(`tr[data-id="${unsafe!.id}"] input.pick`);
  await Promise.all([page.waitForNavigation(), page.click('#cmp')]);
  await page.waitForSelector('html[data-ready="1"]');
  const sides = await page.$$eval('[data-side]', (ds) => ds.map((d) => [d.getAttribute('data-side'), d.querySelector('[data-verdict]')?.getAttribute('data-verdict')]));
  assert.deepEqual(Object.fromEntries(sides), { [safe!.id!]: 'SAFE', [unsafe!.id!]: 'UNSAFE' });
  await page.screenshot({ path: path.join(SHOTS, 'serve-compare.png') });
  // The merged shard set's page: its verdict and each shard's, every shard linked to its run.
  await page.goto(url);
  await page.waitForSelector('tr[data-kind="merged"] a');
  await Promise.all([page.waitForNavigation(), page.click('tr[data-kind="merged"] a')]);
  await page.waitForSelector('html[data-ready="1"]');
  assert.equal(await page.$eval('[data-verdict]', (e) => e.getAttribute('data-verdict')), 'UNSAFE');
  const shardRows = await page.$$eval('table tr', (trs) => trs.map((tr) => [tr.querySelector('[data-verdict]')?.getAttribute('data-verdict'), tr.querySelector('a')?.getAttribute('href') ?? '']));
  assert.equal(shardRows.length, 2, JSON.stringify(shardRows));
  assert.ok(shardRows.some(([v]) => v === 'UNSAFE') && shardRows.every(([, href]) => href.startsWith('/run/')), JSON.stringify(shardRows));
  await page.screenshot({ path: path.join(SHOTS, 'serve-merged.png') });
  await page.goto(url);
  await page.waitForSelector('html[data-ready="1"]');

  // Its run page, then its timeline (the file lockpick wrote, served from the store).
  await page.click(`tr[data-id="${unsafe!.id}"] a`);
  await page.waitForSelector('html[data-ready="1"]');
  const href = await page.$eval('[data-counterexample="counterexample"] a[data-timeline]', (a) => (a as unknown as { href: string }).href);
  // The failure's anomaly types, named in the page's language.
  assert.match(await page.$eval('[data-counterexample="counterexample"] .atypes', (e) => e.textContent ?? ''), /^[a-z -]+(; [a-z -]+)*$/);
  await page.screenshot({ path: path.join(SHOTS, 'serve-run.png') });
  await page.goto(href);
  await page.waitForSelector('html[data-ready="1"]', { timeout: 20_000 });
  assert.ok(await page.$('svg.tl'), 'the timeline is drawn');

  // The course: one entry started from its page; its verdict arrives by the event stream, no
  // reload, there and on the index open beside it, where its replay shows as a running row first.
  const index = await browser!.newPage();
  await index.setViewport({ width: 1300, height: 700 });
  await index.goto(new URL('/', url).href);
  await index.waitForSelector('html[data-ready="1"]');
  await index.evaluate('window.marker = 1');
  await page.bringToFront();   // a click needs the tab in front; the index goes on in the background
  await page.goto(new URL('/course', url).href);
  await page.waitForSelector('html[data-ready="1"]');
  await page.evaluate('window.marker = 1');
  await page.click(`button[data-start="${ENTRY}"]`);
  await until(page, `.live[data-course="${ENTRY}"][data-status="running"]`);
  await until(index, '#live .live[data-live^="course/"] [data-verdict="RUNNING"]', 120_000);
  await index.screenshot({ path: path.join(SHOTS, 'serve-live.png') });
  await until(page, `.live[data-course="${ENTRY}"][data-status="done"] [data-verdict]`, 240_000);
  assert.equal(await page.$eval('.live [data-verdict]', (e) => e.getAttribute('data-verdict')), 'UNSAFE');
  // Its page, written by the run, shown framed from the store.
  const frame = await (await page.waitForSelector(`iframe[src$="/course/${ENTRY}.html"]`))!.contentFrame();
  await frame!.waitForSelector('[data-verdict="UNSAFE"][class~="verdict"]', { timeout: 20_000 });
  await until(index, 'tr[data-id^="course/runs/"] [data-verdict="UNSAFE"]');
  for (const p of [page, index]) assert.equal(await p.evaluate('window.marker'), 1, 'the same pages: no reload');
  await page.screenshot({ path: path.join(SHOTS, 'serve-course.png') });
  await index.close();

  // zh-CN: chosen on the page, then kept.
  await page.goto(new URL('/?lang=zh-CN', url).href);
  await page.waitForSelector('html[data-ready="1"]');
  assert.equal(await page.$eval('html', (h) => h.lang), 'zh-CN');
  assert.match(await page.$eval('h1', (h) => h.textContent ?? ''), /本结果库中的测试运行/);
  assert.ok((await page.$$eval('[data-verdict="UNSAFE"]', (els) => els.map((e) => e.textContent))).includes('不安全'));
  await page.screenshot({ path: path.join(SHOTS, 'serve-index-zh-CN.png') });
  await page.click(`tr[data-id="${unsafe!.id}"] a`);
  await page.waitForSelector('html[data-ready="1"]');
  assert.match(await page.$eval('[data-counterexample="counterexample"] .atypes', (e) => e.textContent ?? ''), /^[\u4e00-\u9fff]+：[\u4e00-\u9fff，、]+(; |$)/, 'the anomaly types in Chinese');
  await page.screenshot({ path: path.join(SHOTS, 'serve-run-zh-CN.png') });
  await page.goto(new URL('/course', url).href);
  await page.waitForSelector('html[data-ready="1"]');
  assert.match(await page.$eval('h1', (h) => h.textContent ?? ''), /分布式锁/);
  assert.deepEqual(errors, []);
  console.log(`serve screenshots: ${SHOTS}`);
});

test('refused: no token, a foreign Host, a cross-site change, paths out of the store', async () => {
  const token = new URL(url).searchParams.get('token')!;
  const host = `127.0.0.1:${port}`;
  const cookie = `lockpick_token_${port}=${token}`;
  assert.equal((await http('/', { host })).status, 403, 'no token');
  assert.equal((await http(`/?token=${'0'.repeat(token.length)}`, { host })).status, 403, 'a wrong token');
  assert.equal((await http(`/?token=${token}`, { host: 'evil.example' })).status, 403, 'DNS rebinding: Host evil.example');
  assert.equal((await http('/', { host: `evil.example:${port}`, cookie })).status, 403);
  const ok = await http(`/?token=${token}`, { host });
  assert.equal(ok.status, 303);
  assert.match(String(ok.headers['set-cookie']), /HttpOnly; SameSite=Strict/);
  assert.equal((await http('/', { host: `localhost:${port}`, cookie })).status, 200);
  const start = JSON.stringify({ name: ENTRY });
  assert.equal((await http('/api/course/start', { host, cookie, 'content-type': 'application/json', origin: 'http://evil.example' }, 'POST', start)).status, 403);
  assert.equal((await http('/api/course/start', { host, cookie, 'content-type': 'application/json', origin: `http://${host}`, 'sec-fetch-site': 'cross-site' }, 'POST', start)).status, 403);
  assert.equal((await http('/api/course/start', { host, cookie, 'content-type': 'application/json' }, 'POST', start)).status, 403, 'no Origin');
  // Paths: a symlink out of the store, encoded and plain ..
  const outside = tempDir('lockpick-serve-outside-');
  writeFileSync(path.join(outside, 'secret.txt'), 'secret');
  symlinkSync(outside, path.join(store, 'out'));
  const files = filesPrefix(token);
  for (const p of [`${files}/..%2f..%2f..%2fetc%2fpasswd`, `${files}/..%5c..%5cetc%5cpasswd`, `${files}/out/secret.txt`, '/run/..%2f..%2fetc', '/api/history/..%2f..%2f']) {
    const r = await http(p, { host, cookie });
    assert.equal(r.status, 403, `${p}: ${r.status} ${r.text}`);
    assert.ok(!r.text.includes('secret') && !r.text.includes('root:'), p);
  }
  for (const p of [`${files}/../../etc/passwd`, `${files}/%2e%2e/%2e%2e/etc/passwd`]) {
    const r = await http(p, { host, cookie });
    assert.equal(r.status, 404, `${p}: a plain or %2e .. is resolved by the URL parser first, to a page that does not exist`);
    assert.ok(!r.text.includes('root:'), p);
  }
  const rel = `${runDirs(store)[0]!.slice(store.length + 1)}/test.json`;
  const inside = await http(`${files}/${rel}`, { host });
  assert.equal(inside.status, 200, 'a store file by its capability path, no cookie (a sandboxed frame sends none)');
  assert.equal((await http(`/files/${'0'.repeat(32)}/${rel}`, { host })).status, 403, 'another key, no token');
  assert.equal((await http(`${files}/${rel}`, { host: 'evil.example' })).status, 403, 'the Host is checked first');
  assert.match(String(inside.headers['content-security-policy']), /sandbox/, 'store files run sandboxed');
});

test('a store that is not one: exit 2 with the fix', async () => {
  const run = runDirs(store)[0]!;
  const notStore = tempDir('lockpick-serve-notstore-');
  mkdirSync(path.join(notStore, 'src'));
  writeFileSync(path.join(notStore, 'notes.txt'), 'x');
  for (const [dir, why] of [[notStore, /not a lockpick store/], [run, /is one run directory/], [path.join(store, 'nope'), /no such directory/], [path.join(run, 'test.json'), /not a directory/]] as const) {
    const r = await lockpick(['serve', '--store', dir, '--port', '0'], 30_000);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, why);
    assert.match(r.stderr, /fix:/);
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  }
});

/** A process's command line ('' once it is gone). */
function cmdline(pid: number): string {
  try { return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' '); } catch { return ''; }
}

/** Every process below `roots` (by their parent pids in /proc). */
function descendants(roots: number[]): number[] {
  const children = new Map<number, number[]>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const ppid = Number(readFileSync(`/proc/${d}/stat`, 'utf8').replace(/^.*\) \S+ /s, '').split(' ')[0]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(d)]);
    } catch { /* gone meanwhile */ }
  }
  const out: number[] = [];
  const todo = [...roots];
  while (todo.length) for (const c of children.get(todo.pop()!) ?? []) { out.push(c); todo.push(c); }
  return out;
}

/**
 * A serve of its own (processes marked `${MARK}-${suffix}`) with catalogue entry `entry` started
 * from its API, once that entry's servers are up: the servers seen then are kept (a look a
 * moment later can fall between two sessions of the entry). A redis-server or sentinel rewrites
 * its title over its environment (where the mark is), so they are found as descendants of the
 * marked processes.
 */
async function serveWithCourseRunning(suffix: string, entry: string) {
  const mark = `${MARK}-${suffix}`;
  const s = await startServe(['--store', tempStore(), '--port', '0'], { LOCKPICK_TEST_MARK: mark });
  const p = Number(new URL(s.url).port);
  const token = new URL(s.url).searchParams.get('token')!;
  const headers = { host: `127.0.0.1:${p}`, cookie: `lockpick_token_${p}=${token}`, origin: `http://127.0.0.1:${p}`, 'content-type': 'application/json' };
  const exited = new Promise<number | null>((r) => s.child.once('exit', (code) => r(code)));
  const marked = () => markedProcesses(mark, /./);
  const cleanUp = async () => {
    // Whatever failed, nothing of the test outlives it (a serve left running holds the test file open).
    if (s.child.exitCode === null && s.child.signalCode === null) { s.child.kill('SIGKILL'); await exited; }
    for (const pid of marked()) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
  };
  try {
    const started = await new Promise<number>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: p, path: '/api/course/start', method: 'POST', headers, setHost: false }, (res) => { res.resume(); resolve(res.statusCode ?? 0); });
      req.on('error', reject);
      req.end(JSON.stringify({ name: entry }));
    });
    assert.equal(started, 200);
    const servers = () => descendants(marked()).filter((pid) => /redis-(server|sentinel)/.test(cmdline(pid)));
    let seen: number[] = [];
    for (let i = 0; i < 1200 && (seen = servers()).length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    const course = await fetch(`http://127.0.0.1:${p}/api/course`, { headers }).then((r) => r.text()).catch((e: unknown) => String(e));
    assert.ok(seen.length > 0, `the course run started its servers (the course: ${course.slice(0, 600)})`);
    const stillUp = () => seen.filter((pid) => existsSync(`/proc/${pid}`) && /redis-(server|sentinel)/.test(cmdline(pid)));
    return { child: s.child, exited, marked, stillUp, cleanUp };
  } catch (e) {
    await cleanUp();
    throw e;
  }
}

test('Ctrl-C with a catalogue run in progress stops everything it started', async () => {
  const c = await serveWithCourseRunning('stop', ENTRY);
  try {
    c.child.kill('SIGINT');
    assert.equal(await c.exited, 0);
    assert.deepEqual(c.marked(), [], 'nothing left running');
    assert.deepEqual(c.stillUp(), [], 'its servers stopped too');
  } finally {
    await c.cleanUp();
  }
});

/** An entry that runs long (a Sentinel failover, about 27 s): a run that stops is told from one that finished. */
const LONG_ENTRY = 'sentinel-failover';

test('serve killed outright (SIGKILL) with a catalogue run in progress: the run stops itself and its servers', async () => {
  const c = await serveWithCourseRunning('kill', LONG_ENTRY);
  try {
    // No handler runs on SIGKILL: serve cannot stop its course run; the run sees its channel close.
    c.child.kill('SIGKILL');
    await c.exited;
    const alive = () => [...c.marked(), ...c.stillUp()];
    // Within 12 s: the entry alone runs about 27 s (its failover), so it must have stopped, not finished.
    for (let i = 0; i < 120 && alive().length > 0; i++) await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(alive(), [], 'the course run and its servers stopped within 12 s of serve\'s death');
  } finally {
    await c.cleanUp();
  }
});
