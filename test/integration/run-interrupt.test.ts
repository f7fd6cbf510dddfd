// Ctrl-C (SIGINT) at any moment: exit 130, no stack trace, what was found is kept
// (a violation already seen is written to results.json and said), nothing left running.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { bin, repoRoot, runDirs, tempStore } from './run-helpers.ts';

function start(args: string[]): { child: ChildProcess; out: () => string; exit: Promise<number | null> } {
  const child = spawn(process.execPath, [bin, ...args], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { out += d; });
  // Killed by SIGINT before lockpick's handler was even installed is what a shell reports as 130 too.
  return { child, out: () => out, exit: new Promise((r) => child.once('exit', (code, signal) => r(code ?? (signal === 'SIGINT' ? 130 : null)))) };
}

/** Marks every process this file starts (lockpick passes its environment on to workers, proxies and servers). */
const MARK = `LOCKPICK_TEST_MARK=interrupt-${process.pid}-${Date.now()}`;
process.env.LOCKPICK_TEST_MARK = MARK.slice(MARK.indexOf('=') + 1);

/**
 * This checkout's client workers and fault proxies, and redis servers in lockpick's private
 * dirs, by command line, among the processes carrying this file's mark: another lockpick on the
 * machine (other tests running beside these, another user) is not ours.
 */
function lockpickProcesses(): number[] {
  // The sources' or, after `npm run build`, dist/'s (bin/lockpick.mjs runs a fresh dist/).
  const ours = ['src/runner/worker', 'src/proxy/server-main'].flatMap((f) => [`${repoRoot}/${f}.ts`, `${repoRoot}/dist/${f}.js`]);
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d) || Number(d) === process.pid) continue;
    let cmd = '';
    try {
      if (!readFileSync(`/proc/${d}/environ`, 'utf8').split('\0').includes(MARK)) continue;
      cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8').replace(/\0/g, ' ');
    } catch { continue; }
    if (ours.some((p) => cmd.includes(p)) || /redis-server 127\.0\.0\.1.*lockpick-env-/.test(cmd)) out.push(Number(d));
  }
  return out;
}

async function until(cond: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

test('Ctrl-C while the servers start: exit 130, no stack trace, nothing left running', async () => {
  const before = new Set(lockpickProcesses());
  const r = start(['run', '--lock', 'redis-set-px-lua', '--time', '60', '--store', tempStore()]);
  // The first line is printed just before the servers start.
  await until(() => /lockpick run \S+: lock redis-set-px-lua/.test(r.out()), 30_000, 'the first line');
  r.child.kill('SIGINT');
  assert.equal(await r.exit, 130, r.out());
  assert.doesNotMatch(r.out(), /EPIPE|    at |internal error/);
  await sleep(500);
  assert.deepEqual(lockpickProcesses().filter((p) => !before.has(p)), []);
});

test('Ctrl-C after a violation was seen: exit 130, the violation is in results.json and said', async () => {
  const store = tempStore();
  const before = new Set(lockpickProcesses());
  const r = start(['run', '--lock', 'redis-set-px-del', '--faults', 'client-pause', '--pause-at', 'in-critical-section', '--time', '90', '--shrink-time', '90', '--store', store]);
  await until(() => /[1-9]\d* violations/.test(r.out()), 100_000, 'a violation');
  r.child.kill('SIGINT');
  assert.equal(await r.exit, 130, r.out());
  assert.match(r.out(), /INTERRUPTED after \d+ run\(s\): UNSAFE: a violation was found in run \d+ \(not shrunk\)/);
  assert.match(r.out(), /double-holder|stale-release/);
  const [dir] = runDirs(store);
  const results = JSON.parse(readFileSync(path.join(dir!, 'results.json'), 'utf8'));
  assert.equal(results.verdict, false);
  assert.equal(results.interrupted, true);
  assert.ok(results.first.check.anomalies.length > 0);
  assert.ok(existsSync(path.join(dir!, 'counterexample', 'history.jsonl')));
  await sleep(500);
  assert.deepEqual(lockpickProcesses().filter((p) => !before.has(p)), []);
});
