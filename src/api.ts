// lockpick as a library for test suites (node:test, vitest, jest): the same run
// as `lockpick run --json`, without what only a command line may do. No
// process.exit, no SIGINT/SIGTERM handlers of its own, nothing written to stdout
// or stderr: progress goes to `onProgress`, the human report to `log`. The
// servers are stopped before the promise settles. An aborted `signal` stores
// what was found (results.json, counterexample/, junit.xml, marked interrupted),
// stops the servers, then rejects with the signal's reason (an AbortError).
import { resolve } from 'node:path';
import { CheckInputError } from '../checkers/index.ts';
import { checkHistoryOnThreads } from '../checkers/threads.ts';
import type { Backend, CheckResult } from '../checkers/types.ts';
import { checkEventObject } from './history/value-check.ts';
import { HistoryBuilder, ReadLimitReached, readHistory } from './history/index.ts';
import { Budget } from '../checkers/budget.ts';
import { limitedReading, readLimitResult } from '../checkers/read-limit.ts';
import type { HistoryEvent, ParsedHistory } from './history/types.ts';
import { MAX_MS, MAX_S, checkKindOptions, minCoverageOf, checkLockOptions, clientCount, ttlWithinTime, faultsFor, parseEnv, parseKeyPrefix, parsePausePoints, parseShard, positiveInt, propertyOf, recipeFor, writablePath } from './options.ts';
import { runTest, type RunSummary } from './runner/index.ts';
import { UsageError } from './errors.ts';
import { LANGS, asLang } from './i18n/lang.ts';
import { parseLockArg } from './runner/lock-spec.ts';
import type { LockSpec } from './runner/protocol.ts';
import type { ProgressEvent } from './runner/progress.ts';
import { PROPERTIES, type Property } from './runner/run-options.ts';
import type { MergeResult } from './runner/merge.ts';

export type { RunSummary } from './runner/index.ts';
export type { MergeResult, MergedFailure } from './runner/merge.ts';
export type { ProgressEvent } from './runner/progress.ts';
export type { CheckResult } from '../checkers/types.ts';

export interface LockTestOptions {
  /**
   * A lock from `lockpick list` ('redis-set-px-lua'), a path to your module
   * ('./my-lock.ts', relative to the working directory), or { name } / { path }.
   * Not a recipe object: every client runs in its own process (a pause is a real
   * SIGSTOP), so each loads the lock by name or module path.
   */
  lock: string | LockSpec;
  /** Fault kinds (`lockpick list`), e.g. ['client-pause']; aliases clock, restart, crash; ['all']: every kind the topology and environment support. Default none. */
  faults?: string[];
  /** Environment kind: 'local' (default) or 'external' (then `endpoints`, as --endpoints: 'redis=host:port,...' or a .json path). */
  env?: string;
  endpoints?: string;
  /** Prefix of every key the run writes (default 'lockpick:' on an external environment). */
  keyPrefix?: string;
  /** Workload shape: lock attempts per client and fault groups per run, at most (defaults 3 and 2). */
  maxAttempts?: number;
  maxFaults?: number;
  /** Operate with delayed restarts: every kill or server-term keeps its server down at least this long (needs one of them in faults). */
  restartDelayMs?: number;
  /** Search budget (default 60 000). */
  timeMs?: number;
  /** Budget for shrinking a violation (default 60 000). */
  shrinkTimeMs?: number;
  /** After a violation, search on for all of timeMs and report every distinct failure (summary.failures), as --keep-going. */
  keepGoing?: boolean;
  /** Stop at the first failure, even one inherent to the lock's design (--first-failure; default: search on for a bug of this lock). */
  firstFailure?: boolean;
  /** As --min-coverage: a SAFE below this percentage (0–100) of the fault cells the search could draw resolves INCONCLUSIVE (exitCode 3), naming the cells never hit (summary.gaps; the map in summary.coverage.cells). */
  minCoverage?: number;
  /** As --coverage-guided: false draws the plans not drawn by an aim uniformly (default true: steered toward fault cells not aimed at yet). */
  coverageGuided?: boolean;
  /** Shard I of N of one search, as --shard: '2/4', { index: 2, total: 4 } (1-based), or 'auto' (the CI engine's variables, from `env`, default process.env). */
  shard?: string | { index: number; total: number };
  /** The total for a Kubernetes Indexed Job's JOB_COMPLETION_INDEX (as --shard-total; implies 'auto'). */
  shardTotal?: number;
  /** Where 'auto' reads the engine's variables (default process.env). */
  shardEnv?: Record<string, string | undefined>;
  clients?: number;          // default 3
  ttlMs?: number;            // lease of every acquire, default 800
  keys?: number;             // distinct lock names, default 1
  runs?: number;             // at most this many runs (default: as many as fit in timeMs)
  seed?: number;             // fast-check seed
  /** Where client pauses land: 'in-critical-section' and the lock's own points (default all). */
  pauseAt?: string[];
  /** What must hold: 'lock', 'resource', 'both' (lock and resource, default), 'liveness', 'all'. */
  property?: Property;
  /** Liveness bound: a key unavailable longer than this after its holder was gone (default 2 × ttl, + the session timeout). */
  livenessMs?: number;
  lockOptions?: Record<string, unknown>;
  /** Where run directories go (default './store', as the CLI). */
  store?: string;
  /** Also write the run's JUnit XML here. */
  junit?: string;
  /** The language of the timeline pages it writes, as `--lang`: 'en' (default) or 'zh-CN' ('zh', 'zh-Hans' are taken too). */
  lang?: string;
  signal?: AbortSignal;
  onProgress?(e: ProgressEvent): void;
  /** The lines `lockpick run` prints (verdict, minimal schedule, replay command); dropped when absent. */
  log?(line: string): void;
}

/**
 * Runs the lock under the faults, like `lockpick run --json`, and resolves with
 * that summary: `verdict` true / false / 'unknown' and `exitCode` 0 / 1 / 3.
 * Bad options reject with an Error whose `exitCode` is 2 (as the CLI's exit code).
 */
export async function runLockTest(o: LockTestOptions): Promise<RunSummary> {
  checkApiOptions(o);
  const minCoverage = minCoverageOf(o.minCoverage, 'runLockTest: minCoverage');
  o.signal?.throwIfAborted();
  const spec = lockSpecOf(o.lock);
  const lockOptions = o.lockOptions ?? {};
  const recipe = await recipeFor(spec, lockOptions);
  checkLockOptions(lockOptions, recipe, 'runLockTest: lockOptions.');
  const env = await parseEnv(o.env, o.endpoints, false);
  const faults = await faultsFor((o.faults ?? []).join(','), recipe, env);
  await checkKindOptions({ restartDelayMs: o.restartDelayMs }, faults, (n) => `runLockTest: ${n}`, `faults ${JSON.stringify(faults)}`);
  const timeMs = positiveInt(o.timeMs, 'timeMs', 60_000, 1, 1000 * MAX_S);
  const shrinkTimeMs = positiveInt(o.shrinkTimeMs, 'shrinkTimeMs', 60_000, 0, 1000 * MAX_S);
  const ttlMs = positiveInt(o.ttlMs, 'ttlMs', 800, 50, MAX_MS);
  ttlWithinTime(ttlMs, timeMs, 'runLockTest: ttlMs', 'timeMs');
  const lang = o.lang === undefined ? undefined : asLang(o.lang);
  if (o.lang !== undefined && !lang) throw new UsageError(`runLockTest: lang ${JSON.stringify(o.lang)} is not a language lockpick speaks; give ${LANGS.map((l) => `'${l}'`).join(' or ')}`);
  return runTest({
    lock: spec, recipe, faults,
    clients: clientCount(positiveInt(o.clients, 'clients', 3, 1), 'clients'), timeS: timeMs / 1000, shrinkTimeS: shrinkTimeMs / 1000,
    runs: positiveInt(o.runs, 'runs', 1_000_000, 1), seed: o.seed === undefined ? undefined : positiveInt(o.seed, 'seed', 0, 0),
    ttlMs, ttlFixed: o.ttlMs !== undefined, keys: positiveInt(o.keys, 'keys', 1, 1),
    maxAttempts: positiveInt(o.maxAttempts, 'maxAttempts', 3, 1), maxFaults: positiveInt(o.maxFaults, 'maxFaults', 2, 1),
    restartDelayMs: o.restartDelayMs === undefined ? undefined : positiveInt(o.restartDelayMs, 'restartDelayMs', 0, 0, MAX_MS),
    env, keyPrefix: parseKeyPrefix(o.keyPrefix),
    pausePoints: o.pauseAt ? parsePausePoints(o.pauseAt.join(','), recipe.points ?? []) : undefined,
    property: propertyOf(o.property, (p) => `runLockTest: property must be one of ${PROPERTIES.join(', ')}, got ${JSON.stringify(p)}`), livenessMs: o.livenessMs === undefined ? undefined : positiveInt(o.livenessMs, 'livenessMs', 0, 1, MAX_MS), storeRoot: o.store ?? 'store', lockOptions,
    log: o.log ?? (() => {}), onProgress: o.onProgress, junitPath: o.junit,
    keepGoing: o.keepGoing === true, firstFailure: o.firstFailure === true,
    ...(minCoverage !== undefined ? { minCoverage } : {}), ...(o.coverageGuided === false ? { coverageGuided: false } : {}),
    shard: parseShard(typeof o.shard === 'object' && o.shard !== null ? `${o.shard.index}/${o.shard.total}` : o.shard, o.shardTotal, o.shardEnv ?? process.env),
    interrupts: { signal: o.signal },   // never exitOnSignal: the test runner owns the process
    ...(lang ? { lang } : {}),
  });
}

type ApiKind = 'string' | 'number' | 'boolean' | 'strings' | 'object' | 'function' | 'lock' | 'signal' | 'shard';
/**
 * The options runLockTest knows, by kind: anything else (a misspelt name, a wrong type) is a
 * UsageError (exit 2) naming it. Every LockTestOptions field must be here (the type says so).
 */
const API_OPTIONS: Record<keyof LockTestOptions, ApiKind> & Record<string, ApiKind> = {
  firstFailure: 'boolean', minCoverage: 'number', coverageGuided: 'boolean',
  lock: 'lock', faults: 'strings', env: 'string', endpoints: 'string', keyPrefix: 'string', maxAttempts: 'number', maxFaults: 'number',
  restartDelayMs: 'number', timeMs: 'number', shrinkTimeMs: 'number', keepGoing: 'boolean', clients: 'number', ttlMs: 'number', keys: 'number',
  runs: 'number', seed: 'number', pauseAt: 'strings', property: 'string', livenessMs: 'number', lockOptions: 'object', store: 'string',
  junit: 'string', lang: 'string', signal: 'signal', onProgress: 'function', log: 'function',
  shard: 'shard', shardTotal: 'number', shardEnv: 'object',
};

function checkApiOptions(o: unknown): asserts o is LockTestOptions {
  if (typeof o !== 'object' || o === null || Array.isArray(o)) throw new UsageError(`runLockTest: give an options object, e.g. { lock: 'redis-set-px-lua' }; got ${o === null ? 'null' : typeof o}`);
  for (const [name, v] of Object.entries(o)) {
    if (!Object.hasOwn(API_OPTIONS, name)) throw new UsageError(`runLockTest: unknown option '${name}'; known: ${Object.keys(API_OPTIONS).join(', ')}`);
    if (v === undefined) continue;
    const kind = API_OPTIONS[name as keyof LockTestOptions];
    const ok = kind === 'strings' ? Array.isArray(v) && v.every((x) => typeof x === 'string' && x.trim() !== '')
      : kind === 'object' ? typeof v === 'object' && v !== null && !Array.isArray(v)
      : kind === 'signal' ? typeof v === 'object' && v !== null && typeof (v as AbortSignal).throwIfAborted === 'function'
      : kind === 'lock' ? true   // lockSpecOf words its own refusal
      : kind === 'shard' ? typeof v === 'string' || (typeof v === 'object' && v !== null && !Array.isArray(v))   // parseShard checks the rest
      : kind === 'string' ? typeof v === 'string' && v.trim() !== ''
      : typeof v === kind;
    if (!ok) {
      const want = kind === 'shard' ? "'I/N', 'auto' or { index, total }" : kind === 'strings' ? 'an array of non-empty strings' : kind === 'object' ? 'a plain object' : kind === 'signal' ? 'an AbortSignal' : kind === 'string' ? 'a non-empty string' : `a ${kind}`;
      throw new UsageError(`runLockTest: ${name} must be ${want}; got ${Array.isArray(v) ? 'an array' : typeof v}${typeof v === 'string' || typeof v === 'number' ? ` ${JSON.stringify(v)}` : ''}`);
    }
  }
}

/** `lock` as a LockSpec: a name, a module path, or {name} / {path} with a non-empty string. */
function lockSpecOf(lock: unknown): LockSpec {
  if (typeof lock === 'string' && lock.trim() !== '') return parseLockArg(lock);
  const l = lock as { name?: unknown; path?: unknown } | null;
  if (typeof l === 'object' && l !== null && !Array.isArray(l) && Object.keys(l).length === 1 && ((typeof l.name === 'string' && l.name !== '') || (typeof l.path === 'string' && l.path !== ''))) {
    return typeof l.name === 'string' ? { name: l.name } : { path: resolve(l.path as string) };
  }
  throw new UsageError(`runLockTest: lock must be a lock name, a module path, or {name} / {path}; got ${lock === null ? 'null' : typeof lock}${typeof lock === 'number' ? ` ${lock}` : ''}: a recipe object cannot be given, since each client process loads the lock itself`);
}

export interface CheckHistoryOptions {
  model?: string;            // default 'mutex'
  backend?: Backend;
  timeLimitMs?: number;
  maxMemoryBytes?: number;
}

/**
 * Checks a history, as `lockpick check`: a file path (JSON Lines or Jepsen EDN)
 * is read, an array of history events (docs/history-format.md) is built (every rule enforced; a broken
 * one throws HistoryError naming the event by its 1-based index as its line),
 * and a ParsedHistory from readHistory is checked as it is.
 */
export async function checkHistory(fileOrEvents: string | readonly (HistoryEvent | Record<string, unknown>)[] | ParsedHistory, o: CheckHistoryOptions = {}): Promise<CheckResult> {
  let h: ParsedHistory;
  if (isParsed(fileOrEvents)) {
    h = fileOrEvents;   // what readHistory returned, or made by hand: its values are checked as a file's are
    for (const op of h.ops) {
      checkEventObject(h.source, op.invokeLine, op.invokeValue, 1); // a value sits one level into its event
      checkEventObject(h.source, op.completeLine, op.value, 1);
    }
  } else if (typeof fileOrEvents === 'string') {
    // The limits hold while reading too: past one the verdict is unknown, as `lockpick check` says.
    const t0 = performance.now();
    const limited = o.timeLimitMs !== undefined || o.maxMemoryBytes !== undefined;
    try {
      h = await readHistory(fileOrEvents, limitedReading(new Budget(o.timeLimitMs, o.maxMemoryBytes), limited));
    } catch (e) {
      if (e instanceof ReadLimitReached) return readLimitResult(o.model ?? 'mutex', e, Math.round(performance.now() - t0));
      throw e;
    }
  } else if (Array.isArray(fileOrEvents)) {
    const b = new HistoryBuilder('events');
    fileOrEvents.forEach((e, i) => { checkEventObject('events', i + 1, e); b.add(e, i + 1); });
    h = b.finish();
  } else {
    throw new TypeError('checkHistory: give a history file path or an array of history events');
  }
  return checkHistoryOnThreads(h, { model: o.model ?? 'mutex', backend: o.backend, timeLimitMs: o.timeLimitMs, maxMemoryBytes: o.maxMemoryBytes });
}

function isParsed(x: unknown): x is ParsedHistory {
  return x !== null && typeof x === 'object' && !Array.isArray(x) && Array.isArray((x as ParsedHistory).ops) && typeof (x as ParsedHistory).source === 'string';
}

export { CheckInputError };
export { HistoryError } from './history/index.ts';

export interface MergeRunsOptions {
  /** Also write results.json, junit.xml and index.html here (lockpick merge's --out). */
  out?: string;
  /** Also write the junit.xml here. */
  junit?: string;
}

/**
 * The shards of one search (runLockTest({shard}) / lockpick run --shard I/N) as one verdict,
 * as `lockpick merge`: `dirs` are run dirs or folders holding them. Resolves with exitCode
 * 1 (UNSAFE), 0 (SAFE) or 3 (INCONCLUSIVE); shards of different searches reject with exitCode 2.
 */
export async function mergeRuns(dirs: readonly string[], o: MergeRunsOptions = {}): Promise<MergeResult> {
  const { checkMergeOutputs, mergeShards } = await import('./runner/merge.ts');
  // The outputs first: one inside an input, or one that cannot be written, is refused before anything is read.
  if (o.junit !== undefined) writablePath(o.junit, '--junit');
  checkMergeOutputs(dirs, o);
  const m = mergeShards(dirs);
  if (o.out !== undefined || o.junit !== undefined) {
    const { renderMergeJUnit, writeMerged } = await import('./report/merge-report.ts');
    if (o.out !== undefined) writeMerged(m, o.out);
    if (o.junit !== undefined) {
      const { writeOutput } = await import('./output.ts');
      writeOutput(o.junit, renderMergeJUnit(m), { what: `cannot write the JUnit file ${o.junit}`, fix: 'give --junit a path in a directory that exists and can be written' });
    }
  }
  return m;
}
