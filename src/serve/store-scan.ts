// What `lockpick serve` shows of a store: every run dir (store/<lock>/<run-id>/, test.json and,
// once done, results.json; a demo's runs below store/…/runs/ too) and every merged shard set
// (`lockpick merge --out DIR`: results.json with "shards"), found by walking the store a few
// levels deep without following symlinks (store/latest). Each becomes one row: lock, faults,
// verdict, failure classes, date, duration, coverage when known, and whether it still runs.
import { existsSync, lstatSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { UsageError } from '../errors.ts';
import { readProgress, type ProgressLine } from '../runner/progress-file.ts';

export type RowVerdict = 'SAFE' | 'UNSAFE' | 'INCONCLUSIVE' | 'RUNNING' | 'UNFINISHED';

export interface StoreRow {
  kind: 'run' | 'merged';
  /** Its path under the store, with '/' (the id in the page's URLs). */
  id: string;
  lock: string;
  faults: string[];
  verdict: RowVerdict;
  classes: string[];
  /** ISO time the run started (a merged set: when it was merged). */
  date?: string;
  durationMs?: number;
  /** Fault-space coverage, percent of the known cells hit, when the run measured it. */
  coverage?: number;
  runs?: number;
  /** A merged set's shards ("1/2"), with their run dirs under the store when they are in it. */
  shards?: { shard: string; verdict: string; id?: string }[];
  /** A running search's last progress line. */
  progress?: ProgressLine;
}

/** How deep run dirs are looked for: store/<lock>/<run-id> is 2, a demo's store/demo/runs/<lock>/<run-id> 4. */
const DEPTH = 5;
/** Folders inside a run dir that are its own, not runs. */
const OWN = /^(counterexample(-\d+)?|clients)$/;

/** A JSON object file, or undefined (missing, torn while written, not an object). */
export function readJson(path: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** The fault kinds a run asked for; a replay's (a scenario's test.json names none): its plan's. */
function faultsOf(test: Record<string, unknown>): string[] {
  const asked = strings(test.faults);
  if (asked.length) return asked;
  const plan = test.plan as { faults?: { kind?: unknown }[] } | null | undefined;
  return [...new Set((Array.isArray(plan?.faults) ? plan.faults : []).map((f) => f.kind).filter((k): k is string => typeof k === 'string'))];
}

function verdictOf(v: unknown): RowVerdict {
  return v === true ? 'SAFE' : v === false ? 'UNSAFE' : 'INCONCLUSIVE';
}

function classesOf(results: Record<string, unknown>): string[] {
  const failures = Array.isArray(results.failures) ? results.failures as { class?: unknown; anomalies?: unknown }[] : [];
  return [...new Set(failures.map((f) => (typeof f.class === 'string' ? f.class : strings(f.anomalies).join(' + '))).filter(Boolean))];
}

function coverageOf(results: Record<string, unknown>): number | undefined {
  const cells = (results.coverage as { cells?: { percent?: unknown } } | undefined)?.cells;
  return typeof cells?.percent === 'number' ? cells.percent : undefined;
}

/** Whether process `pid` is alive (a run's progress file names its writer). */
function alive(pid: number): boolean {
  try { process.kill(pid, 0); return true; } catch (e) { return (e as NodeJS.ErrnoException).code === 'EPERM'; }
}

function runRow(root: string, dir: string, test: Record<string, unknown>): StoreRow {
  const results = readJson(join(dir, 'results.json'));
  const started = typeof test.started === 'string' ? test.started : undefined;
  const row: StoreRow = {
    kind: 'run', id: relative(root, dir).split(sep).join('/'), lock: String(test.lock ?? '?'), faults: faultsOf(test),
    verdict: 'UNFINISHED', classes: [], date: started,
  };
  if (results) {
    row.verdict = verdictOf(results.verdict);
    row.classes = classesOf(results);
    row.coverage = coverageOf(results);
    row.runs = typeof results.runs === 'number' ? results.runs : undefined;
    const t0 = started ? Date.parse(started) : NaN;
    if (Number.isFinite(t0)) row.durationMs = Math.max(0, statSync(join(dir, 'results.json')).mtimeMs - t0);
    return row;
  }
  const progress = readProgress(dir);
  const last = progress.at(-1);
  if (last && alive(last.pid)) {
    row.verdict = 'RUNNING';
    row.progress = last;
    row.runs = last.runs;
    row.coverage = last.cells?.percent;
  }
  return row;
}

function mergedRow(root: string, dir: string, results: Record<string, unknown>, runIds: Map<string, string>): StoreRow {
  const shards = Array.isArray(results.shards) ? results.shards as { shard?: unknown; dir?: unknown; verdict?: unknown }[] : [];
  return {
    kind: 'merged', id: relative(root, dir).split(sep).join('/'), lock: String(results.lock ?? '?'), faults: strings(results.faults),
    verdict: verdictOf(results.verdict), classes: classesOf(results), date: statSync(join(dir, 'results.json')).mtime.toISOString(),
    coverage: coverageOf(results), runs: (results.coverage as { runs?: number } | undefined)?.runs,
    shards: shards.map((s) => ({
      shard: String(s.shard ?? '?'), verdict: s.verdict === 'missing-results' ? 'UNFINISHED' : verdictOf(s.verdict),
      id: typeof s.dir === 'string' ? runIds.get(s.dir) : undefined,
    })),
  };
}

/** A finished run's row, kept while its results.json is unchanged: a poll of a large store reads only what moved. */
export type RowCache = Map<string, { mtimeMs: number; row: StoreRow }>;

function cachedRunRow(root: string, dir: string, cache: RowCache | undefined): StoreRow | undefined {
  let mtimeMs: number;
  try { mtimeMs = statSync(join(dir, 'results.json')).mtimeMs; } catch { return undefined; }
  const hit = cache?.get(dir);
  if (hit && hit.mtimeMs === mtimeMs) return hit.row;
  const test = readJson(join(dir, 'test.json'));
  if (!test) return undefined;
  const row = runRow(root, dir, test);
  cache?.set(dir, { mtimeMs, row });
  return row;
}

/** Every run dir and merged set under the store, newest first. */
export function scanStore(root: string, cache?: RowCache): StoreRow[] {
  const runs: StoreRow[] = [];
  const merged: { dir: string; results: Record<string, unknown> }[] = [];
  const runIds = new Map<string, string>();
  const walk = (dir: string, depth: number): void => {
    const done = existsSync(join(dir, 'test.json')) ? cachedRunRow(root, dir, cache) : undefined;
    const test = done ? undefined : existsSync(join(dir, 'test.json')) ? readJson(join(dir, 'test.json')) : undefined;
    if (done || test) {
      const row = done ?? runRow(root, dir, test!);
      runs.push(row);
      runIds.set(dir, row.id);
      return;
    }
    const results = readJson(join(dir, 'results.json'));
    if (results && Array.isArray(results.shards)) { merged.push({ dir, results }); return; }
    if (depth === 0) return;
    let names: string[];
    try { names = readdirSync(dir); } catch { return; }
    for (const name of names.sort()) {
      if (OWN.test(name)) continue;
      const p = join(dir, name);
      try { if (!lstatSync(p).isDirectory()) continue; } catch { continue; }   // symlinks (latest) are not followed
      walk(p, depth - 1);
    }
  };
  walk(root, DEPTH);
  const rows = [...runs, ...merged.map((m) => mergedRow(root, m.dir, m.results, runIds))];
  return rows.sort((a, b) => (b.date ?? '').localeCompare(a.date ?? ''));
}

const STORE_FIX = 'give --store the directory `lockpick run --store DIR` wrote (default ./store: store/<lock>/<run-id>/)';

/**
 * The store checked before the server starts: it exists, is a directory, is not itself a run
 * dir, and holds runs, a merged set, or nothing yet. Anything else is refused (exit 2).
 */
export function checkStore(root: string): void {
  if (!existsSync(root)) throw new UsageError(`--store ${root}: no such directory\n  fix: ${STORE_FIX}, or run 'lockpick run' first`);
  if (!statSync(root).isDirectory()) throw new UsageError(`--store ${root}: not a directory\n  fix: ${STORE_FIX}`);
  if (existsSync(join(root, 'test.json'))) throw new UsageError(`--store ${root}: is one run directory, not a store\n  fix: give the store above it (${STORE_FIX})`);
  const names = readdirSync(root);
  if (names.length === 0) return;
  if (scanStore(root).length === 0 && !names.includes('latest')) {
    throw new UsageError(`--store ${root}: not a lockpick store (no run directory with a test.json, nor a merged results.json, in it or below)\n  fix: ${STORE_FIX}`);
  }
}
