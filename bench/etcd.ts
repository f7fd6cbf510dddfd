// The 102 Jepsen etcd histories of ../shared/corpus/etcd (never copied here) checked in one
// process under cas-register, as Porcupine's test suite does: total time (read + check), the
// slowest file, peak RSS, and every verdict against expected.json. Exit 1 on a wrong verdict.
//   node --import tsx bench/etcd.ts [--runs N]   (prints the median of N runs in this process)
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { checkHistory } from '../checkers/index.ts';
import { readHistory } from '../src/history/index.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dir = path.resolve(repoRoot, '../shared/corpus/etcd');
const { values: args } = parseArgs({ options: { runs: { type: 'string' } } });
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
