// The options of a run, parsed and checked in one place for every way in: the
// `lockpick run` command line (text), the library API (runLockTest: values) and the
// demo. Each check throws UsageError (exit 2) naming the option and the fix; nothing
// here prints or exits.
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { packageRoot } from './package-root.ts';
import { UsageError, fsReason } from './errors.ts';
import { requireRegularFile } from './regular-file.ts';
import { lockLabel, resolveRecipe } from './runner/lock-spec.ts';
import type { LockSpec } from './runner/protocol.ts';
import { topologyOf, type LockRecipe } from './locks/lock.ts';
import { PROPERTIES, type Property } from './runner/run-options.ts';
import { IO_POINT_KINDS, WORKER_POINTS, MAX_CLIENTS, MAX_PLAN_MS, parseIoPoint } from './workload/plan.ts';
import { readLearnedPoints } from './runner/calibrate.ts';
import type { LearnedPoints } from './workload/points.ts';
import type { EnvSpec } from './env/env-kinds.ts';
import { MAX_SHARDS, MAX_SHARDS_WHY, type Shard } from './workload/shard.ts';
import type { RunPlan } from './workload/plan.ts';

/**
 * The largest value of every whole-number option: 2^31 − 1, the longest timer Node keeps
 * (24.8 days in ms) and fast-check's seed range; flags in ms or s have tighter bounds (MAX_MS, MAX_S).
 */
export const MAX_INT = 2 ** 31 - 1;
/** Times in milliseconds (--ttl, --restart-delay, --liveness-ms): an hour at most, as a stored plan's times. */
export const MAX_MS = MAX_PLAN_MS;
/** Time budgets in seconds (--time, --shrink-time): a week at most. */
export const MAX_S = 7 * 86_400;

/** A whole number option given as text (the command line): its default when absent, exit 2 when it is not one or out of range. */
export function int(v: string | undefined, flag: string, dflt: number, min = 1, max = MAX_INT): number {
  if (v === undefined) return dflt;
  const n = Number(v);
  if (v.trim() === '' || !/^\s*[+-]?\d+\s*$/.test(v) || !Number.isSafeInteger(n) || n < min || n > max) throw new UsageError(`${flag} must be a whole number from ${min} to ${max}, got '${v}'`);
  return n;
}

/** The search must have time for a run: one lasts longer than a lease (a hold, then a wait past it). */
export function ttlWithinTime(ttlMs: number, timeMs: number, ttlFlag: string, timeFlag: string): void {
  if (ttlMs > timeMs) {
    throw new UsageError(`${ttlFlag} ${ttlMs} ms does not fit in ${timeFlag} (${timeMs / 1000} s): a run lasts longer than one lease, so the search would overrun its time by far\n  fix: give ${timeFlag} at least ${Math.ceil(ttlMs / 1000)} s (a few leases' worth finds more), or a shorter ${ttlFlag}`);
  }
}

/** Each client is a forked process with its own connections: more than MAX_CLIENTS would test the machine, not the lock. */
export function clientCount(n: number, flag: string): number {
  if (n > MAX_CLIENTS) throw new UsageError(`${flag} ${n}: at most ${MAX_CLIENTS} clients (each is a process with its own connections to the servers; more measure the machine, not the lock)\n  fix: give ${flag} ${MAX_CLIENTS} or fewer`);
  return n;
}

/**
 * --min-coverage P (runLockTest's minCoverage): a SAFE below P percent of the fault cells known is
 * INCONCLUSIVE (src/runner/fault-cells.ts). A number from 0 to 100 (decimals allowed); anything else exit 2.
 */
export function minCoverageOf(v: string | number | undefined, flag: string): number | undefined {
  if (v === undefined) return undefined;
  const n = typeof v === 'number' ? v : /^\s*\d+(\.\d+)?\s*$/.test(v) ? Number(v) : NaN;
  if (!Number.isFinite(n) || n < 0 || n > 100) throw new UsageError(`${flag} must be a percentage from 0 to 100 (of the fault cells the search could draw), got ${typeof v === 'string' ? `'${v}'` : String(v)}`);
  return n;
}

/** --coverage-guided true|false: steer the plans toward fault cells not aimed at yet (default true). */
export function coverageGuidedOf(v: string | undefined): boolean {
  if (v === undefined || v === 'true' || v === 'on') return true;
  if (v === 'false' || v === 'off') return false;
  throw new UsageError(`--coverage-guided must be true or false, got '${v}'`);
}

/** --parallel K: each run in flight has its own client processes, so K stays small. */
export function parallelRuns(v: string | undefined): number {
  const k = int(v, '--parallel', 1);
  if (k > 16) throw new UsageError(`--parallel must be at most 16 (each run at once has its own client processes; 2 suits a 2-core machine), got '${v}'`);
  return k;
}

/**
 * The recipe for `--lock` (or a replay's lock_spec); a lock that cannot be had is
 * the user's to fix (exit 2). The registry itself is imported first, outside: if
 * lockpick's own module fails to load, that is an internal error (exit 4). A user's
 * module is read in a child process (src/locks/recipe-probe.ts), never imported here (a
 * process client's .json recipe file is only data: read here);
 * `lockOptions`: the --lock-opt set the run passes to its sessionMs.
 */
export async function recipeFor(spec: LockSpec, lockOptions?: Record<string, unknown>): Promise<LockRecipe> {
  await import('./locks/registry.ts');
  // Checked before anything opens it: a FIFO nobody writes would block lockpick for good.
  if ('path' in spec) requireRegularFile(spec.path, '--lock', 'give the path of a lock module (.ts, .js, ...) or of a process client\'s .json recipe file');
  // A process client's recipe file is data, no code: read here (src/locks/exec-recipe.ts).
  if ('path' in spec && spec.path.endsWith('.json')) return resolveRecipe(spec).catch((e: Error) => { throw new UsageError(e.message); });
  if ('path' in spec) return (await import('./locks/recipe-probe.ts')).probeUserLock(spec.path, lockLabel(spec), [lockOptions ?? {}]);
  return resolveRecipe(spec).catch((e: Error) => { throw new UsageError(e.message); });
}

/** A whole number option given as a value (the library API): its default when absent, exit 2 naming `name` when it is not one. */
export function positiveInt(v: number | undefined, name: string, dflt: number, min: number, max = MAX_INT, at = 'runLockTest: '): number {
  if (v === undefined) return dflt;
  if (!Number.isSafeInteger(v) || v < min || v > max) throw new UsageError(`${at}${name} must be a whole number from ${min} to ${max}, got ${typeof v === 'number' ? String(v) : JSON.stringify(v) ?? String(v)}`);
  return v;
}

/** What must hold (--property, runLockTest's property); `how` words the refusal for its caller. */
export function propertyOf(p: unknown, how: (p: unknown) => string): Property {
  if (p === undefined) return 'both';
  if (!PROPERTIES.includes(p as Property)) throw new UsageError(how(p));
  return p as Property;
}

/**
 * --replay DIR: the directory, or, when there is none here, the one of lockpick's own
 * catalogue (`scenarios/NAME` inside the package), so the demo pages' "run it yourself"
 * command works from any project.
 */
export function replayDir(dir: string): string {
  if (existsSync(dir)) return dir;
  const own = join(packageRoot(), 'scenarios', dir.replace(/^(\.\/)?scenarios\//, ''));
  return existsSync(join(own, 'test.json')) ? own : dir;
}

/** Why fault `kind` cannot reach this lock (LockRecipe.lacks), or undefined. */
function lockLacks(kind: string, recipe: Awaited<ReturnType<typeof recipeFor>>): string | undefined {
  const why = recipe.lacks?.[kind];
  return why === undefined ? undefined : `fault '${kind}' cannot reach this lock: ${why}`;
}

/**
 * Why fault `kind` cannot act on this lock, or undefined: the kind's topologies, the clock it moves
 * against the one the topology's holds expire by (KindDef.movesClock, TopologyDef.expiryClock), the
 * lock's own channels and what it lacks (LockRecipe.lacks). For `--faults` and a stored plan alike.
 */
export async function faultProblem(kind: string, recipe: Awaited<ReturnType<typeof recipeFor>>): Promise<string | undefined> {
  const { topologyProblem } = await import('../nemesis/index.ts');
  return topologyProblem(kind, topologyOf(recipe).name, recipe.channels ?? []) ?? lockLacks(kind, recipe);
}

/** A fault kind the lock's topology lacks (failover on a single Redis) is refused up front (exit 2). */
export async function refuseTopologyFaults(faults: string[], recipe: Awaited<ReturnType<typeof recipeFor>>): Promise<void> {
  for (const k of faults) {
    const p = await faultProblem(k, recipe);
    if (p) throw new UsageError(`--faults: ${p}; leave it out or pick a lock that has it ('lockpick list')`);
  }
}

/** --env and --endpoints: which environment kind, and the user's servers for an external one (exit 2 when they do not fit). */
export async function parseEnv(kind: string | undefined, endpoints: string | undefined, replaying: boolean, image?: string): Promise<EnvSpec | undefined> {
  const { envKind, ENV_KINDS } = await import('./env/env-kinds.ts');
  const name = kind ?? (endpoints !== undefined ? 'external' : undefined);
  if (image !== undefined && name !== 'docker') throw new UsageError('--image chooses the server image of --env docker; add --env docker or leave it out');
  if (image !== undefined) return { kind: name!, images: await (await import('./env/docker-images-option.ts')).parseImages(image) } as import('./env/docker-kind.ts').DockerEnvSpec;
  if (name === undefined) return undefined;   // local, or (replay) what test.json says
  if (!envKind(name)) throw new UsageError(`--env: unknown environment kind '${name}'; use one of: ${ENV_KINDS.map((k) => k.name).join(', ')}`);
  if (name !== 'external') {
    if (endpoints !== undefined) throw new UsageError(`--endpoints names servers of an external environment; leave it out with --env ${name}, or use --env external`);
    return { kind: name };
  }
  if (endpoints === undefined) {
    if (replaying) throw new UsageError('--env external with --replay: give --endpoints too, or leave both out to use the stored ones');
    throw new UsageError('--env external needs --endpoints, e.g. --endpoints redis=127.0.0.1:6379 (see lockpick run --help)');
  }
  const { parseEndpoints } = await import('./env/endpoints.ts');
  return { kind: name, servers: parseEndpoints(endpoints) };
}

/** A fault the environment kind cannot inject (kill on --env external) is refused up front (exit 2), naming the capability. */
export async function refuseEnvFaults(faults: string[], kind: string): Promise<void> {
  const { envKind } = await import('./env/env-kinds.ts');
  const { capabilityProblem } = await import('../nemesis/index.ts');
  for (const k of faults) {
    const p = capabilityProblem(k, envKind(kind)!);
    if (p) throw new UsageError(`--faults: ${p}; leave it out, or run it where lockpick starts the servers (--env local)`);
  }
}

export function parseKeyPrefix(p: string | undefined, flag = '--key-prefix', fix = ''): string | undefined {
  if (p === undefined) return undefined;
  if (typeof p !== 'string' || !/^[A-Za-z0-9:_.\/-]{1,40}$/.test(p)) throw new UsageError(`${flag} ${typeof p === 'string' ? `'${p}'` : JSON.stringify(p)}: use 1 to 40 letters, digits or : _ . / -${fix}`);
  return p;
}

/** A file path lockpick will write at the end of the run: checked now, so a typo costs no run (exit 2). */
export function writablePath(p: string, flag: string): string {
  const abs = resolve(p);
  let isDir = false;
  try { isDir = statSync(abs).isDirectory(); } catch { /* not there yet: written at the end */ }
  if (isDir) throw new UsageError(`${flag} ${p}: is a directory; give a file path, e.g. ${flag} junit.xml`);
  try {
    if (!statSync(dirname(abs)).isDirectory()) throw Object.assign(new Error(`ENOTDIR: ${dirname(abs)} is a file, not a directory`), { code: 'ENOTDIR' });
    accessSync(dirname(abs), constants.W_OK);
  } catch (e) {
    // The real cause (read-only file system, no permission, no such directory), not a guess.
    throw new UsageError(`${flag} ${p}: the directory ${dirname(abs)} cannot be written: ${fsReason(e)}\n  fix: create it, or give a path in a writable directory`);
  }
  return abs;
}

/** --lock-opt NAME=VALUE, repeatable: a recipe's options (a number where the value reads as one); a name twice or no value is refused. */
export function parseLockOptions(pairs: readonly string[]): Record<string, unknown> {
  const lockOptions: Record<string, unknown> = {};
  for (const kv of pairs) {
    const i = kv.indexOf('=');
    if (i <= 0) throw new UsageError(`--lock-opt '${kv}': write it as NAME=VALUE, e.g. --lock-opt retryMs=20`);
    const name = kv.slice(0, i);
    const v = kv.slice(i + 1);
    if (v.trim() === '') throw new UsageError(`--lock-opt ${name}: no value; write ${name}=VALUE, or leave the option out for its default`);
    if (Object.hasOwn(lockOptions, name)) throw new UsageError(`--lock-opt ${name} is given twice (${name}=${String(lockOptions[name])} and ${kv}); give it once`);
    // defineProperty: a name such as __proto__ is an option name like any other, never the object's prototype.
    Object.defineProperty(lockOptions, name, { value: Number.isFinite(Number(v)) ? Number(v) : v, enumerable: true, writable: true, configurable: true });
  }
  return lockOptions;
}

/** The largest number any --lock-opt takes: an hour of milliseconds (options are times in ms or s, or counts). */
export const MAX_LOCK_OPTION = 3_600_000;

/**
 * The recipe's options checked against what it declares (LockRecipe.optionsHelp names,
 * optionValues kinds): an unknown name or a value out of its kind is exit 2 naming both. A
 * recipe that declares neither takes any name (a user's module: its create() reads them).
 */
export function checkLockOptions(options: Record<string, unknown>, recipe: Pick<LockRecipe, 'name' | 'optionsHelp' | 'optionValues'>, flag = '--lock-opt', fix = ''): void {
  const values = recipe.optionValues ?? {};
  const names = [...new Set([...Object.keys(recipe.optionsHelp ?? {}), ...Object.keys(values)])];
  const declared = recipe.optionsHelp !== undefined || recipe.optionValues !== undefined;
  // "--lock-opt NAME", or a path such as "runLockTest: lockOptions.NAME" / "test.json: lock_options.NAME".
  const at = (name: string) => (flag.endsWith('.') ? `${flag}${name}` : `${flag} ${name}`);
  for (const [name, v] of Object.entries(options)) {
    if (declared && !names.includes(name)) {
      throw new UsageError(`${at(name)}: lock ${recipe.name} has no option '${name}'; its options: ${names.length ? names.join(', ') : 'none'} (see 'lockpick list')${fix}`);
    }
    const kind = Object.hasOwn(values, name) ? values[name] : undefined;
    const shown = `${at(name)}=${typeof v === 'string' ? v : JSON.stringify(v) ?? String(v)}`;
    if (kind === 'number' && !(typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= MAX_LOCK_OPTION)) {
      throw new UsageError(`${shown}: lock ${recipe.name} takes a number from 0 to ${MAX_LOCK_OPTION} here${fix}`);
    }
    if (kind === 'text' && !((typeof v === 'string' && v !== '') || typeof v === 'number')) throw new UsageError(`${shown}: lock ${recipe.name} takes a non-empty text here${fix}`);
    if (Array.isArray(kind) && !kind.includes(v as string)) throw new UsageError(`${shown}: lock ${recipe.name} takes one of ${kind.join(', ')} here${fix}`);
  }
}

export function parsePausePoints(list: string | undefined, recipePoints: string[]): string[] | undefined {
  if (!list) return undefined;
  // 'send' and 'reply': the I/O points (src/runner/io-points.ts), N drawn by the generator.
  const known = [...WORKER_POINTS, ...recipePoints, ...IO_POINT_KINDS];
  const out = list.split(',').map((s) => s.trim()).filter(Boolean);
  for (const p of out) {
    if (!known.includes(p)) throw new UsageError(`--pause-at: this lock has no point '${p}'; its points: ${known.join(', ')}`);
  }
  return out;
}

/** Why `point` is no point of this lock (named: the worker's and the recipe's; I/O: send|reply:op:N), or undefined. */
function pointProblem(point: string, recipePoints: readonly string[], ioPoints?: 'proxy' | 'hooks'): string | undefined {
  const known = [...WORKER_POINTS, ...recipePoints];
  // The fault proxy sees requests only: a lock whose I/O points it makes has no reply points.
  return parseIoPoint(point) || known.includes(point) ? undefined : `this lock has no point '${point}' (its points: ${known.join(', ')}, send:<op>:N${ioPoints === 'proxy' ? '' : ', reply:<op>:N'})`;
}

/** --points-from DIR: the points a run learned, each a point this lock has. */
export function pointsFrom(dir: string, lock: string, recipePoints: string[]): LearnedPoints {
  const learned = readLearnedPoints(dir, lock);
  for (const p of learned.points) {
    const problem = pointProblem(p, recipePoints);
    if (problem) throw new UsageError(`--points-from ${dir}: ${problem}\n  fix: give a run of this lock`);
  }
  return learned;
}

/**
 * The fault kinds of a run (`--faults`, 'all' expanded), refused up front (exit 2) when the
 * lock's topology or the environment kind cannot have them; an external environment's servers
 * are checked against the topology too. Shared by `lockpick run` and runLockTest.
 */
export async function faultsFor(list: string | undefined, recipe: Awaited<ReturnType<typeof recipeFor>>, env: EnvSpec | undefined): Promise<string[]> {
  const faults = await allFaults(await parseFaults(list), recipe, env?.kind ?? 'local');
  await refuseTopologyFaults(faults, recipe);
  await refuseEnvFaults(faults, env?.kind ?? 'local');
  if (env?.servers) {
    const t = topologyOf(recipe);
    (await import('./env/external.ts')).checkExternalServers(t.name, t.opts, env.servers);
  }
  return faults;
}

/**
 * Run options only some fault kinds act on (KindDef.takes: kill's and server-term's
 * restartDelayMs), set with none of those kinds among `faults`: exit 2 naming the kinds that
 * take it. `set`: the options given, by FaultGenOptions key; `flag`: each as the caller spells it.
 */
export async function checkKindOptions(set: Record<string, unknown>, faults: readonly string[], flag: (option: string) => string, given: string): Promise<void> {
  const { KINDS } = await import('../nemesis/kinds.ts');
  for (const [option, value] of Object.entries(set)) {
    if (value === undefined) continue;
    const takers = KINDS.filter((k) => k.takes && Object.hasOwn(k.takes, option));
    if (takers.length === 0 || takers.some((k) => faults.includes(k.schema.kind))) continue;
    const what = takers.map((k) => `${k.schema.kind} (${String(k.takes![option as keyof typeof k.takes])})`).join(', ');
    throw new UsageError(`${flag(option)} is an option of the fault kinds ${what}; it needs one of them among the faults, got ${given}`);
  }
}

/** `--faults all`: every kind the lock's topology and the environment kind can do. */
export async function allFaults(faults: string[], recipe: Awaited<ReturnType<typeof recipeFor>>, envName: string): Promise<string[]> {
  if (!faults.includes('all')) return faults;
  const { KINDS, topologyProblem, capabilityProblem } = await import('../nemesis/index.ts');
  const { envKind } = await import('./env/env-kinds.ts');
  const topology = topologyOf(recipe).name;
  return KINDS.map((k) => k.schema.kind).filter((k) => !topologyProblem(k, topology, recipe.channels ?? []) && !lockLacks(k, recipe) && !capabilityProblem(k, envKind(envName)!));
}

export async function parseFaults(list: string | undefined): Promise<string[]> {
  if (!list) return [];
  if (list.split(',').map((s) => s.trim()).includes('all')) {
    if (list.trim() !== 'all') throw new UsageError(`--faults all stands alone (it means every kind this lock and environment support); got '${list}'`);
    return ['all'];
  }
  const { FAULT_KINDS, FAULT_ALIASES } = await import('../nemesis/index.ts');
  const known = FAULT_KINDS.map((k) => k.kind);
  const out: string[] = [];
  for (const raw of list.split(',').map((s) => s.trim()).filter(Boolean)) {
    const kind = FAULT_ALIASES[raw] ?? raw;
    if (!known.includes(kind)) {
      throw new UsageError(`unknown fault '${raw}'; known faults: ${known.join(', ')} (aliases: ${Object.entries(FAULT_ALIASES).map(([a, k]) => `${a}=${k}`).join(', ')})`);
    }
    if (!out.includes(kind)) out.push(kind);
  }
  return out;
}

/** The variables each CI engine sets for a parallel job: index (0- or 1-based) and total. */
const SHARD_ENGINES: { name: string; index: string; total?: string; base: 0 | 1 }[] = [
  { name: 'GitLab', index: 'CI_NODE_INDEX', total: 'CI_NODE_TOTAL', base: 1 },
  { name: 'Buildkite', index: 'BUILDKITE_PARALLEL_JOB', total: 'BUILDKITE_PARALLEL_JOB_COUNT', base: 0 },
  // A Kubernetes Indexed Job sets the index only: the total comes from --shard-total or LOCKPICK_SHARD_TOTAL.
  { name: 'Kubernetes', index: 'JOB_COMPLETION_INDEX', base: 0 },
];

/** A shard index (0- or 1-based: `min`) or total as text, within MAX_SHARDS. */
function shardInt(v: string, what: string, min: number, max = MAX_SHARDS): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isInteger(n) || n < min) throw new UsageError(`${what} must be a whole number ≥ ${min}, got '${v}'`);
  if (n > max) throw new UsageError(`${what} must be at most ${max} (${MAX_SHARDS_WHY}), got '${v}'`);
  return n;
}

/**
 * `--shard I/N` (1-based), or `--shard auto`: the index and total a CI engine set (GitLab,
 * Buildkite, a Kubernetes Indexed Job with the total given once by --shard-total or
 * LOCKPICK_SHARD_TOTAL); `--shard-total` alone means auto. Undefined when not sharded.
 * A bad value exits 2 naming the option or the variable.
 */
export function parseShard(flag: string | undefined, totalFlag: string | number | undefined, env: Record<string, string | undefined> = process.env): Shard | undefined {
  if (flag === undefined && totalFlag === undefined) return undefined;
  const check = (index: number, total: number, from: string, what: string): Shard => {
    if (index > total) throw new UsageError(`${what}: shard ${index} of ${total} does not exist (shards are 1..${total})`);
    return { index, total, from };
  };
  if (flag !== undefined && flag !== 'auto') {
    if (totalFlag !== undefined) throw new UsageError(`--shard-total gives the total a Kubernetes Indexed Job does not set; with --shard ${flag} leave it out`);
    const m = /^(\d+)\/(\d+)$/.exec(flag.trim());
    if (!m) throw new UsageError(`--shard must be I/N (e.g. 2/4: the 2nd of 4 shards, 1-based) or auto, got '${flag}'`);
    const total = shardInt(m[2]!, '--shard N', 1);
    return check(shardInt(m[1]!, '--shard I', 1), total, '--shard', '--shard');
  }
  for (const e of SHARD_ENGINES) {
    const raw = env[e.index];
    if (raw === undefined || raw === '') continue;
    const index = shardInt(raw, `${e.index} (${e.name})`, e.base, MAX_SHARDS - 1 + e.base) + (1 - e.base);
    let total: number, from: string;
    if (e.total) {
      const t = env[e.total];
      if (t === undefined || t === '') throw new UsageError(`${e.index} is set (${e.name}) but ${e.total} is not: both are needed for --shard auto`);
      total = shardInt(t, `${e.total} (${e.name})`, 1);
      from = `${e.index}/${e.total} (${e.name})`;
    } else if (totalFlag !== undefined) {
      total = typeof totalFlag === 'number' ? positiveInt(totalFlag, 'shardTotal', 1, 1, MAX_SHARDS) : shardInt(totalFlag, '--shard-total', 1);
      from = `${e.index} (${e.name}) of --shard-total`;
    } else {
      const t = env.LOCKPICK_SHARD_TOTAL;
      if (t === undefined || t === '') throw new UsageError(`${e.index} is set (${e.name}) but not the total: give --shard-total N (the Job's completions) or set LOCKPICK_SHARD_TOTAL`);
      total = shardInt(t, 'LOCKPICK_SHARD_TOTAL', 1);
      from = `${e.index} (${e.name}) of LOCKPICK_SHARD_TOTAL`;
    }
    return check(index, total, from, e.index);
  }
  throw new UsageError(`--shard auto: none of ${SHARD_ENGINES.map((e) => e.index).join(', ')} is set; give --shard I/N`);
}

/** What a replay runs besides its plan, read from test.json and checked. */
export interface StoredOptions {
  lockOptions: Record<string, unknown>;
  property: Property;
  livenessMs?: number;
  keyPrefix?: string;
}

/**
 * A stored run (`lockpick run --replay DIR`: test.json) checked as `lockpick run` checks the same
 * options given as flags, by the same functions: the lock's options against what its recipe
 * declares (checkLockOptions), the property, the liveness bound and the key prefix, and each fault
 * of the plan (already checked against its kind's schema and bounds: validatePlan) against this
 * lock (faultProblem: the topology, the clock its holds expire by, the lock's channels and what it
 * lacks) and its points. `where` names the file; `lockGiven`: --lock replaced the stored lock.
 * A field that does not fit is exit 2 naming it, with the fix: edit the file or run afresh.
 */
export async function checkStoredRun(test: Record<string, unknown>, where: string, plan: RunPlan, recipe: LockRecipe, lockGiven: boolean): Promise<StoredOptions> {
  const fix = '\n  fix: edit the file, or run afresh (lockpick run --lock ...)';
  // With --lock, the stored plan may fit the stored lock and not the one given.
  const other = lockGiven ? `\n  fix: give --lock a lock it fits (or leave --lock out: the stored lock), or edit the file` : fix;
  const raw = test.lock_options ?? {};
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new UsageError(`${where}: lock_options must be an object of the lock's options, e.g. {"retryMs": 20}; got ${JSON.stringify(raw)}${fix}`);
  const lockOptions = raw as Record<string, unknown>;
  checkLockOptions(lockOptions, recipe, `${where}: lock_options.`, lockGiven ? other : fix);
  const property = propertyOf(test.property ?? undefined, (p) => `${where}: property must be one of ${PROPERTIES.join(', ')}; got ${JSON.stringify(p)}${fix}`);
  const live = test.liveness_ms ?? undefined;
  let livenessMs: number | undefined;
  try { livenessMs = live === undefined ? undefined : positiveInt(live as number, 'liveness_ms', 0, 1, MAX_MS, `${where}: `); } catch (e) { throw new UsageError(`${(e as Error).message}${fix}`); }
  const keyPrefix = test.key_prefix === null ? undefined : parseKeyPrefix(test.key_prefix as string | undefined, `${where}: key_prefix`, fix);
  for (const [i, f] of plan.faults.entries()) {
    const problem = await faultProblem(f.kind, recipe);
    if (problem) throw new UsageError(`${where}: plan.faults[${i}]: ${problem}${other}`);
    const points: [string, string | undefined][] = [['params.point', typeof f.params?.point === 'string' ? f.params.point : undefined], ['anchor.point', f.anchor?.point]];
    for (const [field, point] of points) {
      const p = point === undefined ? undefined : pointProblem(point, recipe.points ?? [], recipe.ioPoints);
      if (p) throw new UsageError(`${where}: plan.faults[${i}].${field}: ${p}${other}`);
    }
  }
  return { lockOptions, property, livenessMs, keyPrefix };
}
