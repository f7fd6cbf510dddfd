// replay: the plan stored in a run directory's test.json, run again on a session of its own
// (`lockpick run --replay DIR`), up to --runs times, until it breaks.
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import type { LockRecipe } from '../locks/lock.ts';
import type { Verdict } from '../../checkers/types.ts';
import { describePlan, validatePlan } from '../workload/plan.ts';
import type { LockSpec } from './protocol.ts';
import { throughput } from './progress.ts';
import { clientLogs, clientOutputNote } from './client-logs.ts';
import { wantsLiveness, type RunOutcome } from './session.ts';
import { newRunDir, readTestJson, versions, writeJson } from './store.ts';
import { lockFromStored, lockLabel, moduleHash, storedLock } from './lock-spec.ts';
import { envJson, envFromTest, keyNamespace } from './env-spec.ts';
import type { EnvSpec } from '../env/env-kinds.ts';
import { addRun, describeCoverage, emptyCoverage, gaps } from './coverage.ts';
import { checkPackages } from '../optional.ts';
import { UsageError } from '../errors.ts';
import { describeOutcome, finish, logged, shownRun, writeCounterexample, writeJUnit } from './run-files.ts';
import { addLiveness, outcomeJson, type LivenessTotals, type RunSummary, type SummaryDraft } from './summary.ts';
import { withSession, type Interrupted, type Interrupts } from './with-session.ts';
import type { RunOptions } from './run-options.ts';

export interface ReplayOptions {
  dir: string;
  runs: number;
  storeRoot: string;
  /** The recipe of `spec`; `lockOptions`: the stored --lock-opt set its sessionMs is asked for. */
  resolve(spec: LockSpec, lockOptions?: Record<string, unknown>): Promise<LockRecipe>;
  log(line: string): void;
  junitPath?: string;
  interrupts?: Interrupts;
  /** Servers to use instead of the stored ones (--endpoints again: a password is never stored). */
  env?: EnvSpec;
  /** The lock to use instead of the stored one (--lock with --replay: the fixed module, or the same one moved). */
  lock?: LockSpec;
}

/**
 * The lock a replay runs: `o.lock`, else test.json's (a module path relative to the
 * directory lockpick runs in). Says when the module is not the one the run used, and
 * whether it is the run's own lock (then a replay that does not break has not reproduced it).
 */
export function replayLock(test: Record<string, unknown>, where: string, o: ReplayOptions): { spec: LockSpec; same: boolean; note?: string } {
  const stored = test.lock_spec as LockSpec | undefined;
  if (!stored || (typeof stored !== 'object')) throw new Error(`${where}: "lock_spec" is missing; it should be {"name": ...} or {"path": ...} as lockpick run wrote it`);
  const spec = o.lock ?? lockFromStored(stored);
  if (!('path' in spec)) return { spec, same: 'name' in stored && stored.name === spec.name };
  if (!o.lock && !existsSync(spec.path)) {
    throw new UsageError(`${where}: the lock module ${(stored as { path: string }).path} is not at ${spec.path}; test.json names it relative to the directory lockpick ran in: replay from your project's root, or give --lock PATH`);
  }
  const was = typeof test.lock_sha256 === 'string' ? test.lock_sha256 : undefined;
  const now = moduleHash(spec.path);
  const note = was && now && was !== now ? `note: the lock module changed since the run: hash ${was.slice(0, 12)}… → ${now.slice(0, 12)}… (${lockLabel(spec)})` : undefined;
  return { spec, same: !o.lock && (!was || was === now), note };
}

/** Runs the plan stored in DIR/test.json again (up to `runs` times, until it breaks). */
export async function replay(o: ReplayOptions): Promise<RunSummary> {
  o.interrupts?.signal?.throwIfAborted();
  const t0 = Date.now();
  const test = readTestJson(o.dir);
  const where = join(o.dir, 'test.json');
  const plan = validatePlan(test.plan, where);
  const { spec, same, note } = replayLock(test, where, o);
  const recipe = await o.resolve(spec, test.lock_options as Record<string, unknown> | undefined);
  checkPackages(recipe.packages);
  // Before the run directory: a plan its environment cannot run is refused with nothing written.
  const { env, keyPrefix } = envFromTest(test, where, plan, o.env);
  const { id, dir } = newRunDir(o.storeRoot, lockLabel(spec));
  o = { ...o, ...logged(dir, o) };
  if (note) o.log(note);
  writeJson(join(dir, 'test.json'), { ...test, lock: lockLabel(spec), ...storedLock(spec), ...envJson(env, keyPrefix), replay_of: o.dir, versions: versions(), started: new Date().toISOString() });
  o.log(`lockpick replay ${id} of ${o.dir}: lock ${lockLabel(spec)}\n${describePlan(plan)}`);
  const property = (test.property as RunOptions['property']) ?? 'both';
  const livenessMs = typeof test.liveness_ms === 'number' ? test.liveness_ms : undefined;
  let last: RunOutcome | undefined;
  let ops = 0;
  let n = 0;
  const coverage = emptyCoverage([...new Set(plan.faults.map((f) => f.kind))]);
  const liveness: LivenessTotals = { checked: wantsLiveness(property), violations: 0, longest_unavailable_ms: 0, bound_ms: livenessMs ?? null };
  const faultKinds = [...new Set(plan.faults.map((f) => f.kind))];
  // An interrupt: the runs done so far are stored with the reason (a violation already seen stays one); the history keeps every event.
  let interrupted = false;
  const onInterrupt = async (reason: string): Promise<Interrupted> => {
    interrupted = true;
    const unsafe = last?.verdict === false;
    const verdict: Verdict = unsafe ? false : 'unknown';
    const missing = unsafe ? [] : [`${reason} after ${coverage.runs} complete run(s) of ${o.runs}: no verdict`];
    const results: Interrupted = {
      verdict, interrupted: true, reason, runs: coverage.runs, property, lock_violations: last?.lockVerdict === false ? 1 : 0, liveness, ops, coverage, gaps: missing,
      last: last ? outcomeJson(last) : null,
      client_logs: clientLogs(dir), dir,
    };
    writeJson(join(dir, 'results.json'), results);
    writeJUnit(dir, [o.junitPath], {
      lock: lockLabel(spec), property, faults: faultKinds, replay: true, replayCommand: `lockpick run --replay ${o.dir}`,
      verdict, interrupted: true, elapsedMs: Date.now() - t0, gaps: missing, tested: describeCoverage(coverage),
      anomalies: unsafe && last ? [...last.check.anomalies, ...last.resource.anomalies] : [], resource: unsafe ? last?.resource : undefined,
      plan: describePlan(plan), properties: { run: id, replay_of: o.dir },
    });
    o.log(`\nINTERRUPTED (${reason}) after ${coverage.runs} complete run(s) of the stored plan: ${unsafe ? 'UNSAFE: the last one broke the lock' : 'no verdict'}; the history so far: ${join(dir, 'history.jsonl')}`);
    const output = clientOutputNote(dir);
    if (output) o.log(output);
    o.log(`results: ${join(dir, 'results.json')}`);
    return results;
  };
  return withSession({
    recipe, lock: spec, historyPath: join(dir, 'history.jsonl'), lockOptions: test.lock_options as Record<string, unknown> | undefined, property, livenessMs,
    env, keyPrefix: keyNamespace(env, keyPrefix, id),
  }, o.interrupts ?? {}, async (session) => {
    for (; n < o.runs; n++) {
      const outcome = await session.runOnce(plan);
      // Interrupted meanwhile: onInterrupt stored the runs before this one and the process is exiting.
      if (interrupted) return await new Promise<never>(() => {});
      last = outcome;
      addLiveness(liveness, last);
      ops += last.ops;
      addRun(coverage, last);
      if (last.verdict === false) break;
    }
    const unsafe = last?.verdict === false;
    // Not reproduced is only "safe" when the plan's faults took effect and the lock was contended.
    // A counterexample of this very lock that did not break again is not reproduced: no verdict (exit 3).
    // A scenario, or another lock (a fix) against the plan, gets the verdict the runs earned.
    const notReproduced = !unsafe && same && test.counterexample !== undefined;
    const missing = unsafe ? [] : [...gaps(coverage), ...(notReproduced ? [`the counterexample did not break the lock again in ${n} run(s) (--runs ${o.runs})`] : [])];
    const summary: SummaryDraft = {
      verdict: unsafe ? false : missing.length === 0 ? true : 'unknown', exitCode: unsafe ? 1 : missing.length === 0 ? 0 : 3,
      coverage, gaps: missing,
      dir, runId: id, runs: Math.min(n + 1, o.runs), shrinkRuns: 0, inconclusive: coverage.runs - coverage.conclusive, ops, replay: `lockpick run --replay ${o.dir}`,
      throughput: throughput({ runs: coverage.runs, inconclusive: coverage.runs - coverage.conclusive, schedules: 1, searchMs: Date.now() - t0 }),
      lockViolations: last?.lockVerdict === false ? 1 : 0, liveness,
      resource: { lostUpdates: last?.resource.lostUpdates ?? 0, staleWritesAccepted: last?.resource.staleWritesAccepted ?? 0, staleStepsPrevented: last?.resource.staleStepsPrevented ?? 0 },
      elapsedMs: 0, junit: join(dir, 'junit.xml'),
    };
    let cdir: string | undefined;
    if (last) {
      cdir = await writeCounterexample(dir, last, { lock: lockLabel(spec), replay_of: o.dir, plan: describePlan(plan) });
      o.log(unsafe ? `\nREPRODUCED in run ${summary.runs} of ${o.runs}:`
        : notReproduced ? `\nNOT REPRODUCED: tried ${n} time(s) (--runs ${o.runs}), no violation; the counterexample is timing-sensitive: try more --runs (exit 3):`
          : `\nNo violation in ${n} run(s) of the stored plan:`);
      o.log(await describeOutcome(last, join(cdir, 'history.jsonl')));
      summary.minimal = { plan, ops: last.ops, faults: plan.faults.length, anomalies: last.check.anomalies, resource: last.resource };
    }
    if (missing.length) o.log(`INCONCLUSIVE:\n${missing.map((g) => `  - ${g}`).join('\n')}`);
    o.log(`tested: ${describeCoverage(coverage)}`);
    return finish(dir, o, t0, summary, {
      lock: lockLabel(spec), property, faults: [...new Set(plan.faults.map((f) => f.kind))], replay: true, replayCommand: summary.replay,
      tested: describeCoverage(coverage), ...shownRun(unsafe ? last : undefined, cdir),
      plan: describePlan(plan), properties: { run: id, replay_of: o.dir },   // the plan replayed, broken or not
    }, [o.junitPath, unsafe && cdir ? join(cdir, 'junit.xml') : undefined], {
      runs: summary.runs, property, lock_violations: summary.lockViolations, liveness, resource_totals: summary.resource, ops, coverage, gaps: missing,
      last: last ? outcomeJson(last) : null, client_logs: clientLogs(dir),
    });
  }, onInterrupt);
}
