// `npm run bench:replay`: how often each stored counterexample breaks the lock again. Every demo
// catalogue entry that should break (expected UNSAFE; its plan in scenarios/NAME/test.json) is
// replayed with `lockpick run --replay scenarios/NAME --runs N --measure`, and so is every run
// dir given with --dir (fresh counterexamples of the built-in locks). The table: entry, the
// rate (reproduced/runs, and inconclusive runs with their most frequent reason), the median
// time of one run.
// Options: --runs N (default 10)  --only NAME,NAME  --dir RUN_DIR (repeatable)  --no-catalogue
// Run it alone (it starts real servers).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DEMOS } from '../src/demo/registry.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { runs: { type: 'string', default: '10' }, only: { type: 'string' }, dir: { type: 'string', multiple: true }, 'no-catalogue': { type: 'boolean' } } });
const runs = Number(values.runs);
if (!Number.isSafeInteger(runs) || runs < 1 || runs > 1000) { console.error('bench:replay: --runs N, 1 to 1000'); process.exit(2); }
const only = values.only ? new Set(values.only.split(',')) : undefined;

const cases: { name: string; dir: string }[] = [
  ...(values['no-catalogue'] ? [] : DEMOS.filter((d) => d.expected === 'UNSAFE' && (!only || only.has(d.name))).map((d) => ({ name: d.name, dir: path.join(repoRoot, 'scenarios', d.name) }))),
  ...(values.dir ?? []).map((d) => ({ name: path.relative(repoRoot, d) || d, dir: path.resolve(d) })),
];

function replay(dir: string, store: string): Promise<{ code: number | null; stdout: string; ms: number }> {
  const t0 = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(repoRoot, 'bin/lockpick.mjs'), 'run', '--replay', dir, '--runs', String(runs), '--measure', '--store', store, '--json'], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.on('exit', (code) => resolve({ code, stdout, ms: Date.now() - t0 }));
  });
}

console.log(`bench:replay: ${cases.length} counterexample(s), ${runs} run(s) each; ${new Date().toISOString()}; load ${(await import('node:os')).loadavg().map((x) => x.toFixed(2)).join(' ')}`);
const rows: string[] = [];
for (const c of cases) {
  const store = mkdtempSync(path.join(tmpdir(), 'lockpick-bench-replay-'));
  try {
    const r = await replay(c.dir, store);
    let cell = `exit ${r.code}`;
    let per = `${(r.ms / 1000 / runs).toFixed(1)} s`;
    try {
      const summary = JSON.parse(r.stdout.trim().split('\n').pop() ?? '') as { dir: string };
      const res = JSON.parse(readFileSync(path.join(summary.dir, 'results.json'), 'utf8')) as { reproduction?: { runs: number; reproduced: number; inconclusive: number; inconclusive_reasons: Record<string, number> }; throughput?: { searchMs?: number } };
      const rep = res.reproduction;
      if (rep) {
        const why = Object.entries(rep.inconclusive_reasons).sort((a, b) => b[1] - a[1])[0];
        cell = `${rep.reproduced}/${rep.runs}${rep.inconclusive ? ` (${rep.inconclusive} inconclusive${why ? `: ${why[0].slice(0, 80)}` : ''})` : ''}`;
      }
    } catch { /* the exit code says it */ }
    per = `${(r.ms / 1000 / runs).toFixed(1)} s`;
    rows.push(`| ${c.name} | ${cell} | ${per} |`);
    console.log(rows.at(-1));
  } finally {
    rmSync(store, { recursive: true, force: true });
  }
}
console.log(`\n| counterexample | reproduced | time per run (wall, start-up included) |\n|---|---|---|\n${rows.join('\n')}`);
