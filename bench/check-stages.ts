// `npm run bench:stages -- PATH [--model M] [--runs N] [--passes P]`: where a check's time goes,
// cold and warm, so a change to the reader, the history's rules or a checker can be judged by the
// stage it touches. Each run starts a fresh process per stage (bench/check-stages-child.mjs):
//   read   the reader and the scanner alone (each event's fields to a sink that counts them)
//   build  read + the history's rules and the pairing of completions (HistoryBuilder), no check
//   check  the whole check of the file under --model, as `lockpick check` does it after start-up
// and times P passes of it in that process: the first is cold (the engine still compiling), the
// last warm; the read stage's first pass also says how long each block of 2048 events took (the
// engine's warm-up, event by event). Beside them: `node -e 0` and the whole `lockpick check FILE --model M --json`
// command, wall time. The stages, the node start and the command alternate within each run, so a
// change of the machine's load falls on all of them. Prints medians of N runs as a table. PATH is a
// history file or a directory (its *.jsonl files, checked in one process as `lockpick check DIR/*.jsonl`).
// Needs a fresh dist/ (`npm run build`): it times the JavaScript an installed lockpick runs.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
// @ts-expect-error: a plain .mjs module without types
import { distFresh } from '../bin/dist-fresh.mjs';
import { extraCaNote } from './node-start.ts';
import { median } from './median.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const usage = 'usage: npm run bench:stages -- PATH (a history file, or a directory of .jsonl files) [--model M] [--runs N] [--passes P]';
let parsed;
try {
  parsed = parseArgs({ allowPositionals: true, options: { model: { type: 'string', default: 'mutex' }, runs: { type: 'string', default: '5' }, passes: { type: 'string', default: '4' } } });
} catch (e) {
  console.error(`bench:stages: ${(e as Error).message}\n${usage}`);
  process.exit(2);
}
const { values, positionals } = parsed;
const runs = Number(values.runs), passes = Number(values.passes);
const file = positionals[0] === undefined ? undefined : path.resolve(positionals[0]);
if (file === undefined || positionals.length !== 1 || !existsSync(file)) {
  console.error(`bench:stages: ${file === undefined ? 'give one history file or directory' : positionals.length !== 1 ? 'give exactly one history file or directory' : `${file} does not exist`}\n${usage}`);
  process.exit(2);
}
if (!Number.isSafeInteger(runs) || runs < 1 || !Number.isSafeInteger(passes) || passes < 2) {
  console.error(`bench:stages: --runs takes an integer of 1 or more, --passes one of 2 or more (the first pass is the cold one)\n${usage}`);
  process.exit(2);
}
/** What each stage and the whole command check: the file, or the directory's .jsonl files (in name order). */
const files = statSync(file).isDirectory() ? readdirSync(file).filter((f) => f.endsWith('.jsonl')).sort().map((f) => path.join(file, f)) : [file];
if (files.length === 0) {
  console.error(`bench:stages: ${file} holds no .jsonl file\n${usage}`);
  process.exit(2);
}
if (!distFresh()) {
  console.error('bench:stages: dist/ is not fresh: run `npm run build` first (the bench times the prebuilt JavaScript an installed lockpick runs)');
  process.exit(2);
}

/** Runs argv; resolves with its stdout and wall ms, rejects when it exits with a code outside `ok`. */
function timed(argv: string[], ok: number[]): Promise<{ out: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const child = spawn(argv[0]!, argv.slice(1), { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.on('error', reject);
    child.on('exit', (code) => {
      const ms = performance.now() - t;
      if (code !== null && ok.includes(code)) resolve({ out, ms });
      else reject(new Error(`${argv.slice(1, 3).join(' ')} … exited ${code}`));
    });
  });
}

const STAGES = ['read', 'build', 'check'] as const;
type Stage = typeof STAGES[number];
const seen: Record<Stage, { start: number[]; load: number[]; cold: number[]; warm: number[] }> = {
  read: { start: [], load: [], cold: [], warm: [] }, build: { start: [], load: [], cold: [], warm: [] }, check: { start: [], load: [], cold: [], warm: [] },
};
const nodeStart: number[] = [], command: number[] = [];
/** The read stage's first pass, per run: ms taken by each block of `step` events. */
const blocks: number[][] = [];
let step = 0;
const child = path.join(repoRoot, 'bench/check-stages-child.mjs');

for (let r = 0; r < runs; r++) {
  nodeStart.push((await timed([process.execPath, '-e', '0'], [0])).ms);
  for (const stage of STAGES) {
    const { out } = await timed([process.execPath, child, stage, values.model!, String(passes), ...files], [0]);
    const m = JSON.parse(out) as { start: number; load: number; ms: number[]; marks: number[]; step: number };
    if (stage === 'read') { blocks.push(m.marks.map((t, i) => t - (i === 0 ? 0 : m.marks[i - 1]!))); step = m.step; }
    seen[stage].start.push(m.start); seen[stage].load.push(m.load);
    seen[stage].cold.push(m.ms[0]!); seen[stage].warm.push(m.ms[m.ms.length - 1]!);
  }
  // The verdict is no concern here: 0 valid, 1 invalid, 3 no verdict are all a finished check.
  command.push((await timed([process.execPath, path.join(repoRoot, 'bin/lockpick.mjs'), 'check', ...files, '--model', values.model!, '--json'], [0, 1, 3])).ms);
}

const range = (xs: number[]) => `${Math.round(Math.min(...xs))}–${Math.round(Math.max(...xs))}`;
const f = (xs: number[]) => `${Math.round(median(xs))} ms (${range(xs)})`;
const args = process.argv.slice(2).map((a) => (/^[\w.,:=\/-]+$/.test(a) ? a : JSON.stringify(a))).join(' ');
console.log(`\`npm run bench:stages -- ${args}\`, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), median (range) of ${runs} run(s), ${passes} passes per process; load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
console.log('');
console.log('| stage | first pass (cold) | pass ' + passes + ' (warm) | module load | first line after process start |');
console.log('|---|---|---|---|---|');
for (const stage of STAGES) {
  const s = seen[stage];
  console.log(`| ${stage} | ${f(s.cold)} | ${f(s.warm)} | ${f(s.load)} | ${f(s.start)} |`);
}
console.log('');
const perBlock = blocks[0]!.map((_, i) => median(blocks.map((b) => b[i]!)));
if (perBlock.length) {
  console.log(`read, first pass, ms per ${step} events (the first ${perBlock.length * step}), medians: ${perBlock.map((x) => x.toFixed(1)).join(' ')}; µs per event in the first block ${(1000 * perBlock[0]! / step).toFixed(2)}, in the last ${(1000 * perBlock[perBlock.length - 1]! / step).toFixed(2)}`);
  console.log('');
}
const caNote = extraCaNote('bench:stages');
if (caNote) { console.log(caNote); console.log(''); }
console.log(`\`node -e 0\`: ${f(nodeStart)} wall; \`lockpick check ${files.length === 1 ? 'FILE' : `DIR/*.jsonl (${files.length} files)`} --model ${values.model} --json\`: ${f(command)} wall.`);
