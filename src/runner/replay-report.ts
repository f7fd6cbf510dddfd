// The last step of a replay: store and say what the stored plan did when run again
// (REPRODUCED, NOT REPRODUCED, or no violation, with the gaps), or, on an interrupt, the
// runs done so far. Writes counterexample/, results.json and junit.xml.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Verdict } from '../../checkers/types.ts';
import { describePlan, type RunPlan } from '../workload/plan.ts';
import type { LockSpec } from './protocol.ts';
import { throughput } from './progress.ts';
import { clientLogs, clientOutputNote } from './client-logs.ts';
import type { RunOutcome } from './session.ts';
import { wantsLiveness, type Property } from './run-options.ts';
import { writeJson } from './store.ts';
import { lockLabel } from './lock-spec.ts';
import { addRun, reasonWords, describeCoverage, emptyCoverage, gaps, type Coverage } from './coverage.ts';
import { describeOutcome, finish, shownRun, writeCounterexample, writeJUnit } from './run-files.ts';
import { addLiveness, outcomeJson, type LivenessTotals, type RunSummary, type SummaryDraft } from './summary.ts';
import type { Interrupted } from './with-session.ts';
import type { ReplayOptions } from './run-options.ts';
import { getOwn, setOwn } from '../own-key.ts';

/** What the replay's runs did so far: `n` runs done without a violation (the breaking one is run n + 1), the last outcome, operations, coverage, liveness. */
export class ReplayTally {
  n = 0;
  ops = 0;
  last: RunOutcome | undefined;
  /** The last run that broke the lock (the counterexample a measuring replay keeps). */
  lastBroken: RunOutcome | undefined;
  /** Per run: reproduced (broke the lock), inconclusive, or clean (a conclusive run without a violation); `reasons`: why the others did not break it (an order anchor missed, else why no verdict), counted. */
  readonly rate = { reproduced: 0, inconclusive: 0, clean: 0, reasons: {} as Record<string, number> };
  readonly coverage: Coverage;
  readonly liveness: LivenessTotals;

  constructor(plan: RunPlan, property: Property, livenessMs: number | undefined) {
    this.coverage = emptyCoverage([...new Set(plan.faults.map((f) => f.kind))]);
    this.liveness = { checked: wantsLiveness(property), violations: 0, longest_unavailable_ms: 0, bound_ms: livenessMs ?? null };
  }

  onRun(out: RunOutcome): void {
    this.last = out;
    if (out.verdict === false) { this.lastBroken = out; this.rate.reproduced++; }
    else {
      if (out.verdict === 'unknown') this.rate.inconclusive++; else this.rate.clean++;
      // Why it did not break the lock: the order anchor it missed first (the stored schedule's order did not hold), else why it had no verdict.
      const missed = out.orderMissed?.[0];
      const why = missed ? `missed: ${missed}` : out.verdict === 'unknown' ? reasonWords(out.inconclusive[0] ?? 'no verdict') : undefined;
      if (why) setOwn(this.rate.reasons, why.slice(0, 200), (getOwn(this.rate.reasons, why.slice(0, 200)) ?? 0) + 1);
    }
    addLiveness(this.liveness, out);
    this.ops += out.ops;
    addRun(this.coverage, out);
  }
}

/** A replay's run directory and what it holds. */
export interface ReplayRecord {
  o: ReplayOptions;
  dir: string;
  id: string;
  t0: number;
  plan: RunPlan;
  spec: LockSpec;
  property: Property;
  tally: ReplayTally;
  /** The stored plan's I/O points moved to what this lock has (./replay-retarget.ts), said before the runs. */
  moved?: boolean;
}

/** An interrupt: the runs done so far are stored with the reason (a violation already seen stays one); the history keeps every event. */
export async function storeInterruptedReplay(r: ReplayRecord, reason: string): Promise<Interrupted> {
  const { o, dir, id, t0, plan, spec, property } = r;
  const { last, ops, coverage, liveness } = r.tally;
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
    lock: lockLabel(spec), property, faults: [...new Set(plan.faults.map((f) => f.kind))], replay: true, replayCommand: `lockpick run --replay ${o.dir}`,
    verdict, interrupted: true, elapsedMs: Date.now() - t0, gaps: missing, tested: describeCoverage(coverage),
    anomalies: unsafe && last ? [...last.check.anomalies, ...last.resource.anomalies] : [], resource: unsafe ? last?.resource : undefined,
    plan: describePlan(plan), properties: { run: id, replay_of: o.dir },
  });
  o.log(`\nINTERRUPTED (${reason}) after ${coverage.runs} complete run(s) of the stored plan: ${unsafe ? 'UNSAFE: the last one broke the lock' : 'no verdict'}; the history so far: ${join(dir, 'history.jsonl')}`);
  const output = clientOutputNote(dir);
  if (output) o.log(output);
  o.log(`results: ${join(dir, 'results.json')}`);
  return results;
}

/**
 * The replay is done. Not reproduced is only "safe" when the plan's faults took effect and the
 * lock was contended. `ownCounterexample`: the plan is a counterexample of this very lock, so
 * one that did not break again is not reproduced: no verdict (exit 3). A scenario, or another
 * lock (a fix) against the plan, gets the verdict the runs earned.
 */
/** "reproduced 9/10; 1 inconclusive (the partition began after c1's release: 1)": the rate of a measuring replay. */
export function describeRate(rate: ReplayTally['rate']): string {
  const runs = rate.reproduced + rate.inconclusive + rate.clean;
  const reasons = Object.entries(rate.reasons).sort((a, b) => b[1] - a[1]).slice(0, 3).map(([w, k]) => `${w}: ${k}`);
  return `reproduced ${rate.reproduced}/${runs}` + (rate.inconclusive ? `; ${rate.inconclusive} inconclusive` : '') +
    (rate.clean ? `; ${rate.clean} conclusive without a violation (every fault took effect and the lock held)` : '') +
    (reasons.length ? ` (${reasons.join('; ')})` : '');
}

/** The timeline page of the counterexample in `dir` (a counterexample dir, or a run dir's first) shows the rate; none there: nothing to mark. */
async function markTimeline(dir: string, words: string, log: (s: string) => void): Promise<void> {
  const page = [join(dir, 'timeline.html'), join(dir, 'counterexample', 'timeline.html')].find((f) => existsSync(f));
  if (!page) return;
  try {
    const { withReproduction } = await import('../report/html.ts');
    writeFileSync(page, withReproduction(readFileSync(page, 'utf8'), words));
  } catch (e) {
    log(`note: could not show the rate on ${page} (${(e as Error).message})`);
  }
}

/** `soloAnomalies`: the replayed counterexample's anomalies, when one client shows them all alone (no contention asked of the replay). */
export async function storeReplay(r: ReplayRecord, ownCounterexample: boolean, soloAnomalies?: readonly string[]): Promise<RunSummary> {
  const { o, dir, id, t0, plan, spec, property } = r;
  const { ops, coverage, liveness, rate } = r.tally;
  // Measuring: every run was made; the counterexample kept is the last that broke the lock.
  const last = o.measure ? r.tally.lastBroken ?? r.tally.last : r.tally.last;
  const n = o.measure ? rate.clean + rate.inconclusive : r.tally.n;
  const unsafe = last?.verdict === false;
  const reproduction = o.measure ? { runs: coverage.runs, reproduced: rate.reproduced, inconclusive: rate.inconclusive, clean: rate.clean, inconclusive_reasons: rate.reasons, measured: new Date().toISOString(), replay_run: dir } : undefined;
  if (reproduction) {
    o.log(`\n${describeRate(rate)} (--measure, --runs ${o.runs})`);
    // Beside the counterexample it measured, for its report, JUnit and a bug report; a read-only store keeps it in this run's results.json alone.
    try { writeJson(join(o.dir, 'reproduction.json'), reproduction); } catch (e) { o.log(`note: could not write ${join(o.dir, 'reproduction.json')} (${(e as Error).message}); the rate is in ${join(dir, 'results.json')}`); }
  }
  // The counterexample's own timeline page says it too (the replay's page gets it below).
  const rateWords = reproduction ? `${describeRate(rate)}, measured ${reproduction.measured.slice(0, 10)} with lockpick run --replay ${o.dir} --runs ${o.runs} --measure` : undefined;
  if (rateWords) await markTimeline(o.dir, rateWords, o.log);
  const notReproduced = !unsafe && ownCounterexample;
  // Not reproduced: say why the runs missed it (an anchor never reached, a fault that did not take effect), the most frequent first.
  const why = Object.entries(rate.reasons).sort((a, b) => b[1] - a[1])[0];
  const missing = unsafe ? [] : [...gaps(coverage, { contention: !soloAnomalies }), ...(notReproduced ? [`the counterexample did not break the lock again in ${n} run(s) (--runs ${o.runs})${why ? `; most often: ${why[0]} (${why[1]} run(s))` : ''}`] : [])];
  const summary: SummaryDraft = {
    verdict: unsafe ? false : missing.length === 0 ? true : 'unknown', exitCode: unsafe ? 1 : missing.length === 0 ? 0 : 3,
    coverage, gaps: missing,
    dir, runId: id, runs: o.measure ? coverage.runs : Math.min(n + 1, o.runs), shrinkRuns: 0, inconclusive: coverage.runs - coverage.conclusive, ops, replay: `lockpick run --replay ${o.dir}`,
    throughput: throughput({ runs: coverage.runs, inconclusive: coverage.runs - coverage.conclusive, schedules: 1, searchMs: Date.now() - t0 }),
    lockViolations: last?.lockVerdict === false ? 1 : 0, liveness,
    resource: { lostUpdates: last?.resource.lostUpdates ?? 0, staleWritesAccepted: last?.resource.staleWritesAccepted ?? 0, staleStepsPrevented: last?.resource.staleStepsPrevented ?? 0 },
    elapsedMs: 0, junit: join(dir, 'junit.xml'),
  };
  let cdir: string | undefined;
  if (last) {
    cdir = await writeCounterexample(dir, last, { lock: lockLabel(spec), replay_of: o.dir, plan: describePlan(plan) }, undefined, o.lang);
    if (rateWords) await markTimeline(cdir, rateWords, o.log);
    // Another lock than the run's (--lock) breaking on the stored plan has not reproduced the run's failure: it has one of its own.
    const broke = ownCounterexample ? 'REPRODUCED' : 'UNSAFE on the stored plan';
    o.log(unsafe ? (o.measure ? `\n${broke} in ${rate.reproduced} of ${coverage.runs} runs; the last that broke the lock:` : `\n${broke} in run ${summary.runs} of ${o.runs}:`)
      : notReproduced ? `\nNOT REPRODUCED: tried ${n} time(s) (--runs ${o.runs}), no violation; ${why?.[0].startsWith('missed: ') ? 'the stored order of events did not hold (below)' : 'the counterexample is timing-sensitive: try more --runs'} (exit 3):`
        : `\nNo violation in ${n} run(s) of the stored plan${r.moved ? ' (its I/O points moved, above)' : ''}:`);
    o.log(await describeOutcome(last, join(cdir, 'history.jsonl')));
    summary.minimal = { plan, ops: last.ops, faults: plan.faults.length, anomalies: last.check.anomalies, resource: last.resource };
  }
  if (missing.length) o.log(`INCONCLUSIVE:\n${missing.map((g) => `  - ${g}`).join('\n')}`);
  o.log(`tested: ${describeCoverage(coverage)}`);
  if (soloAnomalies && !unsafe && coverage.contended === 0) o.log(`no contention asked of this replay: the counterexample it replays (${soloAnomalies.join(', ')}) shows with one client alone`);
  return finish(dir, o, t0, summary, {
    lock: lockLabel(spec), property, faults: [...new Set(plan.faults.map((f) => f.kind))], replay: true, replayCommand: summary.replay,
    tested: describeCoverage(coverage), ...shownRun(unsafe ? last : undefined, cdir),
    plan: describePlan(plan), properties: { run: id, replay_of: o.dir, ...(reproduction ? { reproduction: `${rate.reproduced}/${coverage.runs}` } : {}) },   // the plan replayed, broken or not
  }, [o.junitPath, unsafe && cdir ? join(cdir, 'junit.xml') : undefined], {
    runs: summary.runs, property, lock_violations: summary.lockViolations, liveness, resource_totals: summary.resource, ops, coverage, gaps: missing,
    last: last ? outcomeJson(last) : null, client_logs: clientLogs(dir), ...(reproduction ? { reproduction } : {}),
  });
}
