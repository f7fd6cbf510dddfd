// `lockpick merge`: the shards of one search (`lockpick run --shard I/N`, one run dir each,
// as a CI engine's artifacts) read back and judged as one search. UNSAFE when any shard found
// a violation; SAFE only when shards 1..N are all there, each conclusive SAFE (or short only of
// fault kinds it does not lead, workload/shard.ts shardKinds), and their coverage summed leaves no gap (coverage.ts: every requested kind took effect, the lock was
// held, released and contended); otherwise INCONCLUSIVE naming the shards that were not.
// Shards of another lockpick version, lock or options are refused (exit 2 naming the field):
// their verdicts would not add up to one search's.
import { accessSync, constants, existsSync, lstatSync, readFileSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import type { Verdict } from '../../checkers/types.ts';
import { UsageError, fsReason } from '../errors.ts';
import { requireRegularFile } from '../regular-file.ts';
import { makeDir } from '../make-dir.ts';
import { outputError } from '../output.ts';
import { emptyCoverage, gaps, isKindGap, type Coverage } from './coverage.ts';
import { cellGap, cellsJson, isCellGap, sumCells } from './fault-cells.ts';
import { addOutcomes } from '../report/outcomes.ts';
import { checkShardResults, checkTestJson, type ShardResults } from './stored-files.ts';
import { MAX_SHARDS, shardLabel, type Shard } from '../workload/shard.ts';

export interface ShardRun {
  dir: string;
  shard: Shard;
  test: Record<string, unknown>;
  /** Absent: the shard wrote no results.json (killed, or still running when its artifacts were taken). */
  results?: ShardResults;
}

export interface MergedFailure {
  class: string;
  /** As the shards classed it by cause (failure-cause.ts): a bug of this lock, inherent to its design, or unknown. */
  nature?: 'bug' | 'inherent' | 'unknown';
  cause?: string;
  kinds: string[];
  anomalies: string[];
  /** The shards that found it ("2/4"), and their violating runs summed. */
  shards: string[];
  runs: number;
  confirmed: boolean;
  /** Its counterexample dir (the first shard's that stored one) and timeline, when stored. */
  counterexample?: string;
  timeline?: string;
  /** The dir `lockpick run --replay` takes for it: the counterexample's own (counterexample-N) or its run dir's test.json. */
  replay?: string;
}

export interface MergeResult {
  verdict: Verdict;
  exitCode: 0 | 1 | 3;
  lock: string;
  faults: string[];
  total: number;
  shards: { shard: string; dir: string; verdict: Verdict | 'missing-results'; runs: number; interrupted: boolean; gaps: string[] }[];
  /** Why not SAFE, shard by shard and for the whole (empty when SAFE). */
  gaps: string[];
  coverage: Coverage;
  failures: MergedFailure[];
}

/** Fields every shard of one search must share: a difference is refused, naming the field. */
const SAME = ['lock', 'lock_sha256', 'model', 'topology', 'faults', 'pause_points', 'property', 'liveness_ms', 'clients', 'ttl_ms', 'keys',
  'time_s', 'runs', 'parallel', 'keep_going', 'first_failure', 'shrink_time_s', 'lock_options', 'env.kind', 'versions.lockpick', 'shard.total',
  'min_coverage', 'coverage_guided'];

const field = (t: Record<string, unknown>, path: string): unknown =>
  path.split('.').reduce<unknown>((v, k) => (v !== null && typeof v === 'object' && Object.hasOwn(v, k) ? (v as Record<string, unknown>)[k] : undefined), t);

function readJson(path: string): unknown {
  requireRegularFile(path, '', 'download the shard\'s run directory again');
  let text: string;
  try { text = readFileSync(path, 'utf8'); } catch (e) { throw new UsageError(`${path}: cannot be read: ${fsReason(e)}`); }
  try { return JSON.parse(text); } catch (e) { throw new UsageError(`${path}: not valid JSON (${(e as Error).message})\n  fix: download the shard's run directory again`); }
}

/** The run dirs under each argument: a run dir itself, or a store / artifact folder holding them (store/latest and the like skipped). */
export function findRunDirs(args: readonly string[]): string[] {
  const out = new Set<string>();
  const walk = (dir: string, depth: number): void => {
    if (existsSync(join(dir, 'test.json'))) { out.add(resolve(dir)); return; }   // a run dir: its counterexample dirs are its own
    if (depth === 0) return;
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      if (lstatSync(p).isDirectory()) walk(p, depth - 1);   // not a symlink (store/latest)
    }
  };
  for (const a of args) {
    if (!existsSync(a) || !statSync(a).isDirectory()) throw new UsageError(`${a}: ${existsSync(a) ? 'not a directory' : 'no such directory'}\n  fix: give the shards' run dirs (store/<lock>/<run-id>) or the folders they were downloaded to`);
    const before = out.size;
    walk(a, 4);
    if (out.size === before) throw new UsageError(`${a}: holds no run directory (no test.json in it or below)\n  fix: give the shards' run dirs (store/<lock>/<run-id>) or the folders they were downloaded to`);
  }
  return [...out];
}

/** A path with its symlinks resolved as far as it exists (the rest, not made yet, appended as given). */
function canonical(p: string): string {
  const abs = resolve(p);
  const up = dirname(abs);
  try { return realpathSync(abs); } catch { return up === abs ? abs : join(canonical(up), basename(abs)); }
}

/** Whether `p` is `dir` or below it (both canonical). */
function within(p: string, dir: string): boolean {
  const rel = relative(dir, p);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * `--out` and `--junit` checked before any shard is read: neither may be a DIR given, nor a
 * shard's run dir or inside one, where the merge would write over the shard's own results.json
 * and junit.xml or among its files (a folder holding the shards, such as a store, may hold the
 * output beside them: no shard's file is touched); `--out` is made now, and must be a directory
 * that can be written (exit 2 naming the path and why). Returns the run dirs found.
 */
export function checkMergeOutputs(inputs: readonly string[], o: { out?: string; junit?: string }): string[] {
  const runDirs = findRunDirs(inputs);
  const places = [
    ...inputs.map((d) => ({ dir: canonical(d), what: `the input ${d}`, inside: false })),
    ...runDirs.map((d) => ({ dir: canonical(d), what: `the shard's run dir ${d}`, inside: true })),
  ];
  for (const [flag, path, fix] of [['--out', o.out, 'give --out a directory outside the shards\' run dirs, e.g. --out merged'], ['--junit', o.junit, 'give --junit a path outside the shards\' run dirs, e.g. --junit junit.xml']] as const) {
    if (path === undefined) continue;
    const at = canonical(path);
    const hit = places.find((p) => at === p.dir || (p.inside && within(at, p.dir)));
    if (hit) {
      throw new UsageError(`${flag} ${path}: ${at === hit.dir ? 'is' : 'is inside'} ${hit.what}; the merge's files would land among the shards' own (a run dir's results.json and junit.xml overwritten)\n  fix: ${fix}`);
    }
  }
  if (o.out !== undefined) {
    const fix = 'give --out a directory that can be written (it is created if missing)';
    if (existsSync(o.out) && !statSync(o.out).isDirectory()) throw new UsageError(`--out ${o.out}: is a file, not a directory\n  fix: ${fix}`);
    try { makeDir(o.out); } catch (e) { throw outputError(`--out ${o.out}: cannot create the directory`, e, fix); }
    try { accessSync(o.out, constants.W_OK); } catch (e) { throw outputError(`--out ${o.out}: cannot be written`, e, fix); }
  }
  return runDirs;
}

function readShard(dir: string): ShardRun {
  const testPath = join(dir, 'test.json');
  const test = checkTestJson(readJson(testPath), testPath);
  if (test.replay_of !== undefined) throw new UsageError(`${dir}: a replay (of ${String(test.replay_of)}), not a shard of a search\n  fix: leave it out`);
  const s = test.shard as Partial<Shard> | undefined;
  if (!s || typeof s !== 'object' || !Number.isInteger(s.index) || !Number.isInteger(s.total) || s.index! < 1 || s.index! > s.total! || s.total! > MAX_SHARDS) {
    throw new UsageError(`${testPath}: "shard" is ${s === undefined ? 'missing: this run was not a shard' : `not {"index": I, "total": N} with 1 ≤ I ≤ N ≤ ${MAX_SHARDS}`}\n  fix: merge runs of 'lockpick run --shard I/N'`);
  }
  const resultsPath = join(dir, 'results.json');
  const results = existsSync(resultsPath) ? checkShardResults(readJson(resultsPath), resultsPath) : undefined;
  return { dir, shard: { index: s.index!, total: s.total!, from: String(s.from ?? '') }, test, results };
}

/** Coverage figures summed over the shards (the per-ok-acquire figures computed again from the sums; outcomes and errors summed too). */
export function sumCoverage(faults: readonly string[], all: readonly Coverage[]): Coverage {
  const c = emptyCoverage(faults);
  const add = (into: Record<string, number>, from: Record<string, number> | undefined, known = false) => {
    for (const [k, n] of Object.entries(from ?? {})) if (!known || Object.hasOwn(into, k)) into[k] = (into[k] ?? 0) + n;
  };
  c.inconclusiveReasons = Object.create(null) as Record<string, number>;
  c.lockStats = Object.create(null) as Record<string, number>;
  for (const x of all) {
    c.runs += x.runs; c.conclusive += x.conclusive; c.acquires += x.acquires; c.okAcquires += x.okAcquires;
    c.released += x.released; c.contended += x.contended;
    if (x.lostInLease) { c.lostInLease = (c.lostInLease ?? 0) + x.lostInLease; c.lostInLeaseExample ??= x.lostInLeaseExample; }
    if (x.validityReported !== undefined) c.validityReported = (c.validityReported ?? 0) + x.validityReported;
    if (x.validityChecked !== undefined) c.validityChecked = (c.validityChecked ?? 0) + x.validityChecked;
    add(c.faultsApplied, x.faultsApplied, true);
    add(c.inconclusiveReasons, x.inconclusiveReasons);
    add(c.lockStats, x.lockStats);
    addOutcomes(c.outcomes, x.outcomes);   // absent in a shard's results.json from before outcomes were counted
  }
  c.lockStatsPerOkAcquire = c.okAcquires === 0 ? {}
    : Object.fromEntries(Object.entries(c.lockStats).map(([k, n]) => [k, Math.round((n / c.okAcquires) * 100) / 100]));
  // The fault cells (fault-cells.ts): hits summed over the shards, the cells known of all of them.
  const cells = sumCells(all.map((x) => x.cells));
  return { ...c, inconclusiveReasons: { ...c.inconclusiveReasons }, lockStats: { ...c.lockStats }, ...(cells ? { cells: cellsJson(cells) } : {}) };
}

/** A stored counterexample path as the shard wrote it, found again inside the dir it was downloaded to. */
function localCounterexample(run: ShardRun, stored: string): string | undefined {
  const here = join(run.dir, basename(stored));
  return existsSync(here) ? here : undefined;
}

/** The shards in `dirs` judged as one search (no file written: see writeMerged). */
export function mergeShards(dirs: readonly string[]): MergeResult {
  const runs = findRunDirs(dirs).map(readShard);
  const base = runs[0]!;
  for (const r of runs.slice(1)) {
    for (const f of SAME) {
      const a = JSON.stringify(field(base.test, f)), b = JSON.stringify(field(r.test, f));
      if (a !== b) throw new UsageError(`shards of different searches: "${f}" is ${a ?? 'absent'} in ${base.dir} but ${b ?? 'absent'} in ${r.dir}\n  fix: merge only the shards of one search (same lockpick version, lock and options)`);
    }
  }
  const total = base.shard.total;
  const byIndex = new Map<number, ShardRun>();
  for (const r of runs) {
    const twin = byIndex.get(r.shard.index);
    // The same run twice (an artifact upload follows store/<lock>/latest and copies it): one is kept.
    if (twin && JSON.stringify(twin.test) === JSON.stringify(r.test)) {
      if (basename(twin.dir) === 'latest') byIndex.set(r.shard.index, r);
      continue;
    }
    if (twin) throw new UsageError(`shard ${shardLabel(r.shard)} twice: ${twin.dir} and ${r.dir}\n  fix: keep one of them (a retried CI job leaves both)`);
    byIndex.set(r.shard.index, r);
  }
  const faults = (base.test.faults as string[] | undefined) ?? [];
  const sorted = [...byIndex.values()].sort((a, b) => a.shard.index - b.shard.index);
  const coverage = sumCoverage(faults, sorted.flatMap((r) => (r.results?.coverage ? [r.results.coverage] : [])));

  // Distinct failures: one per class, as the shards named it (by cause: failure-cause.ts; by anomalies and kinds before it).
  const failures = new Map<string, MergedFailure>();
  for (const r of sorted) {
    const res = r.results;
    if (!res) continue;
    const found = res.failures.map((f) => ({ ...f, dir: localCounterexample(r, f.counterexample) }));
    // An interrupted shard saw a violation it did not shrink: its class from the run as found.
    if (res.verdict === false && found.length === 0 && res.first) {
      const name = `${res.first.anomalies.join(', ') || 'violation'} · ${res.first.kinds.join(', ') || 'no fault'}`;
      found.push({ class: name, kinds: res.first.kinds, anomalies: res.first.anomalies, runs: 1, counterexample: 'counterexample', confirmed: false, dir: localCounterexample(r, 'counterexample') });
    }
    for (const f of found) {
      const m = failures.get(f.class);
      const timeline = f.dir && existsSync(join(f.dir, 'timeline.html')) ? join(f.dir, 'timeline.html') : undefined;
      const replay = f.dir && existsSync(join(f.dir, 'test.json')) ? f.dir : f.dir ? r.dir : undefined;
      if (!m) {
        failures.set(f.class, { class: f.class, ...(f.nature ? { nature: f.nature } : {}), ...(f.cause ? { cause: f.cause } : {}), kinds: f.kinds, anomalies: f.anomalies, shards: [shardLabel(r.shard)], runs: f.runs, confirmed: f.confirmed, counterexample: f.dir, timeline, replay });
        continue;
      }
      m.shards.push(shardLabel(r.shard));
      m.runs += f.runs;
      // Prefer a confirmed, stored counterexample.
      if ((!m.confirmed && f.confirmed) || (!m.counterexample && f.dir)) Object.assign(m, { confirmed: m.confirmed || f.confirmed, counterexample: f.dir ?? m.counterexample, timeline: timeline ?? m.timeline, replay: replay ?? m.replay });
    }
  }

  const unsafe = sorted.some((r) => r.results?.verdict === false);
  const why: string[] = [];
  for (let i = 1; i <= total; i++) if (!byIndex.has(i)) why.push(`shard ${i}/${total}: missing (no run dir of it was given)`);
  for (const r of sorted) {
    const label = `shard ${shardLabel(r.shard)} (${r.dir})`;
    const res = r.results;
    if (!res) why.push(`${label}: no results.json: it did not finish (killed, or its artifacts were taken while it ran)`);
    else if (res.interrupted && res.verdict !== false) why.push(`${label}: interrupted${res.reason ? ` (${res.reason})` : ''} before a verdict`);
    // A shard leads some of the kinds (shardKinds): a kind it never applied is judged on the sum below.
    // So is --min-coverage: the shards' cells together are judged below.
    else if (res.verdict === 'unknown' && !(res.gaps.length > 0 && res.gaps.every((g) => isKindGap(g) || isCellGap(g)))) why.push(`${label}: inconclusive: ${res.gaps.join('; ') || 'no verdict'}`);
    else if (res.verdict === true && !res.coverage) why.push(`${label}: SAFE without coverage figures`);
  }
  // The shards' own SAFE is not taken on trust: their coverage together must leave no gap.
  if (!unsafe && why.length === 0) why.push(...gaps(coverage).map((g) => `all shards together: ${g}`));
  const min = typeof base.test.min_coverage === 'number' ? base.test.min_coverage : undefined;
  const short = unsafe || why.length ? undefined : cellGap(coverage.cells, min);
  if (short) why.push(`all shards together: ${short}`);
  const verdict: Verdict = unsafe ? false : why.length === 0 ? true : 'unknown';
  return {
    verdict, exitCode: verdict === false ? 1 : verdict === true ? 0 : 3,
    lock: String(base.test.lock ?? ''), faults, total,
    shards: sorted.map((r) => ({ shard: shardLabel(r.shard), dir: r.dir, verdict: r.results?.verdict ?? 'missing-results', runs: r.results?.runs ?? 0, interrupted: r.results?.interrupted ?? false, gaps: r.results?.gaps ?? [] })),
    // Bugs of this lock first, as a run lists them; otherwise in shard order.
    gaps: why, coverage, failures: [...failures.values()].sort((a, b) => Number(a.nature !== 'bug') - Number(b.nature !== 'bug')),
  };
}
