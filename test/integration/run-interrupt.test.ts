// test-lane: beside (its servers are its own; it signals its own lockpick and waits for it)
// Ctrl-C (SIGINT) at any moment: exit 130, no stack trace, what was found is kept
// (a violation already seen is written to results.json and said), nothing left running.
// Another signal (SIGTERM, SIGHUP: a CI job cancelled) stores the same and exits 3 (1 with a violation seen).
import { tempDir } from '../support/temp-dir.ts';
import { afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { bin, markedProcesses, repoRoot, runDirs, tempStore } from './run-helpers.ts';
import { readProgress } from '../../src/runner/progress-file.ts';

/** The lockpicks a test started and has not seen exit: a failed test stops its own (its hold lasts minutes). */
const live = new Set<{ child: ChildProcess; exit: Promise<number | null> }>();
afterEach(async () => {
  for (const r of live) {
    r.child.kill('SIGTERM');   // lockpick stops its servers and workers before it exits
    const ended = await Promise.race([r.exit.then(() => true), sleep(20_000).then(() => false)]);
    if (!ended) r.child.kill('SIGKILL');
  }
  live.clear();
});

function start(args: string[]): { child: ChildProcess; out: () => string; exit: Promise<number | null> } {
  const child = spawn(process.execPath, [bin, ...args], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { out += d; });
  // Killed by SIGINT before lockpick's handler was even installed is what a shell reports as 130 too.
  const r = { child, out: () => out, exit: new Promise<number | null>((r) => child.once('exit', (code, signal) => r(code ?? (signal === 'SIGINT' ? 130 : null)))) };
  live.add(r);
  void r.exit.then(() => live.delete(r));
  return r;
}

/** Marks every process this file starts (lockpick passes its environment on to workers, proxies and servers). */
const MARK = `interrupt-${process.pid}-${Date.now()}`;
process.env.LOCKPICK_TEST_MARK = MARK;

/** This checkout's client workers and fault proxies (the sources' or dist/'s), and redis servers in lockpick's private dirs. */
const OURS = new RegExp([
  ...['src/runner/worker', 'src/proxy/server-main'].flatMap((f) => [`${repoRoot}/${f}.ts`, `${repoRoot}/dist/${f}.js`]).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')),
  'redis-server 127\\.0\\.0\\.1.*lockpick-env-',
].join('|'));

/** Ours among the processes carrying this file's mark: another lockpick on the machine (tests beside these, another user) is not. */
const lockpickProcesses = () => markedProcesses(MARK, OURS);

async function until(cond: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

test('Ctrl-C while the servers start: exit 130, no stack trace, nothing left running', async () => {
  const before = new Set(lockpickProcesses());
  const r = start(['run', '--lock', 'redis-set-px-lua', '--first-failure', '--time', '60', '--store', tempStore()]);
  // The first line is printed just before the servers start.
  await until(() => /lockpick run \S+: lock redis-set-px-lua/.test(r.out()), 30_000, 'the first line');
  r.child.kill('SIGINT');
  assert.equal(await r.exit, 130, r.out());
  assert.doesNotMatch(r.out(), /EPIPE|    at |internal error/);
  await sleep(500);
  assert.deepEqual(lockpickProcesses().filter((p) => !before.has(p)), []);
});

// Ctrl-C exits 130; another signal gives the verdict found so far: 1, a violation was seen.
for (const [sig, code] of [['SIGINT', 130], ['SIGTERM', 1]] as const) {
  test(`${sig} after a violation was seen: exit ${code}, the violation is in results.json and said`, async () => {
    const store = tempStore();
    const before = new Set(lockpickProcesses());
    const r = start(['run', '--lock', 'redis-set-px-del', '--faults', 'client-pause', '--pause-at', 'in-critical-section', '--first-failure', '--time', '90', '--shrink-time', '90', '--store', store]);
    await until(() => /[1-9]\d* violations/.test(r.out()), 100_000, 'a violation');
    r.child.kill(sig);
    assert.equal(await r.exit, code, r.out());
    assert.match(r.out(), new RegExp(`INTERRUPTED \\(interrupted by ${sig}\\) after \\d+ run\\(s\\): UNSAFE: a violation was found in the history's run (\\d+) \\(keys r\\1-…; the history counts the calibration run too\\), not shrunk`));
    assert.match(r.out(), /double-holder|stale-release/);
    const [dir] = runDirs(store);
    const results = JSON.parse(readFileSync(path.join(dir!, 'results.json'), 'utf8'));
    assert.equal(results.verdict, false);
    assert.equal(results.interrupted, true);
    assert.equal(results.reason, `interrupted by ${sig}`);
    assert.ok(results.first.check.anomalies.length > 0);
    assert.ok(existsSync(path.join(dir!, 'counterexample', 'history.jsonl')));
    await sleep(500);
    assert.deepEqual(lockpickProcesses().filter((p) => !before.has(p)), []);
  });
}

/** A replay plan whose one client holds k0 for 10 minutes: a signal always lands inside its run. */
function longHold(): string {
  const dir = tempDir('lockpick-plan-');
  writeFileSync(path.join(dir, 'test.json'), JSON.stringify({
    lock_spec: { name: 'redis-set-px-lua' },
    plan: { ttlMs: 800, clients: [{ attempts: [{ key: 'k0', delayMs: 0, waitMs: 300, holdMs: 600_000, renew: false }] }], faults: [] },
  }));
  return dir;
}

/** The history's whole lines (read while lockpick writes it, a last line may be half written). */
const lines = (file: string) => readFileSync(file, 'utf8').split('\n').slice(0, -1).filter((l) => l.trim()).map((l) => JSON.parse(l) as { type: string; f: string; process: unknown; client?: string; value?: { reason?: string } });

for (const [sig, code] of [['SIGTERM', 3], ['SIGHUP', 3], ['SIGINT', 130]] as const) {
  test(`${sig} during a replay: exit ${code}, results.json says "interrupted by ${sig}", the history keeps the hold in flight`, async () => {
    const store = tempStore();
    const before = new Set(lockpickProcesses());
    const r = start(['run', '--replay', longHold(), '--runs', '1', '--store', store]);
    const [dir] = await (async () => { await until(() => runDirs(store).length > 0, 30_000, 'the run dir'); return runDirs(store); })();
    const history = path.join(dir!, 'history.jsonl');
    // Inside the hold: c1's acquire returned ok.
    await until(() => existsSync(history) && lines(history).some((e) => e.f === 'acquire' && e.type === 'ok'), 60_000, "c1's acquire");
    r.child.kill(sig);
    assert.equal(await r.exit, code, r.out());
    assert.doesNotMatch(r.out(), /internal error|    at /);
    assert.match(r.out(), new RegExp(`INTERRUPTED \\(interrupted by ${sig}\\) after 0 complete run\\(s\\)`));
    const results = JSON.parse(readFileSync(path.join(dir!, 'results.json'), 'utf8'));
    assert.equal(results.verdict, 'unknown');
    assert.equal(results.interrupted, true);
    assert.equal(results.reason, `interrupted by ${sig}`);
    assert.match(results.gaps[0], new RegExp(`interrupted by ${sig}`));
    const events = lines(history);
    assert.deepEqual(events.filter((e) => e.process !== 'nemesis').slice(0, 2).map((e) => `${e.type} ${e.f}`), ['invoke acquire', 'ok acquire']);
    assert.ok(events.some((e) => e.f === 'interrupted' && e.value?.reason === `interrupted by ${sig}`), 'the history says why it ends');
    assert.match(readFileSync(path.join(dir!, 'junit.xml'), 'utf8'), /<error type="interrupted"/);
    await sleep(500);
    assert.deepEqual(lockpickProcesses().filter((p) => !before.has(p)), []);
  });
}

test('SIGTERM during a search (--json): exit 3, the summary on stdout and in results.json, every run\'s events kept', async () => {
  const store = tempStore();
  const before = new Set(lockpickProcesses());
  const r = start(['run', '--lock', 'redis-set-px-lua', '--clients', '2', '--first-failure', '--time', '120', '--store', store, '--json']);
  const [dir] = await (async () => { await until(() => runDirs(store).length > 0, 30_000, 'the run dir'); return runDirs(store); })();
  const history = path.join(dir!, 'history.jsonl');
  // Two runs done and counted (progress.jsonl is written as a run is counted: a run-end in the
  // history comes before its check, so under load two run-ends could stand beside one counted run).
  const counted = () => Math.max(0, ...readProgress(dir!).map((l) => l.runs));
  await until(() => existsSync(history) && counted() >= 2, 90_000, 'two runs');
  r.child.kill('SIGTERM');
  assert.equal(await r.exit, 3, r.out());
  const stored = JSON.parse(readFileSync(path.join(dir!, 'results.json'), 'utf8'));
  assert.equal(stored.verdict, 'unknown');
  assert.equal(stored.reason, 'interrupted by SIGTERM');
  assert.ok(stored.runs >= 2, `runs ${stored.runs}`);
  // --json: the same object on stdout (its last line), with the exit code.
  const last = JSON.parse(r.out().trim().split('\n').filter((l) => l.startsWith('{')).pop()!);
  assert.equal(last.reason, 'interrupted by SIGTERM');
  assert.equal(last.exitCode, 3);
  const events = lines(history);
  assert.ok(events.filter((e) => e.f === 'run-end').length >= stored.runs, 'every counted run is in the history');
  assert.ok(events.filter((e) => e.f === 'run-start').length > stored.runs - 1);
  assert.ok(events.some((e) => e.f === 'interrupted'));
  await sleep(500);
  assert.deepEqual(lockpickProcesses().filter((p) => !before.has(p)), []);
});
