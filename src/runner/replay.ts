// replay: the plan stored in a run directory's test.json, run again on a session of its own
// (`lockpick run --replay DIR`), up to --runs times, until it breaks; what it did is stored
// and said by replay-report.ts.
import { appendProgress } from './progress-file.ts';
import { basename, dirname, join } from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import { ONE_CLIENT_ANOMALIES } from '../../checkers/anomaly-kinds.ts';
import { describePlan, validatePlan } from '../workload/plan.ts';
import type { LockSpec } from './protocol.ts';
import { newRunDir, readTestJson, versions, writeJson } from './store.ts';
import { serverPackages } from './session.ts';
import { lockFromStored, lockLabel, moduleHash, storedLock } from './lock-spec.ts';
import { envJson, envFromTest, keyNamespace } from './env-spec.ts';
import { checkPackages } from '../optional.ts';
import { UsageError } from '../errors.ts';
import { checkStoredRun } from '../options.ts';
import { COUNTEREXAMPLE_DIR, failureOfDir } from './stored-files.ts';
import { hasIoPoints, retargetIoPoints } from './replay-retarget.ts';
import { calibrationPlan } from '../workload/points.ts';
import { logged } from './run-files.ts';
import type { RunSummary } from './summary.ts';
import { withSession, type Interrupted } from './with-session.ts';
import type { ReplayOptions } from './run-options.ts';
import { ReplayTally, storeInterruptedReplay, storeReplay, type ReplayRecord } from './replay-report.ts';

/**
 * The lock a replay runs: `o.lock`, else test.json's (a module path relative to the
 * directory lockpick runs in). Says when the module is not the one the run used, and
 * whether it is the run's own lock (then a replay that does not break has not reproduced it).
 */
export function replayLock(test: Record<string, unknown>, where: string, o: ReplayOptions): { spec: LockSpec; same: boolean; note?: string } {
  const stored = test.lock_spec as LockSpec | undefined;
  // Bad input, not lockpick's failure: exit 2 (it was a plain Error, exit 4).
  if (!stored || (typeof stored !== 'object')) throw new UsageError(`${where}: "lock_spec" is missing; it should be {"name": ...} or {"path": ...} as lockpick run wrote it\n  fix: add it, give --lock, or run afresh`);
  const spec = o.lock ?? lockFromStored(stored);
  if (!('path' in spec)) return { spec, same: 'name' in stored && stored.name === spec.name };
  // --lock naming another file than the run's: its hash says nothing of that file; the replay tries this lock on the run's plan.
  const fromStored = lockFromStored(stored);
  const storedPath = 'path' in fromStored ? fromStored.path : undefined;
  if (o.lock && storedPath !== spec.path) {
    return { spec, same: false, note: `replaying the plan of ${lockLabel(stored)} with ${lockLabel(spec)} instead (--lock): a violation is this lock's, no violation is its verdict on that plan` };
  }
  if (!o.lock && !existsSync(spec.path)) {
    throw new UsageError(`${where}: the lock module ${(stored as { path: string }).path} is not at ${spec.path}; test.json names it relative to the directory lockpick ran in: replay from your project's root, or give --lock PATH`);
  }
  // The sha256 the run stored of the file (storedLock), against the file now: a change is said,
  // not refused, as replaying a counterexample against the lock since fixed is what a replay is for.
  const was = typeof test.lock_sha256 === 'string' ? test.lock_sha256 : undefined;
  const now = moduleHash(spec.path);
  const what = spec.path.endsWith('.json') ? 'the recipe file' : 'the lock module';
  const note = was && now && was !== now
    ? `warning: ${what} ${lockLabel(spec)} changed since the run: sha256 ${was} at the run, ${now} now; the replay runs it as it is now, so no violation is this lock's verdict (SAFE), not "not reproduced"`
    : !was && !o.lock && now ? `warning: ${where} stores no sha256 of ${what} ${lockLabel(spec)} ("lock_sha256"): whether it changed since the run cannot be told` : undefined;
  return { spec, same: !o.lock && (!was || was === now), note };
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Everything a replay reads before its run dir and session: DIR/test.json, its plan, the lock and
 * its recipe, the stored options checked as run's flags are (checkStoredRun), the environment.
 * Any of it that does not fit is exit 2 naming the file and the field, with nothing written.
 */
export async function readReplay(o: ReplayOptions) {
  const test = readTestJson(o.dir);
  const where = join(o.dir, 'test.json');
  const plan = validatePlan(test.plan, where);
  const { spec, same, note } = replayLock(test, where, o);
  const recipe = await o.resolve(spec, isRecord(test.lock_options) ? test.lock_options : undefined).catch((e: unknown) => {
    // The stored lock that cannot be had: named as the file's field (--lock's own words otherwise).
    if (o.lock || !(e instanceof UsageError)) throw e;
    throw new UsageError(`${where}: lock_spec: ${e.message}${/\n {2}fix: /.test(e.message) ? '' : '\n  fix: give --lock a lock that can be had, edit the file, or run afresh'}`, { cause: e });
  });
  // What test.json stores is checked as run's flags are (src/options.ts): exit 2 naming the field.
  const { lockOptions, property, livenessMs } = await checkStoredRun(test, where, plan, recipe, o.lock !== undefined);
  checkPackages(recipe.packages);
  // Before the run directory: a plan its environment cannot run is refused with nothing written.
  const { env, keyPrefix } = envFromTest(test, where, plan, o.env);
  return { test, plan, spec, same, note, recipe, lockOptions, property, livenessMs, env, keyPrefix };
}

/** Runs the plan stored in DIR/test.json again (up to `runs` times, until it breaks). */
export async function replay(o: ReplayOptions): Promise<RunSummary> {
  o.interrupts?.signal?.throwIfAborted();
  const t0 = Date.now();
  const { test, plan, spec, same, note, recipe, lockOptions, property: stored, livenessMs, env, keyPrefix } = await readReplay(o);
  // --property judges by another property than the stored run's (a fix judged for the lock alone).
  const property = o.property ?? stored;
  const { id, dir } = newRunDir(o.storeRoot, lockLabel(spec));
  o = { ...o, ...logged(dir, o) };
  if (note) o.log(note);
  if (property !== stored) o.log(`judged by --property ${property} (the stored run's: ${stored})`);
  const replayTest = { ...test, lock: lockLabel(spec), ...storedLock(spec), ...envJson(env, keyPrefix), property, replay_of: o.dir, versions: versions(serverPackages(recipe, env)), started: new Date().toISOString() };
  writeJson(join(dir, 'test.json'), replayTest);
  o.log(`lockpick replay ${id} of ${o.dir}: lock ${lockLabel(spec)}\n${describePlan(plan)}`);
  const record: ReplayRecord = { o, dir, id, t0, plan, spec, property, tally: new ReplayTally(plan, property, livenessMs) };
  appendProgress(dir, 'search', record.tally.coverage, { runs: 0, violations: 0, ops: 0 });   // started: `lockpick serve` shows it from now
  let interrupted = false;
  const onInterrupt = (reason: string): Promise<Interrupted> => {
    interrupted = true;
    return storeInterruptedReplay(record, reason);
  };
  return withSession({
    recipe, lock: spec, historyPath: join(dir, 'history.jsonl'), lockOptions, property, livenessMs,
    env, keyPrefix: keyNamespace(env, keyPrefix, id),
  }, o.interrupts ?? {}, async (session) => {
    const { tally } = record;
    // Another lock than the stored one: its operations may make fewer requests than the plan's I/O
    // points ask (./replay-retarget.ts); one fault-free run of it says how many, before the plan's runs.
    let runPlan = plan;
    if (!same && hasIoPoints(plan)) {
      const probe = await session.runOnce(calibrationPlan({ ttlMs: plan.ttlMs, renew: recipe.renews, reentrant: recipe.model === 'reentrant-mutex', sessionMs: recipe.sessionMs?.(lockOptions) }));
      if (interrupted) return await new Promise<never>(() => {});
      const moved = retargetIoPoints(plan, probe.points);
      if (moved.moves.length) {
        runPlan = record.plan = moved.plan;
        record.moved = true;
        for (const m of moved.moves) o.log(`replay: ${m}`);
        // What this replay ran, so a replay of it runs the same.
        writeJson(join(dir, 'test.json'), { ...replayTest, plan: runPlan, replay_moved: moved.moves });
      }
    }
    for (; tally.n < o.runs; tally.n++) {
      const outcome = await session.runOnce(runPlan);
      // Interrupted meanwhile: onInterrupt stored the runs before this one and the process is exiting.
      if (interrupted) return await new Promise<never>(() => {});
      tally.onRun(outcome);
      appendProgress(dir, 'search', tally.coverage, { runs: tally.n + 1, violations: tally.rate.reproduced, ops: tally.ops });
      if (outcome.verdict === false && !o.measure) break;
    }
    // A counterexample of this very lock that did not break again is not reproduced (storeReplay: no verdict).
    return storeReplay(record, same && test.counterexample !== undefined, soloAnomalies(o.dir));
  }, onInterrupt);
}

/**
 * The anomalies of the counterexample stored in `dir`, when every one is shown by one client alone
 * (ONE_CLIENT_ANOMALIES); else undefined. A run dir's are its results.json's minimal run's (its
 * test.json plans that one); a counterexample dir's are its failure's in the run's results.json
 * (`failures`, by the dir's name: counterexample/ is not the minimal's when a bug was found after
 * an inherent failure), else the minimal's.
 */
export function soloAnomalies(dir: string): string[] | undefined {
  const inCx = COUNTEREXAMPLE_DIR.test(basename(dir)) && !existsSync(join(dir, 'results.json'));
  let results: { minimal?: { check?: { anomalies?: unknown }; resource?: { anomalies?: unknown } }; failures?: unknown } | null;
  try { results = JSON.parse(readFileSync(join(inCx ? dirname(dir) : dir, 'results.json'), 'utf8')); } catch { return undefined; }
  const failure = inCx ? failureOfDir<{ counterexample?: unknown; anomalies?: unknown }>(results?.failures, basename(dir)) : undefined;
  const types = failure !== undefined
    ? (Array.isArray(failure.anomalies) ? failure.anomalies : [])
    : [results?.minimal?.check?.anomalies, results?.minimal?.resource?.anomalies].flatMap((l) => (Array.isArray(l) ? l : [])).map((a) => (a as { type?: unknown } | null)?.type);
  if (types.length === 0) return undefined;
  return types.every((t) => typeof t === 'string' && ONE_CLIENT_ANOMALIES.has(t)) ? [...new Set(types as string[])] : undefined;
}
