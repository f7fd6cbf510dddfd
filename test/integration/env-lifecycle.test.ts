// Lifecycle safety with real processes: after SIGINT or SIGTERM of
// `lockpick env up redis` none of the servers or the proxy it started remains;
// after SIGKILL the next cleanupLeftovers() finds and stops them, saying so.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cleanupLeftovers } from '../../src/env/index.ts';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Every process whose parent is `ppid`, or whose cmdline mentions `dir`. */
function processes(pred: (pid: number, ppid: number, cmd: string) => boolean): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] === 'Z') continue;
      const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (pred(Number(d), Number(fields[1]), cmd)) out.push(Number(d));
    } catch {
      /* exited while we looked */
    }
  }
  return out;
}

/** Starts `env up redis --masters 2 --json`; resolves with its pid and the pids it started. */
async function envUp(): Promise<{ pid: number; started: number[]; root: string; exit: Promise<number | null> }> {
  const child = spawn(process.execPath, [path.join(repo, 'bin/lockpick.mjs'), 'env', 'up', 'redis', '--masters', '2', '--json'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exit = new Promise<number | null>((r) => child.once('exit', (code, sig) => r(code ?? (sig ? -1 : null))));
  let out = '';
  const line = await new Promise<string>((res, rej) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) res(out.split('\n')[0]!);
    });
    child.once('exit', () => rej(new Error(`env up exited early: ${out}`)));
  });
  const info = JSON.parse(line) as { nodes: { pid: number; log: string }[] };
  const root = path.dirname(path.dirname(info.nodes[0]!.log));
  // Its servers (their title names the private dir) and its proxy (a child of it).
  const started = processes((pid, ppid, cmd) => cmd.includes(root) || (ppid === child.pid && /server-main\.[jt]s/.test(cmd)));
  return { pid: child.pid!, started, root, exit };
}

for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  test(`no lockpick-started process remains after ${sig} of 'lockpick env up redis'`, async () => {
    const up = await envUp();
    assert.equal(up.started.length, 3, `expected 2 redis-servers and the proxy, found ${up.started.length}`);
    process.kill(up.pid, sig);
    // A stop asked for ('lockpick env down' sends SIGTERM) is env up's normal end; Ctrl-C says 130.
    assert.equal(await up.exit, sig === 'SIGINT' ? 130 : 0);
    const left = up.started.filter((p) => processes((pid) => pid === p).length > 0);
    console.log(`${sig}: ${up.started.length} processes before, ${left.length} after`);
    assert.deepEqual(left, []);
  });
}

test('after SIGKILL of env up, cleanupLeftovers stops its servers, says so and removes the whole lockpick-env-* dir', async () => {
  const up = await envUp();
  process.kill(up.pid, 'SIGKILL');
  await up.exit;
  const servers = processes((_, __, cmd) => cmd.includes(up.root));
  assert.equal(servers.length, 2, 'the servers outlive a SIGKILLed lockpick');
  const said: string[] = [];
  cleanupLeftovers((m) => said.push(m));
  assert.equal(said.filter((m) => /stopped leftover redis-server/.test(m)).length, 2, said.join('\n'));
  for (let i = 0; processes((_, __, cmd) => cmd.includes(up.root)).length > 0; i++) {
    assert.ok(i < 100, 'leftover servers still running');
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.match(path.basename(up.root), /^lockpick-env-/);
  assert.equal(existsSync(up.root), false, `${up.root} is left behind`);
});
