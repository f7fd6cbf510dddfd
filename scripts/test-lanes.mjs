// Which lane beside the serial one runs each integration file marked `// test-lane: beside`:
// longest first, each to the lane with the least time so far, the first lane starting with the
// unit tests' time. The times are test/lane-weights.tsv's (file, seconds: a run's test times,
// written by `bash scripts/test.sh --weights` from .test-times/); a file it does not list counts as
// the median. Without it every file counts the same and the lanes take turns.
//   node scripts/test-lanes.mjs LANES FILE...   prints one line per lane: its files, space-separated
//   node scripts/test-lanes.mjs --weights       prints the TSV from the last run's .test-times/
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const WEIGHTS = process.env.LOCKPICK_LANE_WEIGHTS ?? path.join(root, 'test', 'lane-weights.tsv');   // another file: tests
const UNIT = 'unit tests';

if (process.argv[2] === '--weights') {
  const dir = path.join(root, '.test-times');
  if (!existsSync(dir)) {
    console.error('no test times yet: run `bash scripts/test.sh` first (it keeps them in .test-times/)');
    process.exit(2);
  }
  const rows = readdirSync(dir).filter((f) => f.endsWith('.jsonl'))
    .flatMap((f) => readFileSync(path.join(dir, f), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)));
  const byFile = new Map();
  for (const r of rows) {
    const key = r.file.startsWith('test/unit/') ? UNIT : r.file;
    byFile.set(key, (byFile.get(key) ?? 0) + r.s);
  }
  process.stdout.write('# seconds of each test file in one run (unit tests summed), for scripts/test-lanes.mjs\n');
  for (const [f, s] of [...byFile].sort((a, b) => a[0].localeCompare(b[0]))) process.stdout.write(`${f}\t${Math.round(s)}\n`);
} else {
  const lanes = Math.max(1, Number(process.argv[2]));
  const files = process.argv.slice(3);
  const weights = new Map();
  if (existsSync(WEIGHTS)) {
    for (const line of readFileSync(WEIGHTS, 'utf8').split('\n')) {
      const [f, s] = line.split('\t');
      if (f && !f.startsWith('#') && Number.isFinite(Number(s))) weights.set(f, Number(s));
    }
  }
  const known = files.map((f) => weights.get(f)).filter((s) => s !== undefined).sort((a, b) => a - b);
  const median = known.length ? known[Math.floor(known.length / 2)] : 1;
  const weight = (f) => weights.get(f) ?? median;
  const load = Array.from({ length: lanes }, (_, k) => (k === 0 ? weights.get(UNIT) ?? 0 : 0));
  const out = Array.from({ length: lanes }, () => []);
  // Longest first; ties by name, so the lanes are the same on every machine.
  for (const f of [...files].sort((a, b) => weight(b) - weight(a) || a.localeCompare(b))) {
    let k = 0;
    for (let j = 1; j < lanes; j++) if (load[j] < load[k]) k = j;
    out[k].push(f);
    load[k] += weight(f);
  }
  process.stdout.write(out.map((fs) => fs.join(' ')).join('\n') + '\n');
}
