// The last step of a search: store and say what it found (UNSAFE with its counterexamples,
// SAFE with what was tested, or INCONCLUSIVE with the gaps), or, on an interrupt, what it had
// found so far. Writes test.json's plan, counterexample/, results.json and junit.xml.
import { join } from 'node:path';
import type { Verdict } from '../../checkers/types.ts';
import { describePlan, planOps } from '../workload/plan.ts';
import type { LearnedPoints } from '../workload/points.ts';
import { shardLabel } from '../workload/shard.ts';
import { lockLabel } from './lock-spec.ts';
import { describeThroughput, throughput } from './progress.ts';
import type { SearchResult } from './search.ts';
import { describeCoverage, gaps } from './coverage.ts';
import { cellGap, cellStats, describeCells } from './fault-cells.ts';
import { writeOutput } from '../output.ts';
import { outcomeProperties } from '../report/outcomes.ts';
import { clientLogs, clientOutputNote } from './client-logs.ts';
import { writeJson } from './store.ts';
import { describeOutcome, finish, shownRun, writeCounterexample, writeJUnit } from './run-files.ts';
import { describeFailure, describeLiveness, failureJson, outcomeJson, type RunSummary, type SummaryDraft } from './summary.ts';
import type { Interrupted } from './with-session.ts';
import type { SearchTally } from './search-tally.ts';
import type { RunOptions } from './run-options.ts';
import { SHRINK_HOLD } from './shrink.ts';

/** A search's run directory and what it holds: the options, the run id and seed, test.json as written, and the tally. */
export interface SearchRecord {
  o: RunOptions;
  dir: string;
  id: string;
  t0: number;
  seed: number;
  test: Record<string, unknown>;
  tally: SearchTally;
}

function junitBase(r: SearchRecord) {
  const cells = r.tally.cells;
  const s = cells && cellStats(cells);
  return {
    lock: lockLabel(r.o.lock), property: r.tally.property, faults: r.o.faults, replayCommand: `lockpick run --replay ${r.dir}`,
    properties: { run: r.id, seed: r.seed, ...outcomeProperties(r.tally.coverage.outcomes), ...(s ? { coverage: `${s.hit} of ${s.known} cells (${s.percent} %)` } : {}), ...(r.o.minCoverage !== undefined ? { min_coverage: r.o.minCoverage } : {}) },
    ...(cells ? { coverageLine: describeCells(cells) } : {}),
  };
}

/** The coverage line, and the grid in coverage.html (every search, whatever its verdict: one without a counterexample has no timeline). */
async function sayCells(r: SearchRecord): Promise<void> {
  const cells = r.tally.cells;
  if (!cells) return;
  r.o.log(describeCells(cells));
  if (cells.known.length === 0 && Object.keys(cells.hits).length === 0) return;
  try {
    const { renderCellsHtml } = await import('../report/cells-html.ts');
    const path = join(r.dir, 'coverage.html');
    writeOutput(path, renderCellsHtml(cells, `${lockLabel(r.o.lock)} · ${r.o.faults.join(',')} · run ${r.id}`));
    r.o.log(`coverage grid: ${path}`);
  } catch (e) {
    r.o.log(`coverage grid not written: ${(e as Error).message}`);
  }
}

/** An interrupt: what was found so far is stored and said, with the reason; a violation already seen stays one. */
export async function storeInterruptedSearch(r: SearchRecord, reason: string): Promise<Interrupted> {
  const { o, dir, t0, seed, tally } = r;
  const { coverage, firstSeen, stored } = tally;
  const verdict: Verdict = firstSeen ? false : 'unknown';
  const gapsNow = firstSeen ? [] : [`${reason} after ${coverage.runs} run(s): no verdict`];
  const results: Interrupted = {
    verdict, interrupted: true, reason, gaps: gapsNow, ...tally.totals(), runs: coverage.runs, seed, first: firstSeen ? outcomeJson(firstSeen) : null,
    ...(o.keepGoing || stored.length ? { failures: tally.failuresJson() } : {}), client_logs: clientLogs(dir), dir,
  };
  writeJson(join(dir, 'results.json'), results);
  if (firstSeen) await writeCounterexample(dir, firstSeen, { lock: lockLabel(o.lock), seed, plan: describePlan(firstSeen.plan) }, undefined, o.lang);
  writeJUnit(dir, [o.junitPath, firstSeen ? join(dir, 'counterexample', 'junit.xml') : undefined], {
    ...junitBase(r), verdict, interrupted: true, elapsedMs: Date.now() - t0, gaps: gapsNow, tested: describeCoverage(coverage),
    ...shownRun(firstSeen, firstSeen ? join(dir, 'counterexample') : undefined),
  });
  o.log(`\nINTERRUPTED (${reason}) after ${coverage.runs} run(s): ${firstSeen ? `UNSAFE: a violation was found in the history's run ${firstSeen.run} (keys r${firstSeen.run}-…; the history counts the calibration run too), not shrunk; its history is in ${join(dir, 'counterexample')}` : 'no violation so far; no verdict'}.`);
  if (firstSeen) o.log(await describeOutcome(firstSeen, join(dir, 'counterexample', 'history.jsonl')));
  if (stored.length && (o.keepGoing || stored.length > 1)) {
    o.log(`\ndistinct failures so far: ${stored.length} (the first as found above, the others shrunk)`);
    tally.failuresJson().forEach((j, i) => o.log(describeFailure(j, i + 1)));
  }
  await sayCells(r);
  const output = clientOutputNote(dir);
  if (output) o.log(output);
  o.log(`results: ${join(dir, 'results.json')}`);
  return results;
}

/** The search is done: its verdict, stored and said; `learned`: the points it drew from (for "the same search again"). */
export async function storeSearch(r: SearchRecord, res: SearchResult, learned: LearnedPoints | undefined): Promise<RunSummary> {
  const { o, dir, id, t0, seed, test, tally } = r;
  const { coverage, stored, ops, lockViolations, liveness, resource } = tally;
  const replay = `lockpick run --replay ${dir}`;
  // --min-coverage: a SAFE below that share of the fault cells known is not a promise either.
  const short = res.minimal ? undefined : cellGap(tally.cells, o.minCoverage);
  const missing = res.minimal ? [] : [...gaps(coverage), ...(short ? [short] : [])];
  const speed = throughput({ runs: res.runs, inconclusive: res.inconclusive, schedules: res.schedules, searchMs: res.searchMs, parallel: res.parallel });
  const summary: SummaryDraft = {
    verdict: res.minimal ? false : missing.length === 0 ? true : 'unknown',
    exitCode: res.minimal ? 1 : missing.length === 0 ? 0 : 3,
    dir, runId: id, seed: res.seed, path: res.path, runs: res.runs, shrinkRuns: res.shrinkRuns, inconclusive: res.inconclusive, throughput: speed,
    firstAfterMs: res.firstAfterMs, ops, lockViolations, liveness, resource, replay, coverage, gaps: missing,
    firstAnomalies: res.first ? [...res.first.check.anomalies, ...res.first.resource.anomalies] : undefined,
    elapsedMs: 0, junit: join(dir, 'junit.xml'),
    failures: [],
    ...(res.stoppedBy !== undefined ? { stoppedBy: res.stoppedBy } : {}),
  };
  /** Why the runs that gave no verdict gave none, the most frequent first (a SAFE search may have some too). */
  const sayInconclusiveRuns = () => {
    const reasons = Object.entries(coverage.inconclusiveReasons).sort((a, b) => b[1] - a[1]).slice(0, 3);
    if (reasons.length) o.log(`inconclusive runs, most often:\n${reasons.map(([r, n]) => `  ${n} run(s): ${r}`).join('\n')}`);
  };
  let cdir: string | undefined;
  if (res.minimal) {
    const m = res.minimal;
    // The failure shown first (a bug before an inherent failure) and where each is stored (counterexample/ for the first found).
    const shown = res.failures.map((f) => stored.find((x) => x.f === f) ?? { f, cdir: join(dir, 'counterexample') });
    summary.minimal = { plan: m.plan, ops: m.ops, faults: m.plan.faults.length, anomalies: [...m.check.anomalies, ...m.resource.anomalies], resource: m.resource, confirmed: res.minimalConfirmed };
    test.plan = m.plan;
    test.counterexample = { seed: res.seed, path: res.path, run: m.run };
    writeJson(join(dir, 'test.json'), test);
    const firstFound = stored[0]?.f ?? res.failures[0]!;
    const firstDir = await writeCounterexample(dir, firstFound.minimal, { lock: lockLabel(o.lock), seed: res.seed, path: firstFound.path, plan: describePlan(firstFound.minimal.plan) }, undefined, o.lang);
    // Shown after a bug found later, it replays from its own dir as counterexample-N do (the run dir replays the bug).
    if (firstFound !== res.failures[0]) writeJson(join(firstDir, 'test.json'), { ...test, plan: firstFound.minimal.plan, counterexample: { seed: res.seed, path: firstFound.path, run: firstFound.minimal.run, class: firstFound.name } });
    cdir = shown[0]!.cdir;
    const firstS = ((res.firstAfterMs ?? 0) / 1000).toFixed(1);
    o.log(o.keepGoing
      ? `\nUNSAFE: ${lockLabel(o.lock)} broke first after ${firstS} s of search (--keep-going: ${res.runs} search run(s), ${res.shrinkRuns} shrinking run(s) in all)${res.shrinkInterrupted ? '; its shrink time ran out' : ''}.`
      : `\nUNSAFE: ${lockLabel(o.lock)} broke in search run ${res.firstRun ?? '?'} (${firstS} s of search; ${res.runs} search run(s) in all), shrunk in ${res.shrinkRuns} more run(s)${res.shrinkInterrupted ? ' (shrink time ran out)' : ''}.` +
        // The failure shown first (a bug of the lock) may have come after that one (one inherent to its design).
        (res.failures[0] !== firstFound ? ` The failure below, shown first, came after ${(res.failures[0]!.afterMs / 1000).toFixed(1)} s.` : ''));
    if (res.stoppedBy !== undefined) o.log(`the search stopped on an error after it found this (no more runs; the failure as far as it was shrunk): ${res.stoppedBy}`);
    const head = res.failures[0]!;
    if (head.words) o.log(`${head.words}${res.failures.length > 1 ? ` (and ${res.failures.length - 1} more failure(s) below)` : ''}`);
    if (!o.keepGoing && res.failures.length === 1 && head.nature === 'inherent') {
      o.log(o.firstFailure ? `--first-failure: the search stopped at this failure, inherent to the lock's design; search on without it for a bug of this implementation`
        : `no bug of this implementation found beyond it in ${(res.searchMs / 1000).toFixed(1)} s of search (${inherentRuns(res) - 1} more run(s) broke it only in ways inherent to its design)`);
    }
    o.log(`\nMinimal schedule (${planOps(m.plan)} operations at most, ${m.ops} done; ${m.plan.faults.length} fault(s); ${res.minimalConfirmed ? `${m.check.valid === true ? 'failed' : 'broke the lock'} ${SHRINK_HOLD} of ${SHRINK_HOLD} times` : res.failures[0]!.stoppedBy !== undefined ? 'no confirmation run: the search stopped on an error; replay with --runs 5' : 'not seen again on a confirmation run: timing-sensitive, replay with --runs 5'}):\n${describePlan(m.plan)}`);
    o.log(`\n${await describeOutcome(m, join(cdir, 'history.jsonl'))}`);
    o.log(`\nsearch: ${describeCoverage(coverage)}`);
    await sayCells(r);
    o.log(describeThroughput(speed));
    sayInconclusiveRuns();
    o.log(describeLiveness(liveness));
    o.log(`fast-check seed ${res.seed}, path "${res.path ?? ''}"${learned ? `; the same search again: ${o.shard ? `--seed ${seed} --shard ${shardLabel(o.shard)}` : `--seed ${res.seed}`} --points-from ${dir}` : ''}`);
    o.log(`timeline: ${join(cdir, 'timeline.html')}`);
    o.log(`replay:   ${replay}`);
    summary.failures = shown.map((x) => failureJson(x.f, x.cdir));
    if (o.keepGoing || summary.failures.length > 1) {
      o.log(`\n${o.keepGoing ? 'distinct failures' : 'failures'}: ${summary.failures.length} (${o.keepGoing ? '--keep-going, ' : 'one of each nature, '}${(res.searchMs / 1000).toFixed(1)} s of search; bugs of this lock first; each replays with lockpick run --replay DIR)`);
      summary.failures.forEach((j, i) => o.log(describeFailure(j, i + 1)));
    }
  } else if (summary.exitCode === 0) {
    o.log(`\nSAFE so far${o.property && o.property !== 'both' ? ` (property: ${o.property})` : ''}: ${ops} operations, no violation. fast-check seed ${res.seed}${learned ? ` (the same search again: ${o.shard ? `--seed ${seed} --shard ${shardLabel(o.shard)}` : `--seed ${res.seed}`} --points-from ${dir})` : ''}.`);
    o.log(`tested: ${describeCoverage(coverage)}`);
    await sayCells(r);
    o.log(describeThroughput(speed));
    sayInconclusiveRuns();
    o.log(describeLiveness(liveness));
    if (o.property === 'resource') {
      o.log(`the lock itself was broken in ${lockViolations} run(s) (double holders); the resource lost ${resource.lostUpdates} update(s), accepted ${resource.staleWritesAccepted} stale write(s) and rejected ${resource.staleStepsPrevented} stale step(s) by fencing`);
    } else if (o.property === 'lock' && resource.lostUpdates + resource.staleWritesAccepted > 0) {
      // Not judged under --property lock, and not hidden either: the writes a pause held up past a hold.
      o.log(`the resource (not judged under --property lock) lost ${resource.lostUpdates} update(s) and accepted ${resource.staleWritesAccepted} stale write(s): a write held up past its hold, which only fencing stops (--property resource judges it)`);
    }
  } else {
    o.log(`\nINCONCLUSIVE: no violation, but no safety promise either:`);
    for (const g of missing) o.log(`  - ${g}`);
    o.log(`tested: ${describeCoverage(coverage)}`);
    await sayCells(r);
    o.log(describeThroughput(speed));
    o.log(describeLiveness(liveness));
    sayInconclusiveRuns();
  }
  return finish(dir, o, t0, summary, {
    ...junitBase(r), tested: describeCoverage(coverage), ...shownRun(res.minimal, cdir), confirmed: res.minimal ? res.minimalConfirmed : undefined,
    failures: (summary.failures ?? []).map((j, i) => ({ ...j, ...shownRun(res.failures[i]!.minimal, j.counterexample), replayCommand: i === 0 ? replay : `lockpick run --replay ${j.counterexample}` })),
  }, [o.junitPath, cdir && join(cdir, 'junit.xml')], {
    ...tally.totals(), gaps: missing, runs: res.runs, shrink_runs: res.shrinkRuns, inconclusive: res.inconclusive, throughput: speed,
    first_violation_after_ms: res.firstAfterMs ?? null, seed: res.seed, path: res.path ?? null,
    first: res.first ? outcomeJson(res.first) : null, minimal: res.minimal ? outcomeJson(res.minimal) : null,
    failures: summary.failures, inherent_runs: inherentRuns(res), client_logs: clientLogs(dir),
    ...(res.stoppedBy !== undefined ? { stopped_by: res.stoppedBy } : {}),
  });
}

/** Search runs that broke the lock only in ways inherent to its design: those of each inherent failure, and those counted without shrinking. */
function inherentRuns(res: SearchResult): number {
  return res.failures.filter((f) => f.nature === 'inherent').reduce((n, f) => n + f.runs, 0) + res.inherentRuns;
}
