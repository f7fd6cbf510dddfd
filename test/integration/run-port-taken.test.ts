// test-lane: beside (its servers are its own; its verdicts do not hang on fine timing)
// A server's port taken by another process while the server is down for a restart
// (`--faults kill --restart-delay 1500`): the run ends inconclusive at once with the reason
// (exit 3), never an internal error (exit 4) after minutes of waiting (issue 21).
import { tempDir } from '../support/temp-dir.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { bin, repoRoot, runDirs, tempStore } from './run-helpers.ts';

function parentOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch { return 0; }
}

/** Ports of the redis-servers descending from `root` (redis titles itself "redis-server 127.0.0.1:PORT"). */
function redisPorts(root: number): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      let p = parentOf(Number(d));
      for (let i = 0; i < 4 && p > 1 && p !== root; i++) p = parentOf(p);
      if (p !== root) continue;
      const m = /redis-server 127\.0\.0\.1:(\d+)/.exec(readFileSync(`/proc/${d}/cmdline`, 'utf8'));
      if (m) out.push(Number(m[1]));
    } catch { /* gone */ }
  }
  return out;
}

/**
 * Runs lockpick with `args` and, the moment one of its redis-servers is killed by a fault, takes
 * that server's port (a listener of another process's kind). Resolves with the exit code and output.
 */
async function runSquattingKilledPort(args: string[]): Promise<{ code: number | null; out: string; squatted: boolean }> {
  const child = spawn(process.execPath, [bin, ...args], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr.on('data', (d: Buffer) => { out += d.toString(); });
  const exit = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  let exited = false;
  void exit.then(() => { exited = true; });
  // Wait for the servers, then for one of them to be killed by the fault, and take its port.
  let ports: number[] = [];
  while (!exited && ports.length < 2) { ports = redisPorts(child.pid!); await new Promise((r) => setTimeout(r, 50)); }
  let squatter: net.Server | undefined;
  while (!exited && !squatter) {
    const gone = ports.find((p) => !redisPorts(child.pid!).includes(p));
    if (gone !== undefined) {
      const s = net.createServer((c) => c.destroy());
      const ok = await new Promise<boolean>((r) => { s.once('error', () => r(false)); s.listen(gone, '127.0.0.1', () => r(true)); });
      if (ok) squatter = s;
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  const code = await exit;
  squatter?.close();
  return { code, out, squatted: squatter !== undefined };
}

test('a port taken during a delayed restart ends the search inconclusive at once (exit 3), naming the cause', async () => {
  const t0 = Date.now();
  const { code, out, squatted } = await runSquattingKilledPort(['run', '--lock', 'redis-set-px-lua', '--faults', 'kill', '--restart-delay', '1500', '--first-failure', '--time', '60', '--shrink-time', '0', '--store', tempStore()]);
  assert.ok(squatted, `no server was killed before lockpick exited:\n${out}`);
  assert.equal(code, 3, out);
  assert.match(out, /cannot restart: its port \d+ was taken by another process while the node was down/);
  assert.ok(Date.now() - t0 < 45_000, `took ${Date.now() - t0} ms`);
});

test("an anchored kill whose heal finds the port taken: the replay ends inconclusive (exit 3), naming the cause", async () => {
  // c1 holds k0; the moment it is inside its critical section n1 is killed, to restart 4 s later.
  const plan = {
    ttlMs: 2000,
    clients: [{ attempts: [{ key: 'k0', delayMs: 0, waitMs: 1000, holdMs: 500, renew: false }] }],
    faults: [{ kind: 'kill', at_ms: 0, duration_ms: 4000, target: 'n1', params: { persistence: 'none' }, anchor: { client: 'c1', point: 'in-critical-section' } }],
  };
  const dir = tempDir('lockpick-plan-');
  writeFileSync(path.join(dir, 'test.json'), JSON.stringify({ lock_spec: { name: 'redis-set-px-lua' }, plan }));
  const store = tempStore();
  const { code, out, squatted } = await runSquattingKilledPort(['run', '--replay', dir, '--runs', '1', '--store', store]);
  assert.ok(squatted, `n1 was never killed:\n${out}`);
  const history = readFileSync(path.join(runDirs(store)[0]!, 'history.jsonl'), 'utf8');
  // The kill was the anchored one (it started when c1 reached its point), and its heal is what failed.
  assert.match(history, /"f":"anchor-reached"[^\n]*\n[^]*"f":"kill-start"/);
  assert.equal(code, 3, out);
  assert.match(out, /cannot restart: its port \d+ was taken by another process while the node was down/);
  assert.doesNotMatch(out, /internal error/);
});
