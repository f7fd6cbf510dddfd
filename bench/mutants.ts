// `npm run bench:mutants`: the mutation score of lockpick's random search.
// Each mutant (bench/mutants/fixtures.ts) is a small, realistic bug put into a
// built-in recipe; it is written beside the recipes (src/locks/.mutants/, removed
// afterwards) and searched with `lockpick run --lock <that module>` and the
// faults a user would pick for its family, for --time seconds. Killed = UNSAFE
// (exit 1), survived = SAFE (exit 0), inconclusive = exit 3. Then every
// unmutated recipe the mutants came from is searched the same way, loaded the
// same way: any UNSAFE there is a false alarm (or a fault the family should not
// use), printed loudly, and the bench exits 1.
// Options: --time S (per search, default 120)  --seed S (default 1)  --only NAME,...
//          --family F,...  --jobs N (searches at once, default 1: real servers and timing)
//          --no-base (skip the unmutated recipes)  --keep-store DIR (keep every run's store there)
// Run it alone (it starts real servers):   npm run bench:mutants -- --time 30
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { RunSummary } from '../src/runner/index.ts';
import { FAMILIES, MUTANTS } from './mutants/fixtures.ts';
import { materialize, MUTANTS_DIR, REPO } from './mutants/apply.ts';
import type { Mutant } from './mutants/types.ts';

const { values: args } = parseArgs({
  options: {
    time: { type: 'string' }, seed: { type: 'string' }, only: { type: 'string' }, family: { type: 'string' },
    jobs: { type: 'string' }, 'no-base': { type: 'boolean' }, 'keep-store': { type: 'string' },
  },
});
const timeS = Number(args.time ?? 120);
const seed = Number(args.seed ?? 1);
const jobs = Number(args.jobs ?? 1);
const only = args.only?.split(',').filter(Boolean);
const families = args.family?.split(',').filter(Boolean);
const unknownNames = (only ?? []).filter((n) => !MUTANTS.some((m) => m.name === n));
const unknownFamilies = (families ?? []).filter((f) => !FAMILIES[f]);
if (!(timeS >= 1) || !Number.isInteger(seed) || !Number.isInteger(jobs) || jobs < 1 || unknownNames.length || unknownFamilies.length) {
  console.error(`bench/mutants.ts: --time and --seed whole numbers, --jobs ≥ 1; --only takes mutant names (${MUTANTS.map((m) => m.name).join(', ')}), --family takes ${Object.keys(FAMILIES).join(', ')}${unknownNames.length ? `; unknown mutants: ${unknownNames.join(', ')}` : ''}${unknownFamilies.length ? `; unknown families: ${unknownFamilies.join(', ')}` : ''}`);
  process.exit(2);
}
const chosen = MUTANTS.filter((m) => (!only || only.includes(m.name)) && (!families || families.includes(m.family)));

type Verdict = 'killed' | 'survived' | 'inconclusive' | 'error';
interface Outcome { verdict: Verdict; afterS?: number; runs?: number; conclusive?: number; found?: string; gaps?: string[]; error?: string }

// The unmutated recipe behind a mutant: its module, export and family.
const baseKey = (m: Mutant) => `${m.family}:${m.module ?? m.file}:${m.exportName ?? 'recipe'}`;
const baseLabel = (m: Mutant) => `${(m.module ?? m.file).replace(/\.ts$/, '')}${m.exportName && m.exportName !== 'recipe' ? ` (${m.exportName})` : ''}`;

const children = new Set<ChildProcess>();
const written = new Set<() => void>();
let interrupted = false;
process.on('SIGINT', () => {
  interrupted = true;
  for (const c of children) c.kill('SIGINT');   // lockpick stops its servers and exits 130
});

function lockpickRun(lockPath: string, m: Mutant, store: string): Promise<{ code: number | null; summary?: RunSummary; stderr: string }> {
  const fam = FAMILIES[m.family]!;
  const argv = ['bin/lockpick.mjs', 'run', '--lock', path.relative(REPO, lockPath), '--faults', fam.faults.join(','), ...fam.args,
    '--time', String(timeS), '--seed', String(seed), '--shrink-time', '0', '--first-failure', '--store', store, '--json'];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, argv, { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => {
      children.delete(child);
      let summary: RunSummary | undefined;
      try { summary = JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as RunSummary; } catch { /* no summary: an error row */ }
      resolve({ code, summary, stderr });
    });
  });
}

/** Searches one module (a mutant, or the unmutated recipe when `mutated` is false). */
async function search(m: Mutant, mutated: boolean): Promise<Outcome> {
  const dir = mutated ? m.name : `base-${baseKey(m).replace(/[^a-z0-9-]+/gi, '-')}`;
  let mod: ReturnType<typeof materialize>;
  try {
    mod = materialize(m, dir, mutated);
  } catch (err) {
    return { verdict: 'error', error: (err as Error).message };
  }
  written.add(mod.remove);
  const store = args['keep-store'] ? path.resolve(args['keep-store'], dir) : mkdtempSync(path.join(tmpdir(), 'lockpick-mutants-'));
  mkdirSync(store, { recursive: true });
  try {
    const r = await lockpickRun(mod.lockPath, m, store);
    const s = r.summary;
    // An interrupted run (exit 130) prints a summary without throughput.
    const base = { runs: s?.throughput?.runs, conclusive: s?.throughput?.conclusive };
    if (r.code === 1 && s) {
      const f = s.failures?.[0];
      return { verdict: 'killed', afterS: (s.firstAfterMs ?? 0) / 1000, ...base, found: f ? f.class : undefined };
    }
    if (r.code === 0 && s) return { verdict: 'survived', ...base };
    if (r.code === 3 && s) return { verdict: 'inconclusive', ...base, gaps: s.gaps };
    const last = r.stderr.trim().split('\n').slice(-3).join(' / ');
    return { verdict: 'error', ...base, error: `lockpick exit ${r.code}: ${last}` };
  } finally {
    mod.remove();
    written.delete(mod.remove);
    if (!args['keep-store']) rmSync(store, { recursive: true, force: true });
  }
}

/** Runs the tasks `jobs` at a time, in order of the list. */
async function pool<T>(tasks: Array<() => Promise<T>>): Promise<T[]> {
  const out: T[] = new Array(tasks.length);
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(jobs, tasks.length) }, async () => {
    while (next < tasks.length && !interrupted) {
      const i = next++;
      out[i] = await tasks[i]!();
    }
  }));
  return out;
}

const fmtS = (s: number | undefined) => (s === undefined ? '' : `${s.toFixed(1)} s`);
const runsOf = (o: Outcome) => (o.runs === undefined ? '' : `${o.runs} (${o.conclusive} conclusive)`);
const note = (o: Outcome, m?: Mutant) => o.found ?? o.error ?? (o.gaps?.length ? o.gaps.join('; ') : o.verdict === 'survived' && m?.survives ? `(may survive: ${m.survives})` : '');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

const bases = new Map<string, Mutant>();
for (const m of chosen) if (!bases.has(baseKey(m))) bases.set(baseKey(m), m);
const started = Date.now();
console.error(`bench:mutants: ${chosen.length} mutant(s)${args['no-base'] ? '' : ` + ${bases.size} unmutated recipe(s)`}, ${timeS} s of search each, seed ${seed}, ${jobs} at a time`);

try {
  const mutantOutcomes = await pool(chosen.map((m) => async () => {
    const o = await search(m, true);
    console.error(`  ${m.name}: ${o.verdict}${o.afterS !== undefined ? ` after ${fmtS(o.afterS)}` : ''} ${note(o, m)}`);
    return o;
  }));
  const baseList = args['no-base'] ? [] : [...bases.values()];
  const baseOutcomes = await pool(baseList.map((m) => async () => {
    const o = await search(m, false);
    console.error(`  unmutated ${baseLabel(m)} [${m.family}]: ${o.verdict} ${note(o)}`);
    return o;
  }));
  if (interrupted) throw new Error('interrupted');

  console.log(`\nmutants: lockpick run --lock <mutated recipe> --faults <family's> --time ${timeS} --seed ${seed} --shrink-time 0 (${new Date().toISOString().slice(0, 10)})\n`);
  console.log('| mutant | family | faults | verdict | time to first violation | runs | found / why not |');
  console.log('|---|---|---|---|---|---|---|');
  chosen.forEach((m, i) => {
    const o = mutantOutcomes[i]!;
    const fam = FAMILIES[m.family]!;
    console.log(`| ${m.name} | ${m.family} | ${[fam.faults.join(','), ...fam.args].join(' ')} | ${o.verdict} | ${fmtS(o.afterS)} | ${runsOf(o)} | ${note(o, m)} |`);
  });
  const killed = mutantOutcomes.filter((o) => o.verdict === 'killed');
  const times = killed.map((o) => o.afterS!);
  const count = (v: Verdict) => mutantOutcomes.filter((o) => o.verdict === v).length;
  const pct = chosen.length ? Math.round((100 * killed.length) / chosen.length) : 0;
  console.log(`\nmutation score: ${killed.length}/${chosen.length} killed (${pct}%), ${count('survived')} survived, ${count('inconclusive')} inconclusive, ${count('error')} error(s); median time to kill ${times.length ? fmtS(median(times)) : '—'}; ${((Date.now() - started) / 60000).toFixed(1)} min in all`);
  // Equivalent mutants (argued in their fixture) that survived leave the denominator, as in mutation testing.
  const equivalent = chosen.filter((m, i) => m.equivalent && mutantOutcomes[i]!.verdict === 'survived');
  if (equivalent.length) {
    const rest = chosen.length - equivalent.length;
    console.log(`without the ${equivalent.length} equivalent survivor(s) (${equivalent.map((m) => m.name).join(', ')}: why in the table): ${killed.length}/${rest} killed (${rest ? Math.round((100 * killed.length) / rest) : 0}%)`);
  }
  const contradicted = chosen.filter((m, i) => m.equivalent && mutantOutcomes[i]!.verdict === 'killed');
  if (contradicted.length) console.log(`!!! marked equivalent but killed (the argument in its fixture is wrong): ${contradicted.map((m) => m.name).join(', ')}`);
  console.log('\nfamilies (the faults a user would pick; every mutant of a family runs with them):');
  for (const [name, fam] of Object.entries(FAMILIES)) if (chosen.some((m) => m.family === name)) console.log(`  ${name}: --faults ${fam.faults.join(',')} ${fam.args.join(' ')} — ${fam.why}`);

  if (baseList.length) {
    console.log('\nfalse-alarm check: each unmutated recipe, same faults, budget and seed (must be SAFE; inconclusive is reported)\n');
    console.log('| unmutated recipe | family | verdict | time to first violation | runs | found / why not |');
    console.log('|---|---|---|---|---|---|');
    baseList.forEach((m, i) => {
      const o = baseOutcomes[i]!;
      console.log(`| ${baseLabel(m)} | ${m.family} | ${o.verdict === 'killed' ? 'UNSAFE' : o.verdict === 'survived' ? 'SAFE' : o.verdict} | ${fmtS(o.afterS)} | ${runsOf(o)} | ${note(o)} |`);
    });
    const alarms = baseList.filter((_, i) => baseOutcomes[i]!.verdict === 'killed');
    if (alarms.length) {
      console.log(`\n!!! FALSE ALARM: ${alarms.length} unmutated recipe(s) UNSAFE: ${alarms.map((m) => `${baseLabel(m)} [${m.family}]`).join(', ')}.`);
      console.log('!!! Either lockpick blames the lock for its own fault, or the family\'s faults break the correct recipe too;');
      console.log('!!! the kills of those families\' mutants prove nothing until it is fixed.');
      process.exitCode = 1;
    } else {
      console.log(`\nfalse alarms: 0 of ${baseList.length} unmutated recipe(s) (${baseOutcomes.filter((o) => o.verdict === 'survived').length} SAFE, ${baseOutcomes.filter((o) => o.verdict !== 'survived').length} not SAFE but not UNSAFE either)`);
    }
  }
} catch (err) {
  console.error(`bench:mutants: ${(err as Error).message}`);
  process.exitCode = interrupted ? 130 : 4;
} finally {
  for (const remove of written) remove();
  // Leave no empty .mutants folder behind.
  try { rmdirSync(MUTANTS_DIR); } catch { /* not empty (another bench running) or gone */ }
}
