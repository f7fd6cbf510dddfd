// `lockpick run`: hammer a lock implementation under faults and check it.
import { parseArgs } from 'node:util';
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { packageRoot } from '../package-root.ts';
import { EXIT, EXIT_HELP } from '../cli.ts';
import { InconclusiveError, UsageError, fsReason } from '../errors.ts';
import { lockLabel, parseLockArg, resolveRecipe } from '../runner/lock-spec.ts';
import { replay, runTest, type RunSummary } from '../runner/index.ts';
import { PROPERTIES, topologyOf, type Property } from '../runner/session.ts';
import { IO_POINT_KINDS, WORKER_POINTS, MAX_CLIENTS, parseIoPoint } from '../workload/plan.ts';
import { readLearnedPoints } from '../runner/calibrate.ts';
import type { LearnedPoints } from '../workload/points.ts';

const USAGE = `usage: lockpick run --lock NAME|./my-lock.ts [--faults KIND,KIND...] [options]
       lockpick run --replay store/<lock>/<run-id> [--runs N]

Runs property-based clients against a real lock while the nemesis injects
faults, checks every run, and shrinks a violation to a small schedule.

options:
  --lock NAME|PATH     a lock from 'lockpick list', or a module exporting a LockRecipe
  --faults LIST        fault kinds, comma-separated (see 'lockpick list'); default none;
                       'all': every kind this lock's topology and environment support
  --clients N          clients at most (default 3)
  --time S             search time budget in seconds (default 60)
  --runs N             at most this many runs (default: as many as fit in --time)
  --shrink-time S      time budget for shrinking a violation (default 60)
  --keep-going         after a violation, search on for all of --time (shrinking not counted)
                       and report every distinct failure (fault kinds + anomalies), each with
                       its time to detection; the 2nd on in store/<lock>/<run-id>/counterexample-N
  --parallel K         run up to K plans at once when all their faults touch only their own
                       clients (client-pause, client-clock, client-kill; each run its own
                       clients, keys and history file); others run alone (default 1)
  --seed S             fast-check seed (printed on every run)
  --ttl MS             lease of every acquire (default 800)
  --keys N             distinct lock names (default 1)
  --max-attempts N     lock attempts per client and run, at most (default 3)
  --max-faults N       fault groups per run, at most (default 2)
  --restart-delay MS   operate with delayed restarts: every kill keeps its server
                       down at least MS (antirez's remedy; set it above --ttl)
  --pause-at LIST      points where client-pause lands: in-critical-section, the lock's own
                       points (e.g. after-compare; see 'lockpick list'), send (just before
                       the client's Nth command) and reply (just after its Nth reply; N
                       drawn); default all of them (not send/reply for zookeeper locks).
                       Before the search a fault-free calibration run learns which of them
                       the lock reaches (e.g. sends 1..2 of a release): only those are drawn
  --points-from DIR    draw from the points that run's search learned (DIR/test.json), with no
                       calibration run: with its --seed, the same plans are drawn again
  --lock-opt K=V       a recipe option (repeatable; see 'lockpick list')
  --store DIR          where run directories go (default ./store)
  --replay DIR         run the plan stored in DIR/test.json again (--runs times at most, default 3);
                       a lock module is found relative to the current directory (as stored);
                       --lock and --endpoints given too replace the stored ones; scenarios/NAME
                       not found here is lockpick's own (the demo catalogue). A counterexample
                       of the same lock that does not break again exits 3 (not reproduced)
  --property P         what must hold: lock (its history), resource (the protected counter:
                       no lost update, no stale write), both (default: lock + resource),
                       liveness (no lock stays unavailable past --liveness-ms after its
                       holder was gone while clients kept trying), or all three (all)
  --liveness-ms N      the liveness bound (default 2 x TTL, plus the session timeout of a
                       session lock such as ZooKeeper's)
  --env KIND           where the servers come from: local (default: started here from the OS
                       packages), docker (one container per server, every topology; node links
                       through the fault proxy) or external (yours, named by --endpoints; only
                       client-side faults: see README "Environment kinds")
  --image ROLE=IMAGE   --env docker: a server image, comma-separated per role (redis, zookeeper,
                       mariadb; default lockpick-<role>:local, built from this machine's packages
                       on first use), e.g. --image redis=redis:7.2
  --endpoints LIST     external servers: redis=HOST:PORT, sentinel=HOST:PORT with master=NAME,
                       zookeeper=HOST:PORT, mysql=USER:PASS@HOST:PORT/DB, resource=HOST:PORT
                       (a Redis for the protected counter; default: one started here),
                       comma-separated, or a .json file; with --replay: instead of the stored ones
  --key-prefix P       every key the run writes starts with P, then the run id
                       (default 'lockpick:' on --env external, none locally)
  --json               print the summary as JSON on stdout
  --junit PATH         also write the run's JUnit XML to PATH (store/<lock>/<run-id>/junit.xml is
                       always written: one testcase per lock × property × fault kinds)

${EXIT_HELP}
  2 here: a bad option, an unknown lock or fault, a lock module that does not load,
    a --store that is not a directory, a --replay DIR without a valid test.json;
  3 here: limits reached, the environment failed to start, or no effective test`;

/** Fault names the user may type, and the nemesis kind each means. */
const ALIASES: Record<string, string> = { clock: 'clock-bump', restart: 'kill', crash: 'kill' };

function int(v: string | undefined, flag: string, dflt: number, min = 1): number {
  if (v === undefined) return dflt;
  const n = Number(v);
  if (v.trim() === '' || !Number.isInteger(n) || n < min) throw new UsageError(`${flag} must be a whole number ≥ ${min}, got '${v}'`);
  return n;
}

/** Each client is a forked process with its own connections: more than MAX_CLIENTS would test the machine, not the lock. */
export function clientCount(n: number, flag: string): number {
  if (n > MAX_CLIENTS) throw new UsageError(`${flag} ${n}: at most ${MAX_CLIENTS} clients (each is a process with its own connections to the servers; more measure the machine, not the lock)\n  fix: give ${flag} ${MAX_CLIENTS} or fewer`);
  return n;
}

/** --parallel K: each run in flight has its own client processes, so K stays small. */
function parallelRuns(v: string | undefined): number {
  const k = int(v, '--parallel', 1);
  if (k > 16) throw new UsageError(`--parallel must be at most 16 (each run at once has its own client processes; 2 suits a 2-core machine), got '${v}'`);
  return k;
}

/**
 * The recipe for `--lock` (or a replay's lock_spec); a lock that cannot be had is
 * the user's to fix (exit 2). The registry itself is imported first, outside: if
 * lockpick's own module fails to load, that is an internal error (exit 4).
 */
export async function recipeFor(spec: Parameters<typeof resolveRecipe>[0]) {
  await import('../locks/registry.ts');
  return resolveRecipe(spec).catch((e: Error) => { throw new UsageError(e.message); });
}

export async function run(argv: string[]): Promise<number> {
  let args;
  try {
    args = parseArgs({
      args: argv,
      options: {
        lock: { type: 'string' }, faults: { type: 'string' }, clients: { type: 'string' }, time: { type: 'string' },
        runs: { type: 'string' }, 'shrink-time': { type: 'string' }, seed: { type: 'string' }, ttl: { type: 'string' },
        keys: { type: 'string' }, 'max-attempts': { type: 'string' }, 'max-faults': { type: 'string' }, 'restart-delay': { type: 'string' }, 'pause-at': { type: 'string' }, 'points-from': { type: 'string' }, property: { type: 'string' }, 'liveness-ms': { type: 'string' }, 'lock-opt': { type: 'string', multiple: true }, store: { type: 'string' },
        replay: { type: 'string' }, env: { type: 'string' }, endpoints: { type: 'string' }, image: { type: 'string' }, 'key-prefix': { type: 'string' }, parallel: { type: 'string' }, 'keep-going': { type: 'boolean' }, json: { type: 'boolean' }, junit: { type: 'string' }, help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }).values;
  } catch (e) {
    console.error(`lockpick run: ${(e as Error).message}\n\n${USAGE}`);
    return EXIT.usage;
  }
  if (args.help) {
    console.log(USAGE);
    return EXIT.ok;
  }
  const json = args.json === true;
  const log = (line: string) => (json ? console.error(line) : console.log(line));
  let summary: RunSummary;
  try {
    const storeRoot = args.store ?? 'store';
    const junitPath = args.junit === undefined ? undefined : writablePath(args.junit, '--junit');
    // The CLI owns the process: a signal stores what was found and exits (Ctrl-C 130, else 1 or 3; the library API does not).
    const interrupts = { exitOnSignal: true, json };
    const env = await parseEnv(args.env, args.endpoints, args.replay !== undefined, args.image);
    if (args.replay) {
      if (args['key-prefix'] !== undefined) throw new UsageError('--key-prefix: a replay uses the prefix its test.json stored; leave it out');
      if (args['points-from'] !== undefined) throw new UsageError('--points-from sets where a search draws its points; a replay runs its stored plan as it is, so leave it out');
      if (args['keep-going']) throw new UsageError('--keep-going goes on searching after a violation; a replay runs one stored plan, so leave it out (or drop --replay)');
      // --lock: another module (a fix, or the same one moved) against the stored plan.
      const lock = args.lock === undefined ? undefined : parseLockArg(args.lock);
      summary = await replay({ dir: replayDir(args.replay), runs: int(args.runs, '--runs', 3), storeRoot, resolve: recipeFor, log, junitPath, interrupts, env, lock });
    } else {
      if (!args.lock) throw new UsageError(`--lock is required: a lock name from 'lockpick list' or a path to your own module (./my-lock.ts)`);
      const spec = parseLockArg(args.lock);
      const recipe = await recipeFor(spec);
      const faults = await faultsFor(args.faults, recipe, env);
      if (args['restart-delay'] !== undefined && !faults.includes('kill')) throw new UsageError(`--restart-delay keeps killed servers down; it needs --faults kill (or all), got --faults ${args.faults ?? '(none)'}`);
      const keyPrefix = parseKeyPrefix(args['key-prefix']);
      const property = (args.property ?? 'both') as Property;
      if (!PROPERTIES.includes(property)) throw new UsageError(`--property must be lock, resource or both (safety), liveness, or all (safety and liveness), got '${property}'`);
      const livenessMs = args['liveness-ms'] === undefined ? undefined : int(args['liveness-ms'], '--liveness-ms', 0, 1);
      const pausePoints = parsePausePoints(args['pause-at'], recipe.points ?? []);
      if (args['points-from'] !== undefined && pausePoints) throw new UsageError('--points-from draws from the points that run learned; leave out --pause-at (or --points-from)');
      const learnedPoints = args['points-from'] === undefined ? undefined : pointsFrom(args['points-from'], lockLabel(spec), recipe.points ?? []);
      const lockOptions: Record<string, unknown> = {};
      for (const kv of args['lock-opt'] ?? []) {
        const i = kv.indexOf('=');
        if (i <= 0) throw new UsageError(`--lock-opt '${kv}': write it as NAME=VALUE, e.g. --lock-opt retryMs=20`);
        const v = kv.slice(i + 1);
        lockOptions[kv.slice(0, i)] = v !== '' && Number.isFinite(Number(v)) ? Number(v) : v;
      }
      summary = await runTest({
        lock: spec, recipe, faults,
        clients: clientCount(int(args.clients, '--clients', 3), '--clients'), timeS: int(args.time, '--time', 60), runs: int(args.runs, '--runs', 1_000_000),
        shrinkTimeS: int(args['shrink-time'], '--shrink-time', 60, 0), seed: args.seed === undefined ? undefined : int(args.seed, '--seed', 0, 0),
        ttlMs: int(args.ttl, '--ttl', 800, 50), ttlFixed: args.ttl !== undefined, keys: int(args.keys, '--keys', 1),
        maxAttempts: int(args['max-attempts'], '--max-attempts', 3), maxFaults: int(args['max-faults'], '--max-faults', 2),
        restartDelayMs: args['restart-delay'] === undefined ? undefined : int(args['restart-delay'], '--restart-delay', 0, 0), pausePoints, learnedPoints, property, livenessMs, storeRoot, lockOptions, log,
        progress: json ? undefined : process.stderr, junitPath, interrupts, env, keyPrefix,
        parallel: parallelRuns(args.parallel), keepGoing: args['keep-going'] === true,
      });
    }
  } catch (e) {
    // Bad input → 2, no test possible (the environment did not start, the disk
    // filled) → 3; anything else is lockpick's own failure: src/cli.ts exits 4.
    if (e instanceof UsageError || e instanceof InconclusiveError) {
      console.error(`lockpick run: ${e.message}`);
      return e.exitCode;
    }
    throw e;
  }
  if (json) console.log(JSON.stringify(summary));
  return summary.exitCode;
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

/** A fault kind the lock's topology lacks (failover on a single Redis) is refused up front (exit 2). */
export async function refuseTopologyFaults(faults: string[], recipe: Awaited<ReturnType<typeof recipeFor>>): Promise<void> {
  const { topologyProblem } = await import('../../nemesis/index.ts');
  for (const k of faults) {
    const p = topologyProblem(k, topologyOf(recipe).name);
    if (p) throw new UsageError(`--faults: ${p}; leave it out or pick a lock on that topology ('lockpick list')`);
  }
}

/** --env and --endpoints: which environment kind, and the user's servers for an external one (exit 2 when they do not fit). */
export async function parseEnv(kind: string | undefined, endpoints: string | undefined, replaying: boolean, image?: string): Promise<import('../env/env-kinds.ts').EnvSpec | undefined> {
  const { envKind, ENV_KINDS } = await import('../env/env-kinds.ts');
  const name = kind ?? (endpoints !== undefined ? 'external' : undefined);
  if (image !== undefined && name !== 'docker') throw new UsageError('--image chooses the server image of --env docker; add --env docker or leave it out');
  if (image !== undefined) return { kind: name!, images: await (await import('../env/docker-kind.ts')).parseImages(image) } as import('../env/docker-kind.ts').DockerEnvSpec;
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
  const { parseEndpoints } = await import('../env/endpoints.ts');
  return { kind: name, servers: parseEndpoints(endpoints) };
}

/** A fault the environment kind cannot inject (kill on --env external) is refused up front (exit 2), naming the capability. */
export async function refuseEnvFaults(faults: string[], kind: string): Promise<void> {
  const { envKind } = await import('../env/env-kinds.ts');
  const { capabilityProblem } = await import('../../nemesis/index.ts');
  for (const k of faults) {
    const p = capabilityProblem(k, envKind(kind)!);
    if (p) throw new UsageError(`--faults: ${p}; leave it out, or run it where lockpick starts the servers (--env local)`);
  }
}

export function parseKeyPrefix(p: string | undefined): string | undefined {
  if (p === undefined) return undefined;
  if (!/^[A-Za-z0-9:_.\/-]{1,40}$/.test(p)) throw new UsageError(`--key-prefix '${p}': use 1 to 40 letters, digits or : _ . / -`);
  return p;
}

/** A file path lockpick will write at the end of the run: checked now, so a typo costs no run (exit 2). */
function writablePath(p: string, flag: string): string {
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

/** --points-from DIR: the points a run learned, each a point this lock has. */
function pointsFrom(dir: string, lock: string, recipePoints: string[]): LearnedPoints {
  const learned = readLearnedPoints(dir, lock);
  const known = [...WORKER_POINTS, ...recipePoints];
  const bad = learned.points.find((p) => !parseIoPoint(p) && !known.includes(p));
  if (bad) throw new UsageError(`--points-from ${dir}: this lock has no point '${bad}' (its points: ${known.join(', ')}, send:<op>:N, reply:<op>:N)\n  fix: give a run of this lock`);
  return learned;
}

/**
 * The fault kinds of a run (`--faults`, 'all' expanded), refused up front (exit 2) when the
 * lock's topology or the environment kind cannot have them; an external environment's servers
 * are checked against the topology too. Shared by `lockpick run` and runLockTest.
 */
export async function faultsFor(list: string | undefined, recipe: Awaited<ReturnType<typeof recipeFor>>, env: import('../env/env-kinds.ts').EnvSpec | undefined): Promise<string[]> {
  const faults = await allFaults(await parseFaults(list), recipe, env?.kind ?? 'local');
  await refuseTopologyFaults(faults, recipe);
  await refuseEnvFaults(faults, env?.kind ?? 'local');
  if (env?.servers) {
    const t = topologyOf(recipe);
    (await import('../env/external.ts')).checkExternalServers(t.name, t.opts, env.servers);
  }
  return faults;
}

/** `--faults all`: every kind the lock's topology and the environment kind can do. */
export async function allFaults(faults: string[], recipe: Awaited<ReturnType<typeof recipeFor>>, envName: string): Promise<string[]> {
  if (!faults.includes('all')) return faults;
  const { KINDS, topologyProblem, capabilityProblem } = await import('../../nemesis/index.ts');
  const { envKind } = await import('../env/env-kinds.ts');
  const topology = topologyOf(recipe).name;
  return KINDS.map((k) => k.schema.kind).filter((k) => !topologyProblem(k, topology) && !capabilityProblem(k, envKind(envName)!));
}

export async function parseFaults(list: string | undefined): Promise<string[]> {
  if (!list) return [];
  if (list.split(',').map((s) => s.trim()).includes('all')) {
    if (list.trim() !== 'all') throw new UsageError(`--faults all stands alone (it means every kind this lock and environment support); got '${list}'`);
    return ['all'];
  }
  const { FAULT_KINDS } = await import('../../nemesis/index.ts');
  const known = FAULT_KINDS.map((k) => k.kind);
  const out: string[] = [];
  for (const raw of list.split(',').map((s) => s.trim()).filter(Boolean)) {
    const kind = ALIASES[raw] ?? raw;
    if (!known.includes(kind)) {
      throw new UsageError(`unknown fault '${raw}'; known faults: ${known.join(', ')} (aliases: ${Object.entries(ALIASES).map(([a, k]) => `${a}=${k}`).join(', ')})`);
    }
    if (!out.includes(kind)) out.push(kind);
  }
  return out;
}
