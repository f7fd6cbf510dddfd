// `npm run bench:detect`: time to detection by random search (no --replay), the
// median of several `lockpick run`s with different seeds, per case. A case is
// a lock and the fault kinds a user would pick; the figure is the run's own
// "first violation after N ms of search" (results: firstAfterMs), so shrinking
// and server start-up are not counted. A case that stays SAFE (or inconclusive)
// within --time counts as "> time" and its median says so. Beside it, the search's
// throughput: the median runs per minute of search (results: throughput), every run.
// A case with --faults all runs with --keep-going (the search spends all of --time and
// lists every distinct failure): below the table, per failure class, the median time to
// its first detection over the repeats (a repeat that did not find it counts as "> time").
// Options: --catalogue (the cases are the README catalogue's rows)  --cases NAME,NAME (default all)  --repeat N (default 5)  --time S (cap per run, default 120)  --seed N (first seed)
//          --parallel K (passed to lockpick run: client-scoped plans K at once; default 1)
//          --shrink-time S (passed to lockpick run, default 0: a class is then read from the plan as found,
//          with its incidental faults; a few seconds name it by what the failure needs)
// Run it alone (it starts real servers):   flock /tmp/lp-int.lock npm run bench:detect
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { RunSummary } from '../src/runner/index.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CASES: Record<string, string[]> = {
  'sentinel-failover': ['--lock', 'redis-sentinel', '--faults', 'failover'],
  'redlock-restart': ['--lock', 'redlock', '--faults', 'partition,kill'],
  'redlock-kleppmann': ['--lock', 'redlock', '--faults', 'partition,clock-bump'],
  'redlock-all': ['--lock', 'redlock', '--faults', 'all'],
  'npm-redlock-restart': ['--lock', 'npm:redlock', '--faults', 'partition,kill'],
  'npm-redlock-kleppmann': ['--lock', 'npm:redlock', '--faults', 'partition,clock-bump'],
  'semaphore-redlock-restart': ['--lock', 'npm:redis-semaphore-redlock', '--faults', 'partition,kill'],
  'semaphore-redlock-kleppmann': ['--lock', 'npm:redis-semaphore-redlock', '--faults', 'partition,clock-bump'],
  // One fault kind each, as a user picks it: kill alone forgets a majority's votes (UNSAFE); the
  // correct Redlock under partitions drawn over its masters, and under a pause before its validity
  // check with the careful client (Held.validUntilMs), must stay SAFE.
  'redlock-kill': ['--lock', 'redlock', '--faults', 'kill'],
  'redlock-partition': ['--lock', 'redlock', '--faults', 'partition'],
  'redlock-validity-pause': ['--lock', 'redlock', '--faults', 'client-pause', '--pause-at', 'before-validity-check'],
  // Immune: antirez's delayed restart (down longer than the lease) must stay SAFE.
  'redlock-restart-delayed': ['--lock', 'redlock', '--faults', 'partition,kill', '--restart-delay', '1200'],
  // The single-fault rows of the README's scenario table (their medians before the aims: 8.3, 6.3, 3.8, 3.9, 6.0 s).
  'set-px-del-pause': ['--lock', 'redis-set-px-del', '--faults', 'client-pause', '--pause-at', 'in-critical-section'],
  'check-del-pause': ['--lock', 'redis-set-px-check-del', '--faults', 'client-pause', '--pause-at', 'after-compare', '--clients', '6'],
  'setnx-getset-skew': ['--lock', 'redis-setnx-getset', '--faults', 'client-clock'],
  'set-px-lua-clock': ['--lock', 'redis-set-px-lua', '--faults', 'clock-bump'],
  'set-px-lua-restart': ['--lock', 'redis-set-px-lua', '--faults', 'kill'],
  // A user lock with no pause points: its GET-then-DEL unlock raced by pauses at I/O points only
  // (a critical-section pause breaks any lease lock, which would hide them); the Lua unlock is immune.
  'user-get-del-io': ['--lock', './test/fixtures/locks/get-del-unlock.ts', '--faults', 'client-pause', '--pause-at', 'send', '--clients', '6', '--max-attempts', '6'],
  'user-lua-io': ['--lock', './test/fixtures/locks/lua-unlock.ts', '--faults', 'client-pause', '--pause-at', 'send', '--clients', '6', '--max-attempts', '6'],
  // ZooKeeper session expiry inside a hold (the session-expiry-in-hold aim; test/integration/run-zk-sessions.test.ts):
  // a client that ignores Disconnected is found; the careful one (treat-as-loss, the default) is immune.
  'zk-session-ignore': ['--lock', 'zk-ephemeral-sequential', '--clients', '3', '--lock-opt', 'onDisconnect=ignore', '--faults', 'partition'],
  'zk-session-careful': ['--lock', 'zk-ephemeral-sequential', '--clients', '3', '--faults', 'partition,pause'],
};
const { values: args } = parseArgs({
  options: { cases: { type: 'string' }, repeat: { type: 'string' }, time: { type: 'string' }, seed: { type: 'string' }, parallel: { type: 'string' }, 'shrink-time': { type: 'string' }, catalogue: { type: 'boolean' } },
});
// --catalogue: the cases are the README catalogue's rows, each its `lockpick run …` command as printed
// there (a row's own --time gives way to --time), with the row's median beside the measured one.
const readmeMedian = new Map<string, string>();
if (args.catalogue) {
  for (const k of Object.keys(CASES)) delete CASES[k];
  const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
  const table = readme.slice(readme.indexOf('## The catalogue')).split('\n').filter((l) => l.startsWith('| ') && l.includes('`--lock '));
  table.forEach((row, i) => {
    const cells = row.split('|').slice(1, -1).map((c) => c.trim());
    const cmd = /`(--lock [^`]+)`/.exec(cells[1] ?? '')?.[1];
    if (!cmd) return;
    const argv = cmd.split(/\s+/);
    const t = argv.indexOf('--time');
    if (t >= 0) argv.splice(t, 2);
    const name = `${i + 1}-${argv[1]}`;
    CASES[name] = argv;
    readmeMedian.set(name, cells[3] || cells[2] || '');
  });
}
const names = (args.cases ?? Object.keys(CASES).join(',')).split(',');
const repeat = Number(args.repeat ?? 5);
const timeS = Number(args.time ?? 120);
const seed0 = Number(args.seed ?? 1);
const parallel = Number(args.parallel ?? 1);
const shrinkS = Number(args['shrink-time'] ?? 0);
const unknown = names.filter((n) => !CASES[n]);
if (unknown.length || !Number.isInteger(repeat) || repeat < 1 || !(timeS >= 1) || !Number.isInteger(seed0) || !Number.isInteger(parallel) || parallel < 1 || !Number.isInteger(shrinkS) || shrinkS < 0) {
  console.error(`bench/detection.ts: --cases takes names from ${Object.keys(CASES).join(', ')}${unknown.length ? ` (unknown: ${unknown.join(', ')})` : ''}; --repeat, --time, --seed, --parallel and --shrink-time whole numbers`);
  process.exit(2);
}

function lockpickRun(argv: string[], seed: number, store: string): Promise<{ code: number | null; summary?: RunSummary; stderr: string }> {
  // Time to detection: the others stop at their first failure, inherent or not (--first-failure).
  const keepGoing = argv.includes('all') ? ['--keep-going'] : ['--first-failure'];
  const all = ['bin/lockpick.mjs', 'run', ...argv, ...keepGoing, '--time', String(timeS), '--shrink-time', String(shrinkS), '--seed', String(seed), '--store', store, '--parallel', String(parallel), '--json'];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, all, { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => {
      let summary: RunSummary | undefined;
      try { summary = JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as RunSummary; } catch { /* no summary: reported below */ }
      resolve({ code, summary, stderr });
    });
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
console.log(`time to detection, random search, median of ${repeat} (seeds ${seed0}..${seed0 + repeat - 1}), cap ${timeS} s per run${parallel > 1 ? `, --parallel ${parallel}` : ''}${shrinkS ? `, --shrink-time ${shrinkS}` : ''}`);
const classRows: string[] = [];   // --keep-going cases: one row per failure class
console.log(`| case | command | found | median | each (s) | runs/min (median) | conclusive runs |${args.catalogue ? ' README |' : ''}\n|---|---|---|---|---|---|---|${args.catalogue ? '---|' : ''}`);
for (const name of names) {
  const times: number[] = [];
  const words: string[] = [];   // how a run without a violation ended
  const rates: number[] = [];   // runs per minute of search, every run that reported it
  let runs = 0, conclusive = 0;  // search runs over the repeats, and those that told something
  let found = 0;
  const classes = new Map<string, (number | undefined)[]>();   // class → seconds to its first detection, per repeat
  for (let i = 0; i < repeat; i++) {
    const store = mkdtempSync(path.join(tmpdir(), 'lockpick-detect-'));
    try {
      const r = await lockpickRun(CASES[name]!, seed0 + i, store);
      if (r.summary?.throughput) { rates.push(r.summary.throughput.runsPerMinute); runs += r.summary.throughput.runs; conclusive += r.summary.throughput.conclusive; }
      for (const f of r.summary?.failures ?? []) {
        if (!classes.has(f.class)) classes.set(f.class, Array.from({ length: repeat }, () => undefined));
        classes.get(f.class)![i] = f.after_ms / 1000;
      }
      // With --faults all, which failure it was: the fault kinds of the violating plan (--shrink-time 0: the plan as found).
      const kinds = CASES[name]!.includes('all') ? ` [${[...new Set(r.summary?.minimal?.plan.faults.map((f) => f.kind) ?? [])].join('+')}]` : '';
      if (r.code === 1 && r.summary?.firstAfterMs !== undefined) { found++; times.push(r.summary.firstAfterMs / 1000); words.push(kinds); }
      else if (r.code === 0 || r.code === 3) { times.push(Infinity); words.push(r.code === 0 ? ' SAFE' : ' inconclusive'); }
      else { console.error(`${name} seed ${seed0 + i}: exit ${r.code}\n${r.stderr.slice(-2000)}`); times.push(Infinity); words.push(` exit ${r.code}`); }
    } finally {
      rmSync(store, { recursive: true, force: true });
    }
  }
  const m = median(times);
  const each = times.map((t, i) => (Number.isFinite(t) ? `${t.toFixed(1)}${words[i]}` : `>${timeS}${words[i]}`)).join(', ');
  const rate = rates.length ? `${median(rates).toFixed(1)}` : '?';
  for (const [cls, at] of [...classes].sort((a, b) => b[1].filter((t) => t !== undefined).length - a[1].filter((t) => t !== undefined).length)) {
    const ts = at.map((t) => t ?? Infinity);
    const mc = median(ts);
    classRows.push(`| ${name} | ${cls} | ${ts.filter(Number.isFinite).length}/${repeat} | ${Number.isFinite(mc) ? `${mc.toFixed(1)} s` : `> ${timeS} s`} | ${ts.map((t) => (Number.isFinite(t) ? t.toFixed(1) : `>${timeS}`)).join(', ')} |`);
  }
  console.log(`| ${name} | \`lockpick run ${CASES[name]!.join(' ')}\` | ${found}/${repeat} | ${Number.isFinite(m) ? `${m.toFixed(1)} s` : `> ${timeS} s`} | ${each} | ${rate} | ${runs ? `${Math.round((100 * conclusive) / runs)}% (${conclusive}/${runs})` : '?'} |${args.catalogue ? ` ${readmeMedian.get(name) ?? ''} |` : ''}`);
}
if (classRows.length) {
  console.log(`\nwith --keep-going, each distinct failure (class by cause: nature: anomaly · why · fault@what it hit${shrinkS ? ', of the shrunk run' : ', of the run as found'}): time to its first detection`);
  console.log('| case | class | found | median | each (s) |\n|---|---|---|---|---|');
  for (const row of classRows) console.log(row);
}
