// `npm run bench`: the checker end to end through the real CLI on generated histories.
// Mutex: 1e3..1e6 ops, 10 clients, 1 and 100 keys, 0% and 1% info ops, valid and with one
// injected double holder. Register: the general search on a few hundred ops with tens of info
// ops, and a larger one under a small --time-limit (must answer unknown, exit 3).
// Each case is written to a temp file, checked by `node bin/lockpick.mjs check FILE --json` in a
// child process (wall time, peak RSS of that process), then deleted.
// Big one-key mutex histories (1M and 10M ops, 10 clients, 1% info, valid and with one double
// holder) are written straight to the temp file (bench/big-mutex.ts) and checked --runs times
// (default 3): the table shows the median wall time and peak RSS of those runs. So is a 1M-op
// one-key semaphore history (3 permits, 10 clients, 1 % info releases; bench/big-semaphore.ts),
// valid and with one over-admission, under --model semaphore.
// Options: --max-ops N (skip bigger mutex cases; default 1e7), --runs N, --only-mutex, --only-register, --only-big.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeSync, openSync, closeSync, readSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { HistoryEvent } from '../src/history/types.ts';
import { seeded } from '../test/support/choices.ts';
import { injectDoubleHolder, injectWrongRead } from '../test/support/inject.ts';
import { simulateLock } from '../test/support/lock-sim.ts';
import { simulateRegister } from '../test/support/register-sim.ts';
import { writeBigMutex } from './big-mutex.ts';
import { writeBigSemaphore } from './big-semaphore.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({ options: { 'max-ops': { type: 'string' }, runs: { type: 'string' }, 'only-mutex': { type: 'boolean' }, 'only-register': { type: 'boolean' }, 'only-big': { type: 'boolean' } } });
const maxOps = Number(args['max-ops'] ?? 1e7);
const runs = Math.max(1, Number(args.runs ?? 3));

interface Case { name: string; model: string; keys: number; infoPct: number; events?: () => HistoryEvent[]; write?: (file: string) => void; runs?: number; extra?: string[]; expect: string }
interface Row { case: string; ops: number; keys: number; info: string; verdict: string; parse_ms: number; check_ms: number; wall_ms: number; ops_per_s: number; peak_mb: number; exit: number; runs: number }

function mutexEvents(ops: number, keys: number, infoPct: number, doubleHolder: boolean): HistoryEvent[] {
  const events: HistoryEvent[] = [];
  // Each op gets two chances to end in info (before / after taking effect): ‰ per chance = pct * 5.
  simulateLock({ clients: 10, keys, steps: Infinity, maxOps: ops, infoPerMille: infoPct * 5, failPerMille: 20, renewPerMille: 0 }, seeded(ops + keys + infoPct), (e) => events.push(e));
  return doubleHolder ? injectDoubleHolder(events, Math.floor(events.length / 3)).events : events;
}

function registerEvents(steps: number, infoPerMille: number, wrongRead: boolean, clients = 5): HistoryEvent[] {
  const events: HistoryEvent[] = [];
  simulateRegister({ clients, keys: 1, steps, cas: true, infoPerMille }, seeded(steps + infoPerMille), (e) => events.push(e));
  return wrongRead ? injectWrongRead(events, Math.floor(events.length / 2)).events : events;
}

function writeJsonl(file: string, events: HistoryEvent[]): void {
  const fd = openSync(file, 'w');
  try {
    for (let i = 0; i < events.length; i += 20_000) {
      writeSync(fd, events.slice(i, i + 20_000).map((e) => JSON.stringify(e)).join('\n') + '\n');
    }
  } finally { closeSync(fd); }
}

/** Ops (invokes) and info completions of a client in a JSON Lines file, counted by substring (the generator's fixed spelling). */
function countOps(file: string): { ops: number; info: number } {
  let ops = 0, info = 0;
  const fd = openSync(file, 'r');
  const buf = Buffer.alloc(1 << 22);
  let carry = '';
  try {
    for (let n; (n = readSync(fd, buf, 0, buf.length, null)) > 0;) {
      const lines = (carry + buf.toString('latin1', 0, n)).split('\n');
      carry = lines.pop()!;
      for (const l of lines) {
        if (l.startsWith('{"type":"invoke"')) ops++;
        else if (l.startsWith('{"type":"info"') && !l.includes('"nemesis"')) info++;
      }
    }
  } finally { closeSync(fd); }
  return { ops, info };
}

function runCli(file: string, model: string, extra: string[]): Promise<{ code: number; out: string; err: string; wall: number }> {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const child = spawn(process.execPath, ['--import', path.join(repoRoot, 'bench/rss-hook.mjs'), path.join(repoRoot, 'bin/lockpick.mjs'), 'check', file, '--model', model, '--json', ...extra], { cwd: repoRoot });
    let out = '', err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, out, err, wall: performance.now() - t }));
  });
}

const cases: Case[] = [];
const median = (xs: number[]) => xs.slice().sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;

if (!args['only-register'] && !args['only-big']) {
  for (const ops of [1e3, 1e4, 1e5, 1e6].filter((n) => n <= maxOps)) {
    for (const keys of [1, 100]) {
      for (const infoPct of [0, 1]) {
        for (const dh of [false, true]) {
          cases.push({ name: `mutex${dh ? ' +1 double holder' : ''}`, model: 'mutex', keys, infoPct, events: () => mutexEvents(ops, keys, infoPct, dh), expect: dh ? 'false' : 'true' });
        }
      }
    }
  }
}
if (!args['only-register']) {
  for (const ops of [1e6, 1e7].filter((n) => n <= maxOps)) {
    for (const dh of [false, true]) {
      cases.push({ name: `big mutex${dh ? ' +1 double holder' : ''}`, model: 'mutex', keys: 1, infoPct: 1, write: (file) => writeBigMutex(file, ops, dh), runs, expect: dh ? 'false' : 'true' });
    }
  }
  if (maxOps >= 1e6) {
    for (const over of [false, true]) {
      cases.push({ name: `big semaphore${over ? ' +1 over-admission' : ''}`, model: 'semaphore', keys: 1, infoPct: 1, write: (file) => writeBigSemaphore(file, 1e6, over), runs, expect: over ? 'false' : 'true' });
    }
  }
}
if (!args['only-mutex'] && !args['only-big']) {
  cases.push({ name: 'cas-register search', model: 'cas-register', keys: 1, infoPct: 10, events: () => registerEvents(1000, 60, false), expect: 'true' });
  cases.push({ name: 'cas-register search +1 wrong read', model: 'cas-register', keys: 1, infoPct: 10, events: () => registerEvents(1000, 60, true), expect: 'false' });
  cases.push({ name: 'cas-register search', model: 'cas-register', keys: 1, infoPct: 1, events: () => registerEvents(30000, 5, false), expect: 'true' });
  cases.push({ name: 'cas-register search +1 wrong read', model: 'cas-register', keys: 1, infoPct: 1, events: () => registerEvents(30000, 5, true), expect: 'false' });
  // The issue's case: a valid 30K-op cas-register history, 10% info ops, 10 clients, 5 values (null and 0..3).
  cases.push({ name: 'cas-register search, 10 clients', model: 'cas-register', keys: 1, infoPct: 10, events: () => registerEvents(90_000, 50, false, 10), runs, expect: 'true' });
  cases.push({ name: 'cas-register at --time-limit 0.2', model: 'cas-register', keys: 1, infoPct: 30, events: () => registerEvents(20000, 200, true), extra: ['--time-limit', '0.2'], expect: 'unknown' });
}

const dir = mkdtempSync(path.join(tmpdir(), 'lockpick-bench-'));
const rows: Row[] = [];
// What the figures depend on: the machine and what else ran on it (the 1-minute load average).
const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');
const argsGiven = process.argv.slice(2).join(' ');
console.log(`\`npm run bench${argsGiven ? ` -- ${argsGiven}` : ''}\`, ${new Date().toISOString().slice(0, 10)}: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), Node ${process.version}; load average at start ${load()}\n`);
let failures = 0;
try {
  for (const c of cases) {
    const file = path.join(dir, 'history.jsonl');
    let ops: number, info: number;
    if (c.write) {
      c.write(file);
      ({ ops, info } = countOps(file));
    } else {
      const events = c.events!();
      writeJsonl(file, events);
      ops = events.filter((e) => e.type === 'invoke').length;
      info = events.filter((e) => e.type === 'info' && e.process !== 'nemesis').length;
    }
    const measured: { r: Awaited<ReturnType<typeof runCli>>; rss: number; res: { valid?: unknown; parse_ms?: number; check_ms?: number } }[] = [];
    for (let i = 0; i < (c.runs ?? 1); i++) {
      (globalThis as { gc?: () => void }).gc?.();
      const r = await runCli(file, c.model, c.extra ?? []);
      const rss = Number(/BENCH_MAX_RSS_KB=(\d+)/.exec(r.err)?.[1] ?? NaN);
      let res: { valid?: unknown; parse_ms?: number; check_ms?: number } = {};
      try { res = JSON.parse(r.out.trim().split('\n')[0] ?? '{}'); } catch { /* reported below */ }
      measured.push({ r, rss, res });
    }
    rmSync(file);
    const mid = measured.slice().sort((a, b) => a.r.wall - b.r.wall)[Math.floor((measured.length - 1) / 2)]!;
    const verdict = String(mid.res.valid);
    for (const m of measured) {
      if (String(m.res.valid) !== c.expect) { failures++; console.error(`UNEXPECTED ${c.name}: verdict ${m.res.valid}, expected ${c.expect} (exit ${m.r.code})\n${m.r.err.slice(0, 2000)}`); }
    }
    rows.push({
      case: c.name, ops, keys: c.keys, info: `${((100 * info) / ops).toFixed(1)}%`, verdict,
      parse_ms: mid.res.parse_ms ?? NaN, check_ms: mid.res.check_ms ?? NaN, wall_ms: Math.round(mid.r.wall),
      ops_per_s: Math.round(ops / (mid.r.wall / 1000)), peak_mb: Math.round(median(measured.map((m) => m.rss)) / 1024), exit: mid.r.code, runs: measured.length,
    });
    printRow(rows[rows.length - 1]!);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

function printRow(r: Row): void {
  if (rows.length === 1) {
    console.log('| case | ops | keys | info | verdict | exit | parse_ms | check_ms | wall ms | ops/s | peak MB | runs |');
    console.log('|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|');
  }
  console.log(`| ${r.case} | ${r.ops} | ${r.keys} | ${r.info} | ${r.verdict} | ${r.exit} | ${r.parse_ms} | ${r.check_ms} | ${r.wall_ms} | ${r.ops_per_s} | ${r.peak_mb} | ${r.runs} |`);
}
console.log(`\nLoad average at the end ${load()}.`);
if (failures) { console.error(`${failures} case(s) gave an unexpected verdict`); process.exitCode = 1; }
