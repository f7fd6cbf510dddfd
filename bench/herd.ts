// `npm run bench:herd`: the herd effect, measured. Fault-free `lockpick run` of
// zk-ephemeral (one node, every waiter watches it: each release wakes them all)
// and zk-ephemeral-sequential (each waiter watches its predecessor only) at
// 3, 10 and 30 clients, same seed (so the same plans) for both locks. The
// figures come from the run's results (coverage.lockStats, counted inside the
// recipes: Lock.stats) over its conclusive runs.
// Options: --clients 3,10,30  --runs N (per case, default 8)  --time S (cap per case, default 120)  --seed N
// Run it alone (it starts a ZooKeeper ensemble and up to 30 worker processes):
//   flock /tmp/lp-int.lock npm run bench:herd
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { RunSummary } from '../src/runner/index.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: { clients: { type: 'string' }, runs: { type: 'string' }, time: { type: 'string' }, seed: { type: 'string' } },
});
const clientCounts = (args.clients ?? '3,10,30').split(',').map(Number);
const runs = Number(args.runs ?? 8);
const timeS = Number(args.time ?? 120);
const seed = Number(args.seed ?? 1);
if (clientCounts.some((n) => !Number.isInteger(n) || n < 1) || !(runs >= 1) || !(timeS >= 1) || !Number.isInteger(seed)) {
  console.error('bench/herd.ts: --clients takes whole numbers ≥ 1 separated by commas (e.g. 3,10,30); --runs, --time and --seed whole numbers');
  process.exit(2);
}
const LOCKS = ['zk-ephemeral', 'zk-ephemeral-sequential'];

interface Row { lock: string; clients: number; runs: number; ok_acquires: number; notifications_per_acquire: number; creates_per_acquire: number; wakeups_per_acquire: number; exit: number; wall_s: number }

function lockpickRun(lock: string, clients: number, store: string): Promise<{ code: number | null; summary?: RunSummary; stderr: string; ms: number }> {
  const argv = ['bin/lockpick.mjs', 'run', '--lock', lock, '--clients', String(clients), '--runs', String(runs), '--time', String(timeS),
    '--seed', String(seed), '--store', store, '--json'];
  const t0 = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, argv, { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('exit', (code) => {
      let summary: RunSummary | undefined;
      try { summary = JSON.parse(stdout.trim().split('\n').pop() ?? '') as RunSummary; } catch { /* said below */ }
      resolve({ code, summary, stderr, ms: Date.now() - t0 });
    });
  });
}

const store = mkdtempSync(path.join(tmpdir(), 'lockpick-herd-'));
const rows: Row[] = [];
let failed = false;
try {
  for (const clients of clientCounts) {
    for (const lock of LOCKS) {
      const r = await lockpickRun(lock, clients, store);
      const c = r.summary?.coverage;
      // A fault-free run of a correct lock is SAFE (0); anything else makes the figure suspect.
      if (!c || r.code !== 0) {
        failed = true;
        console.error(`bench/herd.ts: ${lock} with ${clients} clients exited ${r.code}${c ? '' : ' without a JSON summary'}; its stderr ends:\n${r.stderr.split('\n').slice(-15).join('\n')}`);
        if (!c) continue;
      }
      const per = c.lockStatsPerOkAcquire ?? {};
      rows.push({
        lock, clients, runs: c.conclusive, ok_acquires: c.okAcquires,
        notifications_per_acquire: per.watchNotifications ?? NaN, creates_per_acquire: per.creates ?? NaN, wakeups_per_acquire: per.wakeups ?? NaN,
        exit: r.code ?? -1, wall_s: Math.round(r.ms / 100) / 10,
      });
      console.error(`${lock} × ${clients}: ${c.okAcquires} ok acquires in ${c.conclusive} run(s), ${per.watchNotifications} notifications / ${per.creates} creates per ok acquire (${Math.round(r.ms / 1000)} s)`);
    }
  }
} finally {
  rmSync(store, { recursive: true, force: true });
}

console.log(`\nlockpick run --clients N --runs ${runs} --time ${timeS} --seed ${seed} (fault-free), per lock:\n`);
console.log('| lock | clients | runs | ok acquires | watch notifications per acquire | creates per acquire | wake-ups per acquire | wall s |');
console.log('|---|---|---|---|---|---|---|---|');
for (const r of rows) {
  console.log(`| \`${r.lock}\` | ${r.clients} | ${r.runs} | ${r.ok_acquires} | ${r.notifications_per_acquire} | ${r.creates_per_acquire} | ${r.wakeups_per_acquire} | ${r.wall_s} |`);
}
process.exit(failed ? 1 : 0);
