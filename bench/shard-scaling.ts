// `npm run bench:shards`: one search as 1, 2 and 4 shards in the same search time, the shards as
// processes on this machine all started at once (as a CI matrix starts its jobs), each merged with
// `lockpick merge`: runs done (summed), distinct failures (merged), the merged verdict, the wall time,
// and the load average beside it (other work on the machine slows the runs: give a quiet machine's
// figure with its load). Everything after `--` is the `lockpick run` command (default below); the
// shards add `--shard I/N --store DIR`.
//   npm run bench:shards -- [--shards 1,2,4] [-- run args...]
// Run it alone (it starts real servers):   flock /tmp/lp-int.lock npm run bench:shards
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { MergeResult } from '../src/runner/merge.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DEFAULT = ['--lock', 'redis-set-px-del', '--faults', 'client-pause', '--keep-going', '--time', '60', '--shrink-time', '10', '--seed', '2026'];
const dash = process.argv.indexOf('--');
const { values } = parseArgs({ args: process.argv.slice(2, dash < 0 ? undefined : dash), options: { shards: { type: 'string', default: '1,2,4' } } });
const runArgs = dash < 0 ? DEFAULT : process.argv.slice(dash + 1);
const counts = values.shards.split(',').map(Number);

/** One lockpick command to its end: its exit code and standard output. */
function lockpick(args: string[]): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [path.join(repoRoot, 'bin', 'lockpick.mjs'), ...args], { stdio: ['ignore', 'pipe', 'ignore'] });
    let stdout = '';
    p.stdout.on('data', (d: Buffer) => { stdout += d; });
    p.on('close', (code) => resolve({ code: code ?? 4, stdout }));
  });
}

const WORD = { true: 'SAFE', false: 'UNSAFE', unknown: 'INCONCLUSIVE' } as const;
console.log(`lockpick run ${runArgs.join(' ')} --shard I/N, N shards at once, merged\n`);
console.log('| shards at once | runs done (summed) | distinct failures (merged) | merged | wall time | load before → after |');
console.log('|---|---|---|---|---|---|');
for (const n of counts) {
  const root = mkdtempSync(path.join(tmpdir(), 'lockpick-shards-'));
  const load0 = loadavg()[0]!;
  const t0 = Date.now();
  const exits = await Promise.all(Array.from({ length: n }, (_, i) => lockpick(['run', ...runArgs, '--shard', `${i + 1}/${n}`, '--store', path.join(root, `shard-${i + 1}`)])));
  const wallS = (Date.now() - t0) / 1000;
  const load1 = loadavg()[0]!;
  await lockpick(['merge', root, '--out', path.join(root, 'merged'), '--json']);
  const m = JSON.parse(readFileSync(path.join(root, 'merged', 'results.json'), 'utf8')) as MergeResult;
  const runs = m.shards.map((s) => s.runs);
  console.log(`| ${n} | ${m.coverage.runs}${n > 1 ? ` (${runs.join(' + ')})` : ''} | ${m.failures.length} | ${WORD[String(m.verdict) as 'true']} (shard exits ${exits.map((e) => e.code).join(', ')}) | ${wallS.toFixed(0)} s | ${load0.toFixed(1)} → ${load1.toFixed(1)} |`);
  rmSync(root, { recursive: true, force: true });
}
