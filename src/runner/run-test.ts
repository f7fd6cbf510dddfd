// runTest: a search, composed of its steps: open the session (with-session.ts), calibrate
// (calibrate.ts), search and shrink (search.ts, shrink.ts), store and say what was found
// (run-files.ts, summary.ts).
import { lockModel } from '../locks/shape.ts';
import { join } from 'node:path';
import type { RunOptions } from './run-options.ts';
import { proxyFraming, sendsSeenInProcess } from './proxy-points.ts';
import { defaultPausePoints, describePlan } from '../workload/plan.ts';
import { Progress } from './progress.ts';
import { search, type SearchResult } from './search.ts';
import { classifyRun, lockDesign } from './failure-cause.ts';
import { leaseFloor, serverPackages } from './session.ts';
import { topologyOf } from '../locks/lock.ts';
import { newRunDir, versions, writeJson } from './store.ts';
import { lockLabel, storedLock } from './lock-spec.ts';
import { envJson, keyNamespace } from './env-spec.ts';
import { checkPackages } from '../optional.ts';
import { pointsToDraw } from './calibrate.ts';
import type { LearnedPoints } from '../workload/points.ts';
import { shardKinds, shardLabel } from '../workload/shard.ts';
import { logged, writeCounterexample } from './run-files.ts';
import type { RunSummary } from './summary.ts';
import { withSession, type Interrupted } from './with-session.ts';
import { planSource, withLearned, workloadOptions } from './workload.ts';
import { SearchTally } from './search-tally.ts';
import { appendProgress } from './progress-file.ts';
import { storeInterruptedSearch, storeSearch, type SearchRecord } from './search-report.ts';

/**
 * A search, step by step: the run directory and test.json; the session (one environment for
 * the whole search); the lease floor; the points to draw from (calibrate); the search with its
 * shrinks; what it found, stored and said. An interrupt stores what was found so far.
 */
export async function runTest(o: RunOptions): Promise<RunSummary> {
  o.interrupts?.signal?.throwIfAborted();
  const t0 = Date.now();
  checkPackages(o.recipe.packages);   // a missing optional package ends the run before anything is written (exit 3)
  const { id, dir } = newRunDir(o.storeRoot, lockLabel(o.lock));
  o = { ...o, ...logged(dir, o) };
  const topo = topologyOf(o.recipe);
  const seed = o.seed ?? Math.floor(Math.random() * 0x7fffffff);
  const test = searchTestJson(o, seed);
  writeJson(join(dir, 'test.json'), test);
  o.log(`lockpick run ${id}: lock ${lockLabel(o.lock)}, faults ${o.faults.join(',') || 'none'}, ${o.clients} clients, seed ${seed}; history in ${join(dir, 'history.jsonl')}`);
  const leads = o.shard ? shardKinds(o.faults, o.shard) : [];
  if (o.shard) o.log(`shard ${shardLabel(o.shard)} (from ${o.shard.from}): this run draws only its share of the plans${leads.length < new Set(o.faults).size ? `, each with a fault of ${leads.join(' or ')} (a kind it never applies is left to the other shards: lockpick merge sums them)` : ''}; merge the shards' run dirs with lockpick merge`);
  const tally = new SearchTally(o.faults, o.property ?? 'both', o.livenessMs, o.shard);
  appendProgress(dir, 'search', tally.coverage, { runs: 0, violations: 0, ops: 0 });   // started: `lockpick serve` shows it from now
  const record: SearchRecord = { o, dir, id, t0, seed, test, tally };
  let interrupted = false;
  const onInterrupt = (reason: string): Promise<Interrupted> => {
    interrupted = true;
    return storeInterruptedSearch(record, reason);
  };
  return withSession({
    recipe: o.recipe, lock: o.lock, historyPath: join(dir, 'history.jsonl'), lockOptions: o.lockOptions, property: o.property, livenessMs: o.livenessMs,
    env: o.env, keyPrefix: keyNamespace(o.env, o.keyPrefix, id),
  }, o.interrupts ?? {}, async (session) => {
    const { activeFaults, kindDef } = await import('../../nemesis/index.ts');
    for (const line of session.timescales.said) o.log(`timescales read at start: ${line}`);
    const lease = leaseFloor(o.ttlMs, o.ttlFixed === true, session.timescales);
    if (lease.said) o.log(lease.said);
    const progress = new Progress(o.progress, () => session.nemesisContexts().reduce((n, c) => n + activeFaults(c).length, 0), o.onProgress);
    const points = o.pausePoints ?? defaultPausePoints(o.recipe.points ?? [], topo.name, proxyFraming(o.recipe, topo.name) !== undefined);
    let res: SearchResult;
    let runsDone = 0;
    let learned: LearnedPoints | undefined;
    const design = lockDesign(o.recipe, lease.ttlMs, o.lockOptions);
    try {
      // Points learned, not guessed (src/workload/points.ts): anchored faults land only where the lock's clients go.
      // undefined renew: the recipe does not say (a user lock); the calibration run finds out.
      const drawn = await pointsToDraw({
        learnedPoints: o.learnedPoints, faults: o.faults, ttlMs: lease.ttlMs, renew: o.recipe.renews,
        reentrant: o.recipe.model === 'reentrant-mutex', sessionMs: o.recipe.sessionMs?.(o.lockOptions), ioWhy: ioPointsWhy(o.recipe, topo.name),
      }, (plan) => session.runOnce(plan), points, o.log);
      learned = drawn.learned;
      if (learned) {
        test.points_learned = { ...learned, from: o.learnedPoints ? 'points-from' : 'calibration' };
        writeJson(join(dir, 'test.json'), test);
      }
      const { known, ...plans } = planSource(withLearned(workloadOptions(o, session, lease.ttlMs, points, drawn.renew), learned), seed, o.shard, o.coverageGuided !== false);
      tally.knownCells(known);
      res = await search({
        ...plans, runs: o.runs, timeMs: o.timeS * 1000, shrinkTimeMs: o.shrinkTimeS * 1000,
        runOnce: (plan, lane) => session.runOnce(plan, lane),
        parallel: o.parallel, concurrent: (plan) => plan.faults.every((f) => kindDef(f.kind)?.scope === 'client'),
        keepGoing: o.keepGoing, stopAtFirst: o.firstFailure,
        classify: (out) => classifyRun(out, design),
        // The first failure found is stored below in counterexample/; the others as found (counterexample-N), each replayable on its own.
        onFailure: async (f, n) => {
          if (n === 1) { tally.stored.push({ f, cdir: join(dir, 'counterexample') }); return; }
          const name = `counterexample-${n}`;
          const cdir = await writeCounterexample(dir, f.minimal, { lock: lockLabel(o.lock), seed, path: f.path, plan: describePlan(f.minimal.plan) }, name, o.lang);
          writeJson(join(cdir, 'test.json'), { ...test, plan: f.minimal.plan, counterexample: { seed, path: f.path, run: f.minimal.run, class: f.name } });
          tally.stored.push({ f, cdir });
        },
        onRun: (out, phase) => {
          tally.onRun(out, phase);
          runsDone++;
          appendProgress(dir, phase === 'search' ? 'search' : 'shrink', tally.coverage, { runs: runsDone, violations: tally.lockViolations, ops: tally.ops });
          progress.run(out.ops, out.verdict === false, phase, out.verdict === 'unknown' ? out.inconclusive[0] ?? '' : out.problems[0] ?? '');
        },
      });
    } catch (e) {
      // Interrupted: the session is closing under the run in flight; onInterrupt stored the results.
      if (interrupted) return await new Promise<never>(() => {});
      // A run that could not go on (broken lock contract, history not written): keep the record if the disk still takes it.
      try {
        writeJson(join(dir, 'results.json'), { verdict: 'unknown', error: (e as Error).message, ...tally.totals(), runs: tally.coverage.runs, seed });
      } catch { /* the error thrown says why the run stopped; a full disk takes no results.json either */ }
      throw e;
    } finally {
      progress.done();
    }
    // Interrupted after a violation: the search kept it and returned (search.ts stoppedBy), but the
    // interrupt stores what was found and ends the run; storing here too would race it.
    if (interrupted) return await new Promise<never>(() => {});
    return storeSearch(record, res, learned);
  }, onInterrupt);
}

/** test.json of a search, before it runs (the plan and the learned points are added as they come). */
function searchTestJson(o: RunOptions, seed: number): Record<string, unknown> {
  const topo = topologyOf(o.recipe);
  return {
    lock: lockLabel(o.lock), ...storedLock(o.lock), model: lockModel(o.recipe), fencing: o.recipe.fencing,
    topology: { name: topo.name, ...topo.opts }, faults: o.faults, pause_points: o.pausePoints ?? null, property: o.property ?? 'both', liveness_ms: o.livenessMs ?? null, clients: o.clients, ttl_ms: o.ttlMs, keys: o.keys,
    time_s: o.timeS, runs: o.runs, parallel: o.parallel ?? 1, keep_going: o.keepGoing === true, first_failure: o.firstFailure === true, shrink_time_s: o.shrinkTimeS, seed, lock_options: o.lockOptions ?? {},
    versions: versions(serverPackages(o.recipe, o.env)), started: new Date().toISOString(), plan: null, ...envJson(o.env, o.keyPrefix),
    ...(o.shard ? { shard: o.shard } : {}),
    ...(o.minCoverage !== undefined ? { min_coverage: o.minCoverage } : {}), ...(o.coverageGuided === false ? { coverage_guided: false } : {}),
  };
}

/** Why a lock's operations may reach no I/O point: where its requests are counted, or why they cannot be. */
function ioPointsWhy(recipe: RunOptions['recipe'], topology: string): string {
  if (sendsSeenInProcess(recipe, topology)) return "the lock's I/O is not on Node's sockets (a native library, or a program it runs)";
  const framing = proxyFraming(recipe, topology);
  return framing
    ? `the fault proxy counts ${framing} requests on the clients' links and saw none (a client speaking another protocol to these servers, such as an HTTP/1.1 or JSON gateway, has no I/O points)`
    : `its requests leave another process, and the ${topology} topology declares no protocol for the fault proxy to count them by`;
}
