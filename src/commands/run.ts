// `lockpick run`: hammer a lock implementation under faults and check it.
import { parseCommandArgs } from './args.ts';
import { EXIT, EXIT_HELP, InconclusiveError, UsageError } from '../errors.ts';
import { lockLabel, parseLockArg } from '../runner/lock-spec.ts';
import { replay, runTest, type RunSummary } from '../runner/index.ts';
import { langOption } from '../i18n/lang.ts';
import { MAX_MS, MAX_S, checkKindOptions, coverageGuidedOf, minCoverageOf, checkLockOptions, clientCount, ttlWithinTime, faultsFor, int, parallelRuns, parseEnv, parseKeyPrefix, parseLockOptions, parsePausePoints, parseShard, pointsFrom, propertyOf, recipeFor, replayDir, writablePath } from '../options.ts';

const USAGE = `usage: lockpick run --lock NAME|./my-lock.ts [--faults KIND,KIND...] [options]
       lockpick run --replay store/<lock>/<run-id> [--runs N]

Runs property-based clients against a real lock while the nemesis injects
faults, checks every run, and shrinks a violation to a small schedule.

options:
  --lock NAME|PATH     a lock from 'lockpick list', or a module exporting a LockRecipe, or a
                       process client in any language: exec:'CMD' or a .json recipe file
                       (docs/process-clients.md)
  --faults LIST        fault kinds, comma-separated (see 'lockpick list'); default none;
                       'all': every kind this lock's topology and environment support
  --clients N          clients at most (default 3)
  --time S             search time budget in seconds (default 60; shrinking is not in it)
  --runs N             at most this many runs (default: as many as fit in --time)
  --shrink-time S      time budget for shrinking each failure found (default 60; the
                       default search shrinks up to two: a bug and an inherent failure), so a
                       run takes up to --time + 2 × --shrink-time, and the servers' start
  --keep-going         after a violation, search on for all of --time (shrinking not counted)
                       and report every distinct failure by cause, each with its time to
                       detection; the 2nd on in store/<lock>/<run-id>/counterexample-N
  --lang L             the language of the timeline pages it writes: en or zh-CN (default
                       LOCKPICK_LANG, else en)
  --first-failure      stop at the first failure, even one inherent to the lock's design
                       (default: search on past it for a bug of this lock, report both)
  --parallel K         run up to K plans at once when all their faults touch only their own
                       clients (client-pause, client-clock, client-kill; each run its own
                       clients, keys and history file); others run alone (default 1)
  --min-coverage P     a SAFE below P percent (0-100) of the fault cells the search could draw
                       (kind x where it landed x another client waiting; every search prints
                       its coverage) is INCONCLUSIVE (exit 3), naming the cells never hit
  --coverage-guided B  true (default): the plans not drawn by an aim are steered toward fault
                       cells not aimed at yet; false: uniform (a baseline)
  --seed S             fast-check seed (printed on every run)
  --shard I/N|auto     run shard I of N of one search (1-based): a disjoint part of the plans
                       (its own seed stream and share of the aims); auto reads the CI engine's
                       CI_NODE_INDEX/CI_NODE_TOTAL (GitLab), BUILDKITE_PARALLEL_JOB/_COUNT, or
                       JOB_COMPLETION_INDEX (Kubernetes Indexed Job: 0-based) with the total from
                       --shard-total N or LOCKPICK_SHARD_TOTAL. Merge the run dirs: lockpick merge
  --shard-total N      the total for JOB_COMPLETION_INDEX (implies --shard auto)
  --ttl MS             lease of every acquire (default 800)
  --keys N             distinct lock names (default 1)
  --max-attempts N     lock attempts per client and run, at most (default 3)
  --max-faults N       fault groups per run, at most (default 2)
  --restart-delay MS   operate with delayed restarts: every kill or server-term keeps
                       its server down at least MS (antirez's remedy; set it above --ttl)
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
  --replay DIR         run the plan stored in DIR/test.json again (--runs times at most, default 3;
                       with --measure all --runs times, saying the reproduction rate, stored in
                       DIR/reproduction.json);
                       a lock module is found relative to the current directory (as stored);
                       --lock and --endpoints given too replace the stored ones; scenarios/NAME
                       not found here is lockpick's own (the demo catalogue). A counterexample
                       of the same lock that does not break again exits 3 (not reproduced)
  --property P         what must hold: lock (its history), resource (the protected counter:
                       no lost update, no stale write), both (default: lock + resource),
                       liveness (no lock stays unavailable past --liveness-ms after its
                       holder was gone while clients kept trying), or all three (all);
                       with --replay: instead of the stored one (a fix judged by lock alone)
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
    a --store that is not a directory, a --replay DIR without a valid test.json (its plan,
    faults, lock_options, property and points are checked as these flags are, for the lock
    replayed; the field is named);
  3 here: limits reached, the environment failed to start, or no effective test`;

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs('run', USAGE, argv, {
    lock: { type: 'string' }, faults: { type: 'string' }, clients: { type: 'string' }, time: { type: 'string' },
    runs: { type: 'string' }, 'shrink-time': { type: 'string' }, seed: { type: 'string' }, ttl: { type: 'string' },
    keys: { type: 'string' }, 'max-attempts': { type: 'string' }, 'max-faults': { type: 'string' }, 'restart-delay': { type: 'string' }, 'pause-at': { type: 'string' }, 'points-from': { type: 'string' }, property: { type: 'string' }, 'liveness-ms': { type: 'string' }, 'lock-opt': { type: 'string', multiple: true }, store: { type: 'string' },
    replay: { type: 'string' }, env: { type: 'string' }, endpoints: { type: 'string' }, image: { type: 'string' }, 'key-prefix': { type: 'string' }, parallel: { type: 'string' }, 'keep-going': { type: 'boolean' }, 'first-failure': { type: 'boolean' }, measure: { type: 'boolean' }, 'min-coverage': { type: 'string' }, 'coverage-guided': { type: 'string' }, shard: { type: 'string' }, 'shard-total': { type: 'string' }, json: { type: 'boolean' }, junit: { type: 'string' }, lang: { type: 'string' },
  });
  if (typeof parsed === 'number') return parsed;
  const args = parsed.values;
  const json = args.json === true;
  const log = (line: string) => (json ? console.error(line) : console.log(line));
  let summary: RunSummary;
  try {
    const storeRoot = args.store ?? 'store';
    const junitPath = args.junit === undefined ? undefined : writablePath(args.junit, '--junit');
    // The CLI owns the process: a signal stores what was found and exits (Ctrl-C 130, else 1 or 3; the library API does not).
    const interrupts = { exitOnSignal: true, json };
    const lang = langOption(args.lang);
    const env = await parseEnv(args.env, args.endpoints, args.replay !== undefined, args.image);
    if (args.replay) {
      if (args['key-prefix'] !== undefined) throw new UsageError('--key-prefix: a replay uses the prefix its test.json stored; leave it out');
      if (args['points-from'] !== undefined) throw new UsageError('--points-from sets where a search draws its points; a replay runs its stored plan as it is, so leave it out');
      if (args.shard !== undefined || args['shard-total'] !== undefined) throw new UsageError('--shard splits a search; a replay runs one stored plan, so leave it out');
      if (args['keep-going']) throw new UsageError('--keep-going goes on searching after a violation; a replay runs one stored plan, so leave it out (or drop --replay)');
      if (args['first-failure']) throw new UsageError('--first-failure stops a search at its first violation; a replay runs one stored plan, so leave it out (or drop --replay)');
      if (args['min-coverage'] !== undefined || args['coverage-guided'] !== undefined) throw new UsageError(`--${args['min-coverage'] !== undefined ? 'min-coverage' : 'coverage-guided'} is about a search's fault-space coverage; a replay runs one stored plan, so leave it out (or drop --replay)`);
      // --lock: another module (a fix, or the same one moved) against the stored plan.
      const lock = args.lock === undefined ? undefined : parseLockArg(args.lock);
      const property = args.property === undefined ? undefined : propertyOf(args.property, (p) => `--property must be lock, resource or both (safety), liveness, or all (safety and liveness), got '${String(p)}'`);
      summary = await replay({ dir: replayDir(args.replay), runs: int(args.runs, '--runs', 3), storeRoot, resolve: recipeFor, log, junitPath, interrupts, env, lock, measure: args.measure === true, ...(property ? { property } : {}), ...(lang ? { lang } : {}) });
    } else {
      if (args.measure) throw new UsageError('--measure measures how often a stored counterexample breaks the lock again: give it with --replay DIR (and --runs N)');
      if (args['keep-going'] && args['first-failure']) throw new UsageError('--keep-going searches on after every violation, --first-failure stops at the first: give one of them');
      const minCoverage = minCoverageOf(args['min-coverage'], '--min-coverage');
      const coverageGuided = coverageGuidedOf(args['coverage-guided']);
      if (!args.lock) throw new UsageError(`--lock is required: a lock name from 'lockpick list' or a path to your own module (./my-lock.ts)`);
      const spec = parseLockArg(args.lock);
      const lockOptions = parseLockOptions(args['lock-opt'] ?? []);
      const recipe = await recipeFor(spec, lockOptions);
      checkLockOptions(lockOptions, recipe);
      const faults = await faultsFor(args.faults, recipe, env);
      await checkKindOptions({ restartDelayMs: args['restart-delay'] }, faults, () => '--restart-delay', `--faults ${args.faults ?? '(none)'}`);
      const keyPrefix = parseKeyPrefix(args['key-prefix']);
      const property = propertyOf(args.property, (p) => `--property must be lock, resource or both (safety), liveness, or all (safety and liveness), got '${String(p)}'`);
      const livenessMs = args['liveness-ms'] === undefined ? undefined : int(args['liveness-ms'], '--liveness-ms', 0, 1, MAX_MS);
      const pausePoints = parsePausePoints(args['pause-at'], recipe.points ?? []);
      if (args['points-from'] !== undefined && pausePoints) throw new UsageError('--points-from draws from the points that run learned; leave out --pause-at (or --points-from)');
      const learnedPoints = args['points-from'] === undefined ? undefined : pointsFrom(args['points-from'], lockLabel(spec), recipe.points ?? []);
      ttlWithinTime(int(args.ttl, '--ttl', 800, 50, MAX_MS), 1000 * int(args.time, '--time', 60, 1, MAX_S), '--ttl', '--time');
      summary = await runTest({
        lock: spec, recipe, faults,
        clients: clientCount(int(args.clients, '--clients', 3), '--clients'), timeS: int(args.time, '--time', 60, 1, MAX_S), runs: int(args.runs, '--runs', 1_000_000),
        shrinkTimeS: int(args['shrink-time'], '--shrink-time', 60, 0, MAX_S), seed: args.seed === undefined ? undefined : int(args.seed, '--seed', 0, 0),
        ttlMs: int(args.ttl, '--ttl', 800, 50, MAX_MS), ttlFixed: args.ttl !== undefined, keys: int(args.keys, '--keys', 1),
        maxAttempts: int(args['max-attempts'], '--max-attempts', 3), maxFaults: int(args['max-faults'], '--max-faults', 2),
        restartDelayMs: args['restart-delay'] === undefined ? undefined : int(args['restart-delay'], '--restart-delay', 0, 0, MAX_MS), pausePoints, learnedPoints, property, livenessMs, storeRoot, lockOptions, log,
        progress: json ? undefined : process.stderr, junitPath, interrupts, env, keyPrefix,
        parallel: parallelRuns(args.parallel), keepGoing: args['keep-going'] === true, firstFailure: args['first-failure'] === true, shard: parseShard(args.shard, args['shard-total']),
        ...(minCoverage !== undefined ? { minCoverage } : {}), ...(coverageGuided ? {} : { coverageGuided: false }), ...(lang ? { lang } : {}),
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
