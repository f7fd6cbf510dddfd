// test-lane: beside (its servers are its own; its verdicts do not hang on fine timing)
// A lock module's own output and processes (issue 21): what it prints goes to
// store/<run>/clients/<id>.log, never to lockpick's stdout/stderr (so a reader that closes
// lockpick's stdout early, `| head -c 2000`, cannot kill a client with EPIPE and change the
// verdict), and what it starts (even detached, in its own session) dies with its client.
import { tempDir } from '../support/temp-dir.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bin, repoRoot, runDirs, tempStore } from './run-helpers.ts';
import { isRunning } from '../../src/env/procfs.ts';

/** A fault-free plan: c2 asks for k0 while c1 holds it (contended), so a correct lock is SAFE. */
function planDir(fixture: string): string {
  const dir = tempDir('lockpick-plan-');
  const attempt = (delayMs: number, holdMs: number) => ({ key: 'k0', delayMs, waitMs: 3000, holdMs, renew: false });
  writeFileSync(path.join(dir, 'test.json'), JSON.stringify({
    lock_spec: { path: path.join(repoRoot, 'test/fixtures/locks', `${fixture}.ts`) },
    plan: { ttlMs: 2000, clients: [{ attempts: [attempt(0, 400)] }, { attempts: [attempt(100, 50)] }], faults: [] },
  }));
  return dir;
}

/** Runs lockpick, reading only the first `readBytes` of its stdout before closing it (like `| head -c N`). */
function run(args: string[], readBytes: number, env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; head: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let head = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      head += d.toString();
      if (head.length >= readBytes) { head = head.slice(0, readBytes); child.stdout.destroy(); }
    });
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    child.on('exit', (code) => resolve({ code, head, stderr }));
  });
}

test('a lock module that prints a lot: same SAFE verdict with stdout closed early; its output is in clients/<id>.log', async () => {
  const store = tempStore();
  const r = await run(['run', '--replay', planDir('noisy'), '--runs', '1', '--store', store], 300);
  assert.equal(r.code, 0, r.stderr.slice(0, 2000));
  assert.doesNotMatch(r.head + r.stderr, /noise/);
  const [runDir] = readdirSync(store);
  const logs = readdirSync(path.join(store, runDir!, 'clients'));
  assert.ok(logs.includes('c1.log') && logs.includes('c2.log'), logs.join(' '));
  for (const l of logs) assert.match(readFileSync(path.join(store, runDir!, 'clients', l), 'utf8'), /noise/);
  // Named in the report, with a reader that keeps reading.
  const full = await run(['run', '--replay', planDir('noisy'), '--runs', '1', '--store', store], Infinity);
  assert.equal(full.code, 0, full.stderr.slice(0, 2000));
  assert.match(full.head, /client output \(what the lock's own code printed\): \S+clients\/c1\.log \(\d+ KB\)/);
  // results.json and `lockpick report` name them too, each with its size.
  const dir = runDirs(store).pop()!;
  const results = JSON.parse(readFileSync(path.join(dir, 'results.json'), 'utf8')) as { client_logs: { file: string; bytes: number }[] };
  assert.deepEqual(results.client_logs.map((l) => l.file).sort(), ['clients/c1.log', 'clients/c2.log']);
  for (const l of results.client_logs) assert.equal(l.bytes, statSync(path.join(dir, l.file)).size);
  const text = await run(['report', dir, '--format', 'text'], Infinity);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.head, /client output \(what the lock's own code printed\): \S+clients\/c1\.log \(\d+ KB\), \S+clients\/c2\.log/);
  const json = await run(['report', dir, '--format', 'json'], Infinity);
  assert.deepEqual((JSON.parse(json.head) as typeof results).client_logs, results.client_logs);
});

test('a quiet lock module: no client log is named', async () => {
  const store = tempStore();
  const r = await run(['run', '--replay', planDir('lua-unlock'), '--runs', '1', '--store', store], Infinity);
  assert.equal(r.code, 0, r.stderr.slice(0, 2000));
  assert.doesNotMatch(r.head, /client output/);
  const [dir] = runDirs(store);
  assert.deepEqual(JSON.parse(readFileSync(path.join(dir!, 'results.json'), 'utf8')).client_logs, []);
});

test('a detached child a lock module started dies with its client', async () => {
  const pids = tempDir('lockpick-pids-');
  mkdirSync(pids, { recursive: true });
  const r = await run(['run', '--replay', planDir('spawner'), '--runs', '1', '--store', tempStore()], Infinity, { LOCKPICK_TEST_PID_DIR: pids });
  assert.equal(r.code, 0, r.stderr);
  const started = readdirSync(pids).map((f) => Number(f.replace('.pid', '')));
  assert.ok(started.length >= 2, `the fixture started ${started.length} children`);
  for (const pid of started) {
    const alive = isRunning(pid);
    if (alive) try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
    assert.equal(alive, false, `sleep ${pid} (started by the lock module) outlived the run`);
  }
  assert.ok(statSync(pids).isDirectory());
});

test('an acquire that never returns is named as such when the client is killed at the end of the run', async () => {
  const dir = tempDir('lockpick-plan-');
  writeFileSync(path.join(dir, 'test.json'), JSON.stringify({
    lock_spec: { path: path.join(repoRoot, 'test/fixtures/locks/hangs.ts') },
    plan: { ttlMs: 500, clients: [{ attempts: [{ key: 'k0', delayMs: 0, waitMs: 300, holdMs: 0, renew: false }] }], faults: [] },
  }));
  const r = await run(['run', '--replay', dir, '--runs', '1', '--store', tempStore()], Infinity);
  assert.equal(r.code, 3, r.head + r.stderr);
  assert.match(r.head, /client c1's acquire never returned within N ms \(killed at the end of the run\)/);
});
