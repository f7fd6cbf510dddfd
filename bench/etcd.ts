// The 102 Jepsen etcd histories of the public corpus (not part of this repository: the folder
// --corpus DIR or LOCKPICK_CORPUS names, holding etcd/ and its expected.json) checked in one
// process under cas-register, as Porcupine's test suite does: total time (read + check), the
// slowest file, peak RSS, and every verdict against expected.json. Exit 1 on a wrong verdict.
// Then the work itself, the same on any machine: how many times the checks call the model's
// step (deciding, and explaining each violation), in all and on the costliest file.
//   node --import tsx bench/etcd.ts [--runs N] [--corpus DIR]   (prints the median of N runs in this process)
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { checkHistory, MODELS, registerModel } from '../checkers/index.ts';
import { readHistory } from '../src/history/index.ts';
import { corpusDir } from '../test/support/corpus.ts';

const { values: args } = parseArgs({ options: { runs: { type: 'string' }, corpus: { type: 'string' } } });
const corpusRoot = corpusDir(args.corpus !== undefined ? { LOCKPICK_CORPUS: args.corpus } : process.env);
if (corpusRoot === undefined) {
  console.error('bench/etcd.ts needs the public corpus, which is not part of this repository: give its folder (holding etcd/ and its expected.json) with --corpus DIR or LOCKPICK_CORPUS=DIR.');
  process.exit(2);
}
const dir = path.join(corpusRoot, 'etcd');
const expected = Object.entries(JSON.parse(readFileSync(path.join(dir, 'expected.json'), 'utf8')) as Record<string, { file: string; valid: boolean }>)
  .filter(([name]) => !name.startsWith('_'));

const totals: number[] = [];
let wrong = 0, slowest = { name: '', ms: 0 };
for (let run = 0; run < Number(args.runs ?? 3); run++) {
  const t0 = performance.now();
  for (const [name, e] of expected) {
    const t = performance.now();
    const r = checkHistory(await readHistory(path.join(dir, e.file)), { model: 'cas-register' });
    const ms = performance.now() - t;
    if (ms > slowest.ms) slowest = { name, ms };
    if (r.valid !== e.valid) { wrong++; console.error(`WRONG ${name}: ${r.valid}, expected ${e.valid}`); }
  }
  totals.push(performance.now() - t0);
}
const median = totals.slice().sort((a, b) => a - b)[Math.floor((totals.length - 1) / 2)]!;
console.log(`etcd corpus: ${expected.length} histories, cas-register, in one process: runs ${totals.map((t) => Math.round(t)).join(' / ')} ms, median ${Math.round(median)} ms; ` +
  `slowest ${slowest.name} ${Math.round(slowest.ms)} ms; peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MB; wrong verdicts: ${wrong}`);
if (wrong) process.exitCode = 1;

// The same checks with a model that counts its steps (registered under a name of its own).
const base = MODELS['cas-register']!;
let steps = 0;
registerModel({ ...base, name: 'cas-register-counted', step: (st: unknown, op) => { steps++; return base.step(st, op); } });
const perFile: [string, number][] = [];
for (const [name, e] of expected) {
  const before = steps;
  checkHistory(await readHistory(path.join(dir, e.file)), { model: 'cas-register-counted' });
  perFile.push([name, steps - before]);
}
const costliest = perFile.reduce((a, b) => (b[1] > a[1] ? b : a));
console.log(`model steps: ${steps} in all; the costliest file ${costliest[0]} ${costliest[1]}`);
