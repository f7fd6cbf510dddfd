// `npm run bench:porcupine`: lockpick beside another checker (Porcupine) on the same files.
// Generates, from a seed, the histories in the format `lockpick run` records (bench/recorded.ts):
// mutex on one key at 100k (valid, and with one double holder), 1M and 10M ops; mutex 1M ops on
// 100 keys; each of those also leaseless (no release answered "lost", no lapse: what a plain mutex
// model such as Porcupine's knows; the rows with them compare unlike semantics); cas-register 30k ops with ~10% info, valid and with one read of a value nobody
// wrote; and takes the 102 Jepsen etcd histories of the public corpus where they lie (the folder
// --corpus DIR or LOCKPICK_CORPUS names, not part of this repository: read in place, never copied;
// all in one process; without it that row is left out, saying so). Each workload is checked by
// `node bin/lockpick.mjs check FILE... --model M --json` in a child process: wall seconds and
// peak RSS and CPU time (user + system; medians of --runs), from GNU time as for Porcupine where
// the machine has it, else from a hook loaded into the process (bench/rss-hook.mjs).
// With PORCUPINE_CMD set, the same is done for `sh -c "$PORCUPINE_CMD --model M FILE..."`:
// a command that prints one JSON object per file, {"file": ..., "valid": true|false|"unknown"}
// (as lockpick check --json does), peak RSS from GNU time (/usr/bin/time) when the machine has
// it. The table then shows both, the ratio (Porcupine's time / lockpick's), whether the
// verdicts agree, and whether both read the same semantics ("like for like": no lease events). Without it, lockpick's column alone, and a line saying Porcupine was not given.
// The two run back to back, alternated, so a change in the machine's load falls on both. The load
// average is printed with the table: wall times mean little on a busy machine (CPU time is steadier).
// The output is the table for docs/benchmarks.md, with the command and the date.
//   npm run bench:porcupine -- [--runs N] [--only NAME ...] [--seed S] [--dir DIR (keep the files)] [--corpus DIR]
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { writeRecordedMutex, writeRecordedRegister } from './recorded.ts';
import { corpusDir } from '../test/support/corpus.ts';
import { extraCaNote } from './node-start.ts';
// @ts-expect-error: a plain .mjs module without types
import { distFresh } from '../bin/dist-fresh.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({ options: { runs: { type: 'string' }, only: { type: 'string', multiple: true }, seed: { type: 'string' }, dir: { type: 'string' }, corpus: { type: 'string' } } });
// The public corpus (etcd/ with expected.json): --corpus DIR, else LOCKPICK_CORPUS.
const corpusRoot = corpusDir(args.corpus !== undefined ? { LOCKPICK_CORPUS: args.corpus } : process.env);
const corpus = corpusRoot === undefined ? undefined : path.join(corpusRoot, 'etcd');
const runs = Math.max(1, Number(args.runs ?? 1));
const seed = Number(args.seed ?? 1);
// Each --only is a substring of the rows' names (which hold commas: "--only 'cas-register, 30k ops, 10% info, valid'");
// one that names no row is taken as substrings separated by commas ("--only etcd,leaseless").
const onlyGiven = args.only;
const porcupineCmd = process.env.PORCUPINE_CMD;
const GNU_TIME = '/usr/bin/time';

/** like: both checkers read the file with the same semantics (no lease events). */
interface Workload { name: string; model: string; files: (dir: string) => string[]; expect?: string; like: boolean }

const mutex = (name: string, ops: number, keys: number, doubleHolder = false, leaseless = false): Workload => ({
  name: leaseless ? `${name}, leaseless` : name, model: 'mutex', expect: String(!doubleHolder), like: leaseless,
  files: (dir) => {
    const f = path.join(dir, `mutex-${ops}-${keys}${doubleHolder ? '-dh' : ''}${leaseless ? '-ll' : ''}-s${seed}.jsonl`);
    if (!existsSync(f)) writeRecordedMutex(f, { ops, keys, seed: seed + ops + keys, doubleHolder, leaseless });
    return [f];
  },
});
const register = (name: string, badRead: boolean): Workload => ({
  name, model: 'cas-register', expect: String(!badRead), like: true,
  // 90k simulator steps on 10 clients: ~30.5k ops, ~10% of them info.
  files: (dir) => {
    const f = path.join(dir, `register-30k${badRead ? '-bad' : ''}-s${seed}.jsonl`);
    if (!existsSync(f)) writeRecordedRegister(f, { steps: 90_000, seed, clients: 10, infoPerMille: 50, badRead });
    return [f];
  },
});
const etcd: Workload = {
  name: 'etcd corpus, 102 histories, one process', model: 'cas-register', like: true,
  files: () => {
    const expected = JSON.parse(readFileSync(path.join(corpus!, 'expected.json'), 'utf8')) as Record<string, { file: string }>;
    return Object.entries(expected).filter(([k]) => !k.startsWith('_')).map(([, e]) => path.join(corpus!, e.file));
  },
};

const MUTEX_ROWS: [string, number, number, boolean][] = [
  ['mutex, 1 key, 100k ops, valid', 100_000, 1, false],
  ['mutex, 1 key, 100k ops + a double holder', 100_000, 1, true],
  ['mutex, 1 key, 1M ops', 1_000_000, 1, false],
  ['mutex, 1 key, 10M ops', 10_000_000, 1, false],
  ['mutex, 100 keys, 1M ops', 1_000_000, 100, false],
];
const WORKLOADS: Workload[] = [
  ...MUTEX_ROWS.flatMap(([name, ops, keys, dh]) => [mutex(name, ops, keys, dh), mutex(name, ops, keys, dh, true)]),
  etcd,
  register('cas-register, 30k ops, 10% info, valid', false),
  register('cas-register, 30k ops, 10% info, one bad read', true),
];
const only = onlyGiven?.flatMap((o) => (WORKLOADS.some((w) => w.name.includes(o)) ? [o] : o.split(',')));
const SELECTED = WORKLOADS.filter((w) => !only || only.some((o) => w.name.includes(o)))
  .filter((w) => {
    if (w !== etcd || corpus !== undefined) return true;
    console.log('The etcd corpus row is left out: the public corpus is not part of this repository; give its folder (holding etcd/ and its expected.json) with --corpus DIR or LOCKPICK_CORPUS=DIR.');
    return false;
  });

interface Measured { seconds: number; cpu: number; mb: number; verdicts: Map<string, string>; reasons: Map<string, string>; code: number; err: string }

/** Runs argv, returns wall time, peak RSS (MB; NaN when unknown) and the verdict per file from its JSON lines. */
function measure(argv: string[], rssFrom: 'hook' | 'gnu-time' | 'none'): Promise<Measured> {
  return new Promise((resolve, reject) => {
    const cmd = rssFrom === 'gnu-time' ? [GNU_TIME, '-f', 'BENCH_GNU_TIME_KB=%M BENCH_GNU_TIME_CPU=%U+%S', ...argv] : argv;
    const t = performance.now();
    const child = spawn(cmd[0]!, cmd.slice(1), { cwd: repoRoot });
    let out = '', err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const seconds = (performance.now() - t) / 1000;
      const kb = Number((rssFrom === 'hook' ? /BENCH_MAX_RSS_KB=(\d+)/ : /BENCH_GNU_TIME_KB=(\d+)/).exec(err)?.[1] ?? NaN);
      const gnuCpu = /BENCH_GNU_TIME_CPU=([\d.]+)\+([\d.]+)/.exec(err);
      const cpu = rssFrom === 'hook' ? Number(/BENCH_CPU_US=(\d+)/.exec(err)?.[1] ?? NaN) / 1e6 : gnuCpu ? Number(gnuCpu[1]) + Number(gnuCpu[2]) : NaN;
      const verdicts = new Map<string, string>(), reasons = new Map<string, string>();
      for (const line of out.split('\n')) {
        if (!line.startsWith('{')) continue;
        try {
          const r = JSON.parse(line) as { file?: string; valid?: unknown; error?: unknown; reason?: unknown };
          if (r.file === undefined) continue;
          const f = path.resolve(repoRoot, r.file);
          verdicts.set(f, r.error !== undefined ? 'error' : String(r.valid));
          if (r.valid !== true && r.valid !== false && typeof r.reason === 'string') reasons.set(f, r.reason.length > 80 ? `${r.reason.slice(0, 77)}...` : r.reason);
        } catch { /* not a result line */ }
      }
      resolve({ seconds, cpu, mb: kb / 1024, verdicts, reasons, code: code ?? -1, err });
    });
  });
}

type Command = { argv: string[]; rssFrom: 'hook' | 'gnu-time' | 'none' };

/** Runs each command `runs` times, alternated (a, b, a, b, ...), and returns each one's medians. */
async function mediansOf(commands: Command[]): Promise<Measured[]> {
  const all: Measured[][] = commands.map(() => []);
  for (let i = 0; i < runs; i++) for (const [k, c] of commands.entries()) all[k]!.push(await measure(c.argv, c.rssFrom));
  const median = (xs: number[]) => xs.slice().sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
  return all.map((ms) => {
    const mid = ms.slice().sort((a, b) => a.seconds - b.seconds)[Math.floor((ms.length - 1) / 2)]!;
    return { ...mid, mb: median(ms.map((m) => m.mb)), cpu: median(ms.map((m) => m.cpu)) };
  });
}

/** One word for a workload's verdicts: valid / invalid / unknown, or "23 valid, 79 invalid" for many files. */
function summary(files: string[], v: Map<string, string>): string {
  if (files.length === 1) return v.get(files[0]!) ?? 'none';
  const counts = new Map<string, number>();
  for (const f of files) { const x = word(v.get(f) ?? 'none'); counts.set(x, (counts.get(x) ?? 0) + 1); }
  return [...counts].map(([k, n]) => `${n} ${k}`).join(', ');
}

const word = (v: string) => (v === 'true' ? 'valid' : v === 'false' ? 'invalid' : v);
const fmtS = (s: number) => (s < 10 ? s.toFixed(2) : s.toFixed(1));
const fmtMb = (mb: number) => (Number.isFinite(mb) ? `${Math.round(mb)} MB` : 'n/a');
/** "wall s (CPU s) / peak MB". */
const cell = (m: Measured) => `${fmtS(m.seconds)} s${Number.isFinite(m.cpu) ? ` (CPU ${fmtS(m.cpu)} s)` : ''} / ${fmtMb(m.mb)}`;

const dir = args.dir ? path.resolve(args.dir) : mkdtempSync(path.join(tmpdir(), 'lockpick-bench-porcupine-'));
mkdirSync(dir, { recursive: true });
const rssForPorcupine = existsSync(GNU_TIME) ? 'gnu-time' : 'none';
// What a user runs: the prebuilt dist/ when fresh; through tsx each call starts ~0.3 s later.
if (!distFresh()) console.log('note: dist/ is not fresh (npm run build), so lockpick runs through tsx: each call starts about 0.3 s later than an installed lockpick');
const caNote = extraCaNote('bench:porcupine');
if (caNote) console.log(caNote);
let failures = 0;
const argsGiven = process.argv.slice(2).map((a) => (/^[\w.,:=\/-]+$/.test(a) ? a : JSON.stringify(a))).join(' ');
console.log(`\`${porcupineCmd ? 'PORCUPINE_CMD="…" ' : ''}npm run bench:porcupine${argsGiven ? ` -- ${argsGiven}` : ''}\`, ${new Date().toISOString().slice(0, 10)}: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), seed ${seed}, median of ${runs} run(s)${porcupineCmd ? ', the two alternated' : ''}; wall time (CPU time, user + system) / peak RSS; load average at start ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
console.log('');
if (porcupineCmd) {
  console.log('| workload | lockpick | Porcupine | Porcupine ÷ lockpick (time) | verdicts | like for like |');
  console.log('|---|---|---|---:|---|---|');
} else {
  console.log('| workload | lockpick | verdict |');
  console.log('|---|---|---|');
}
try {
  for (const w of SELECTED) {
    const files = w.files(dir);
    // Measured as Porcupine is (GNU time around the command) where the machine has it: the hook's
    // --import would add its own load to lockpick's start-up.
    const lpArgv = [path.join(repoRoot, 'bin/lockpick.mjs'), 'check', ...files, '--model', w.model, '--json'];
    const lpCmd: Command = rssForPorcupine === 'gnu-time' ? { argv: [process.execPath, ...lpArgv], rssFrom: 'gnu-time' } : { argv: [process.execPath, '--import', path.join(repoRoot, 'bench/rss-hook.mjs'), ...lpArgv], rssFrom: 'hook' };
    const pcCmd: Command = { argv: ['sh', '-c', `${porcupineCmd} --model ${w.model} "$@"`, 'porcupine', ...files], rssFrom: rssForPorcupine };
    const [lp, pc] = (await mediansOf(porcupineCmd ? [lpCmd, pcCmd] : [lpCmd])) as [Measured, Measured | undefined];
    const lpVerdict = summary(files, lp.verdicts);
    if (lp.code === 2 || lp.code === 4 || (w.expect !== undefined && lpVerdict !== w.expect)) {
      failures++;
      console.error(`UNEXPECTED ${w.name}: lockpick exit ${lp.code}, verdict ${lpVerdict}${w.expect ? `, expected ${w.expect}` : ''}\n${lp.err.slice(0, 2000)}`);
    }
    const lpCell = cell(lp);
    if (!pc) {
      console.log(`| ${w.name} | ${lpCell} | ${word(lpVerdict)} |`);
      continue;
    }
    const decided = (v: string | undefined) => v === 'true' || v === 'false';
    // No verdict (a limit, out of memory) is not a disagreement: said as such.
    const differ = files.filter((f) => decided(pc.verdicts.get(f)) && lp.verdicts.get(f) !== pc.verdicts.get(f));
    const undecided = files.filter((f) => !decided(pc.verdicts.get(f)));
    const why = pc.reasons.size ? ` (${[...new Set(pc.reasons.values())].join('; ')})` : pc.verdicts.size ? '' : ` (exit ${pc.code})`;
    if (differ.length) failures++;
    const agree = differ.length ? `DIFFER on ${differ.length}: lockpick ${word(lpVerdict)}, Porcupine ${word(summary(files, pc.verdicts))}`
      : undecided.length === files.length ? `lockpick ${word(lpVerdict)}; Porcupine no verdict${why}`
        : undecided.length ? `agree on ${files.length - undecided.length}; Porcupine no verdict on ${undecided.length}${why}` : `agree: ${word(lpVerdict)}`;
    const ratio = undecided.length === 0 ? `${(pc.seconds / lp.seconds).toFixed(2)}×` : 'n/a';
    console.log(`| ${w.name} | ${lpCell} | ${cell(pc)} | ${ratio} | ${agree} | ${w.like ? 'yes' : 'no: lease events (lost, lapse) Porcupine does not model'} |`);
  }
} finally {
  if (!args.dir) rmSync(dir, { recursive: true, force: true });
}
console.log(`\nLoad average at the end ${loadavg().map((x) => x.toFixed(2)).join(' ')}.`);
if (!porcupineCmd) console.log('Porcupine was not given: set PORCUPINE_CMD to a command that checks JSON Lines histories (docs/history-format.md) with Porcupine (how to build one outside the repository: docs/benchmarks.md, "Porcupine beside lockpick") to see it beside lockpick.');
if (failures) { console.error(`${failures} workload(s) gave an unexpected lockpick verdict`); process.exitCode = 1; }
