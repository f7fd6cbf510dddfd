// `npm run bench:coverage`: what coverage guidance buys (src/workload/cell-space.ts), guided
// against uniform (`--coverage-guided false`), with the same seeds.
//
// 1. Fault-space coverage: per lock and seed, one `lockpick run --keep-going --shrink-time 0` of
//    --time S (the search spends all of it whatever it finds); the history is read back run by run
//    (src/runner/fault-cells.ts cellsOfRun on each run's events) to say after how many search runs
//    the cells known (results.json coverage.cells.known) were all hit, or 90 % of them, and the
//    coverage at the end (results.json).
// 2. Time to first failure on demo-catalogue entries (their lock and fault kinds, random search,
//    `--first-failure`): search seconds and search runs until the first violation, per seed.
//
// Options: --time S (part 1, per run; default 60)  --detect-time S (part 2 cap; default 60)
//          --seeds N (default 3)  --locks NAME,NAME  --cases NAME,NAME  --part 1|2 (default both)  --modes guided,uniform (default both)
// Run it alone (it starts real servers):   flock /tmp/lp-int.lock npm run bench:coverage
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { RunSummary } from '../src/runner/index.ts';
import type { HistoryEvent } from '../src/history/types.ts';
import { cellsOfRun } from '../src/runner/fault-cells.ts';
import { cellName } from '../src/workload/cell.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Part 1: three locks on three kinds of server, each under client pauses (every point it reaches). */
const LOCKS: Record<string, string[]> = {
  'redis-set-px-del': ['--lock', 'redis-set-px-del', '--faults', 'client-pause'],
  'redis-set-px-lua-fenced': ['--lock', 'redis-set-px-lua-fenced', '--faults', 'client-pause', '--property', 'resource'],
  'mysql-get-lock': ['--lock', 'mysql-get-lock', '--faults', 'client-pause'],
};
/** Part 2: demo-catalogue entries (src/demo/entries-redis.ts), as a random search of their lock and fault kinds. */
const CASES: Record<string, string[]> = {
  'set-px-del-pause': ['--lock', 'redis-set-px-del', '--faults', 'client-pause'],
  'setnx-getset-clock-skew': ['--lock', 'redis-setnx-getset', '--faults', 'client-clock'],
  'set-px-lua-restart': ['--lock', 'redis-set-px-lua', '--faults', 'kill'],
  'set-px-check-del-race': ['--lock', 'redis-set-px-check-del', '--faults', 'client-pause', '--pause-at', 'after-compare', '--clients', '6'],
  // Entries whose first failure takes the search more than its aims' first plans.
  'set-px-lua-pause': ['--lock', 'redis-set-px-lua', '--faults', 'client-pause', '--pause-at', 'in-critical-section'],
  'redlock-pause': ['--lock', 'redlock', '--faults', 'client-pause', '--pause-at', 'before-write', '--property', 'resource'],
  // Not a demo entry: a user lock with no points of its own, found by pauses at I/O points only (no aim's first plan breaks it).
  'user-get-del-io': ['--lock', './test/fixtures/locks/get-del-unlock.ts', '--faults', 'client-pause', '--pause-at', 'send', '--clients', '6', '--max-attempts', '6'],
};
const { values: args } = parseArgs({ options: { time: { type: 'string' }, 'detect-time': { type: 'string' }, seeds: { type: 'string' }, locks: { type: 'string' }, cases: { type: 'string' }, part: { type: 'string' }, modes: { type: 'string' } } });
const timeS = Number(args.time ?? 60), detectS = Number(args['detect-time'] ?? 60), seeds = Number(args.seeds ?? 3);
const locks = (args.locks ?? Object.keys(LOCKS).join(',')).split(','), cases = (args.cases ?? Object.keys(CASES).join(',')).split(',');
if (![timeS, detectS, seeds].every((n) => Number.isInteger(n) && n >= 1) || locks.some((l) => !LOCKS[l]) || cases.some((c) => !CASES[c])) {
  console.error(`bench/coverage.ts: --time, --detect-time and --seeds whole numbers; --locks from ${Object.keys(LOCKS).join(', ')}; --cases from ${Object.keys(CASES).join(', ')}`);
  process.exit(2);
}
const MODES = ([['guided', []], ['uniform', ['--coverage-guided', 'false']]] as const).filter(([m]) => (args.modes ?? 'guided,uniform').split(',').includes(m));

function lockpickRun(argv: readonly string[], store: string): Promise<{ code: number | null; summary?: RunSummary; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['bin/lockpick.mjs', 'run', ...argv, '--store', store, '--json'], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => {
      let summary: RunSummary | undefined;
      try { summary = JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as RunSummary; } catch { /* said below */ }
      resolve({ code, summary, stderr });
    });
  });
}

/** The history's runs in order (run-start … run-end), the calibration run first. */
function runsOf(file: string): HistoryEvent[][] {
  const out: HistoryEvent[][] = [];
  let cur: HistoryEvent[] | undefined;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line) continue;
    const e = JSON.parse(line) as HistoryEvent;
    if (e.process === 'nemesis' && e.f === 'run-start') { cur = []; out.push(cur); continue; }
    if (e.process === 'nemesis' && e.f === 'run-end') { cur = undefined; continue; }
    cur?.push(e);
  }
  return out;
}

/** After how many runs of the history (the calibration run not counted; a confirmation run of a violation counted) the known cells hit reached `share` of them. */
function runsTo(runs: HistoryEvent[][], known: readonly string[], share: number): number | undefined {
  const want = new Set(known), hit = new Set<string>();
  for (let i = 1; i < runs.length; i++) {
    for (const c of cellsOfRun(runs[i]!)) { const n = cellName(c); if (want.has(n)) hit.add(n); }
    if (hit.size >= Math.ceil(share * want.size)) return i;
  }
  return undefined;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
const fmt = (n: number | undefined) => (n === undefined ? '—' : String(n));
const started = new Date().toISOString();

if (args.part !== '2') {
  console.log(`fault-space coverage, guided vs uniform: lockpick run … --keep-going --shrink-time 0 --time ${timeS} --seed 1..${seeds} (started ${started})`);
  console.log('| lock | mode | cells known | runs to 90 % (each seed; —: not within --time) | runs to 100 % (each seed) | coverage at the end (each seed) | search runs (each seed) |\n|---|---|---|---|---|---|---|');
  for (const lock of locks) {
    for (const [mode, extra] of MODES) {
      const to90: (number | undefined)[] = [], to100: (number | undefined)[] = [], end: string[] = [], total: number[] = [];
      let known = 0;
      for (let seed = 1; seed <= seeds; seed++) {
        const store = mkdtempSync(path.join(tmpdir(), 'lockpick-cov-'));
        try {
          const r = await lockpickRun([...LOCKS[lock]!, ...extra, '--keep-going', '--shrink-time', '0', '--time', String(timeS), '--seed', String(seed)], store);
          const cells = r.summary?.coverage.cells;
          if (!r.summary || !cells) { console.error(`${lock} ${mode} seed ${seed}: exit ${r.code}\n${r.stderr.slice(-1500)}`); to90.push(undefined); to100.push(undefined); end.push('?'); continue; }
          known = cells.total;
          const runs = runsOf(path.join(r.summary.dir, 'history.jsonl'));
          to90.push(runsTo(runs, cells.known, 0.9));
          to100.push(runsTo(runs, cells.known, 1));
          end.push(`${cells.percent} %`);
          total.push(r.summary.runs);
        } finally {
          rmSync(store, { recursive: true, force: true });
        }
      }
      console.log(`| ${lock} | ${mode} | ${known} | ${to90.map(fmt).join(', ')} | ${to100.map(fmt).join(', ')} | ${end.join(', ')} | ${total.join(', ')} |`);
    }
  }
}

if (args.part !== '1') {
  console.log(`\ntime to first failure, guided vs uniform: lockpick run … --first-failure --shrink-time 0 --time ${detectS} --seed 1..${seeds}`);
  console.log('| demo entry | command | mode | found | median s | each: s (runs) |\n|---|---|---|---|---|---|');
  for (const name of cases) {
    for (const [mode, extra] of MODES) {
      const ts: number[] = [], each: string[] = [];
      for (let seed = 1; seed <= seeds; seed++) {
        const store = mkdtempSync(path.join(tmpdir(), 'lockpick-cov-'));
        try {
          const r = await lockpickRun([...CASES[name]!, ...extra, '--first-failure', '--shrink-time', '0', '--time', String(detectS), '--seed', String(seed)], store);
          if (r.code === 1 && r.summary?.firstAfterMs !== undefined) {
            const s = r.summary.firstAfterMs / 1000;
            ts.push(s);
            // The search runs until the first violation: the runs of the search (it stops right after).
            each.push(`${s.toFixed(1)} (${r.summary.runs})`);
          } else {
            ts.push(Infinity);
            each.push(`>${detectS} (exit ${r.code})`);
            if (r.code !== 0 && r.code !== 3) console.error(`${name} ${mode} seed ${seed}: exit ${r.code}\n${r.stderr.slice(-1500)}`);
          }
        } finally {
          rmSync(store, { recursive: true, force: true });
        }
      }
      const m = median(ts);
      console.log(`| ${name} | \`lockpick run ${CASES[name]!.join(' ')}\` | ${mode} | ${ts.filter(Number.isFinite).length}/${seeds} | ${Number.isFinite(m) ? m.toFixed(1) : `> ${detectS}`} | ${each.join(', ')} |`);
    }
  }
}
