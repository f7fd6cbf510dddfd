// test-lane: beside (its servers are its own; its verdicts do not hang on fine timing)
// The library API on real servers: the "Library API" example of docs/library.md, run as
// it is (UNSAFE for the DEL unlock under client pauses, SAFE fault-free for the
// Lua unlock), and a library call that prints nothing and whose abort stops
// every server and client it started before the promise settles.
import { tempDir } from '../support/temp-dir.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot, runDirs } from './run-helpers.ts';

const TSX = import.meta.resolve('tsx');
const ENTRY = pathToFileURL(path.join(repoRoot, 'src/index.ts')).href;

/** The first ```js block of the "Library API" section of docs/library.md (linked from the README). */
function readmeExample(): string {
  const doc = readFileSync(path.join(repoRoot, 'docs', 'library.md'), 'utf8');
  const at = doc.indexOf('\n## Library API\n');
  assert.ok(at >= 0, 'docs/library.md has a "## Library API" section');
  const m = /```js\n([\s\S]*?)```/.exec(doc.slice(at));
  assert.ok(m, 'docs/library.md "Library API" has no ```js example');
  return m[1]!;
}

function node(args: string[], cwd: string, timeoutMs: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    // Without the parent test runner's context, a child `node --test` reports as a user's would.
    const env = { ...process.env };
    delete env.NODE_TEST_CONTEXT;
    const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => { child.kill('SIGTERM'); reject(new Error(`node ${args.join(' ')} took over ${timeoutMs} ms\n${stdout}\n${stderr}`)); }, timeoutMs);
    child.on('exit', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr }); });
  });
}

test('the documented library example runs as a node:test file: UNSAFE for the DEL unlock, SAFE for the Lua unlock', async () => {
  const dir = tempDir('lockpick-api-');
  // The same code; only the package name points at this checkout (the packed-tarball test covers the name itself).
  const code = readmeExample();
  assert.match(code, /from 'lockpick';/);
  writeFileSync(path.join(dir, 'lock.test.mjs'), code.replace(/from 'lockpick';/g, `from '${ENTRY}';`));
  const r = await node(['--import', TSX, '--test', '--test-reporter=spec', 'lock.test.mjs'], dir, 240_000);
  assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
  assert.match(r.stdout, /✔ SET NX PX \+ plain DEL unlock is unsafe under client pauses/);
  assert.match(r.stdout, /✔ SET NX PX \+ Lua unlock is safe without faults/);
  assert.match(r.stdout, /ℹ pass 2\n[\s\S]*ℹ fail 0/);
});

// Runs in its own process so its stdout and stderr are the library's alone. It
// reports through a file: every process it started, alive or not, once each call settled.
const SCRIPT = (api: string, out: string, memoryLock: string) => `
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { runLockTest } from '${api}';

/** Live (not zombie) descendants of this process, with their command lines. */
function descendants() {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid=,stat=,args='], { encoding: 'utf8' }).split('\\n').filter(Boolean)
    .map((l) => { const [pid, ppid, stat, ...args] = l.trim().split(/\\s+/); return { pid: +pid, ppid: +ppid, stat, args: args.join(' ') }; });
  const mine = new Set([process.pid]);
  for (let grew = true; grew;) { grew = false; for (const r of rows) if (mine.has(r.ppid) && !mine.has(r.pid)) { mine.add(r.pid); grew = true; } }
  return rows.filter((r) => r.pid !== process.pid && mine.has(r.pid) && !r.stat.startsWith('Z') && !r.args.startsWith('ps ') && !/esbuild --service/.test(r.args));   // esbuild: tsx's own, not lockpick's
}

const report = {};
const progress = [];
const log = [];
const done = await runLockTest({ lock: 'redis-set-px-lua', clients: 3, timeMs: 4000, store: process.argv[2], onProgress: (e) => progress.push(e), log: (l) => log.push(l) });
report.done = { exitCode: done.exitCode, runs: done.runs, junit: done.junit, progress: progress.length, lastRuns: progress.at(-1)?.runs, log: log.join('\\n'), left: descendants() };

// A lock that grants every acquire: a double holder at once, its timeline page in the language asked for.
const zh = await runLockTest({ lock: '${memoryLock}', clients: 2, timeMs: 30_000, shrinkTimeMs: 2000, firstFailure: true, lang: 'zh', store: process.argv[2] });
report.zh = { exitCode: zh.exitCode, dir: zh.dir };

const ac = new AbortController();
let during = [];
const t0 = Date.now();
try {
  await runLockTest({
    lock: 'redis-set-px-lua', clients: 3, timeMs: 120_000, store: process.argv[2], signal: ac.signal,
    onProgress: () => { if (!ac.signal.aborted) { during = descendants(); ac.abort(); } },
  });
  report.aborted = { resolved: true };
} catch (e) {
  report.aborted = { name: e.name, message: e.message, ms: Date.now() - t0, during, left: descendants() };
}
writeFileSync('${out}', JSON.stringify(report));
`;

test('a library call prints nothing; an abort stops the servers and clients before the promise rejects', async () => {
  const dir = tempDir('lockpick-api-');
  const out = path.join(dir, 'report.json');
  const store = tempDir('lockpick-store-');
  writeFileSync(path.join(dir, 'script.mjs'), SCRIPT(pathToFileURL(path.join(repoRoot, 'src/api.ts')).href, out, path.join(repoRoot, 'test/fixtures/locks/memory.ts')));
  const r = await node(['--import', TSX, 'script.mjs', store], dir, 200_000);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, '', 'the library wrote to stdout');
  assert.equal(r.stderr, '', 'the library wrote to stderr');
  const rep = JSON.parse(readFileSync(out, 'utf8'));

  // A finished call: progress and the report came through the callbacks, nothing left running.
  assert.ok([0, 3].includes(rep.done.exitCode), JSON.stringify(rep.done));
  assert.ok(rep.done.progress >= 1 && rep.done.lastRuns === rep.done.runs, JSON.stringify(rep.done));
  assert.match(rep.done.log, /^lockpick run \S+: lock redis-set-px-lua/);
  assert.match(rep.done.log, /\n(SAFE so far|INCONCLUSIVE)/);
  assert.match(readFileSync(rep.done.junit, 'utf8'), /<testsuite name="lockpick run redis-set-px-lua"/);
  assert.deepEqual(rep.done.left, []);
  // lang: the counterexample's timeline speaks Chinese ('zh' taken for zh-CN).
  assert.equal(rep.zh.exitCode, 1, JSON.stringify(rep.zh));
  assert.match(readFileSync(path.join(rep.zh.dir, 'counterexample', 'timeline.html'), 'utf8'), /<html lang="zh-CN">/);

  // The aborted call: it had servers and clients running, none is left once it rejected.
  assert.equal(rep.aborted.name, 'AbortError', JSON.stringify(rep.aborted));
  const during = rep.aborted.during as { args: string }[];
  assert.ok(during.some((p) => /redis-server/.test(p.args)), `no redis-server ran during the call: ${JSON.stringify(during)}`);
  assert.ok(during.some((p) => /worker\.ts/.test(p.args)), 'no client worker ran during the call');
  assert.deepEqual(rep.aborted.left, [], 'processes of the aborted run still alive after it rejected');
  assert.ok(rep.aborted.ms < 60_000, `the abort took ${rep.aborted.ms} ms`);
  // What was found is stored, marked interrupted.
  const runDir = (rep.done.junit as string).replace(/\/junit\.xml$/, '');
  const aborted = runDirs(store).find((d) => d !== runDir && d !== rep.zh.dir)!;
  assert.equal(JSON.parse(readFileSync(path.join(aborted, 'results.json'), 'utf8')).interrupted, true);
  assert.match(readFileSync(path.join(aborted, 'junit.xml'), 'utf8'), /<error type="interrupted"/);
});
