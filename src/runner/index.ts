// `lockpick run` without the command line: open a session, search (or replay a
// stored plan), store what happened, and say it in words.
import { join } from 'node:path';
import { existsSync, mkdirSync } from 'node:fs';
import { writeOutput } from '../output.ts';
import type { LockRecipe } from '../locks/lock.ts';
import type { Anomaly, Verdict } from '../../checkers/types.ts';
import type { ResourceResult } from '../../checkers/resource.ts';
import { firstPlans, planArb } from '../workload/arbitraries.ts';
import { proxyFraming } from './proxy-points.ts';
import { defaultPausePoints, describePlan, planOps, validatePlan, type RunPlan } from '../workload/plan.ts';
import type { LockSpec } from './protocol.ts';
import { Progress, describeThroughput, throughput, type ProgressEvent, type ProgressSink, type Throughput } from './progress.ts';
import { search, type Failure, type SearchResult } from './search.ts';
import { classifyRun, lockDesign } from './failure-cause.ts';
import { clientLogs, clientOutputNote } from './client-logs.ts';
import { Session, isLeased, leaseFloor, runHistory, topologyOf, wantsLiveness, type Property, type RunOutcome, type SessionOptions } from './session.ts';
import { newRunDir, readTestJson, runLog, versions, writeEvents, writeJson } from './store.ts';
import { lockFromStored, lockLabel, moduleHash, storedLock } from './lock-spec.ts';
import { claimSignals } from '../env/lifecycle.ts';
import { envJson, envFromTest, keyNamespace } from './env-spec.ts';
import type { EnvSpec } from '../env/env-kinds.ts';
import { addRun, describeCoverage, emptyCoverage, gaps, type Coverage } from './coverage.ts';
import { renderRunJUnit, type RunJUnit } from '../report/junit.ts';
import { checkPackages } from '../optional.ts';
import { UsageError } from '../errors.ts';
import { calibrate } from './calibrate.ts';
import type { LearnedPoints } from '../workload/points.ts';
import { shardFilter, shardFirstPlans, shardKinds, shardLabel, shardSeed, type Shard } from '../workload/shard.ts';

export interface RunOptions {
  lock: LockSpec;
  recipe: LockRecipe;
  faults: string[];
  clients: number;
  timeS: number;
  runs: number;
  shrinkTimeS: number;
  seed?: number;
  ttlMs: number;
  /** The user chose ttlMs (--ttl): plans aimed at a topology's failure keep it instead of the timescale they need. */
  ttlFixed?: boolean;
  keys: number;
  /** Workload shape: lock attempts per client, fault groups per run, at most (defaults 3 and 2). */
  maxAttempts?: number;
  maxFaults?: number;
  /** Every kill keeps its server down at least this long (--restart-delay). */
  restartDelayMs?: number;
  /** Named points client pauses may land at (default: 'in-critical-section' and the recipe's own). */
  pausePoints?: string[];
  /** The points to draw from, as an earlier search learned them (--points-from): no calibration run, so its seed draws its plans. */
  learnedPoints?: LearnedPoints;
  storeRoot: string;
  lockOptions?: Record<string, unknown>;
  property?: Property;
  /** The liveness bound (ms); default 2 × TTL (+ the session timeout of a session lock). */
  livenessMs?: number;
  log(line: string): void;  // where the human report goes
  /** Where progress lines go (the CLI: process.stderr, unless --json); none when absent. */
  progress?: ProgressSink;
  onProgress?(e: ProgressEvent): void;
  /** Also write the run's JUnit XML here (--junit PATH); store/<lock>/<run-id>/junit.xml is always written. */
  junitPath?: string;
  /** How an interrupt ends the run: see Interrupts. */
  interrupts?: Interrupts;
  /** The environment kind and its servers (default local); stored in test.json for --replay. */
  env?: EnvSpec;
  /** Lock and resource keys start with this, then the run id (default 'lockpick:' on an external environment, none locally). */
  keyPrefix?: string;
  /** At most this many search runs at once, for plans whose faults all touch their own clients only (--parallel; default 1). */
  parallel?: number;
  /** After a violation, search on until timeS is spent and report every distinct failure (--keep-going). */
  keepGoing?: boolean;
  /** Stop at the first failure, even one inherent to the design (--first-failure). */
  firstFailure?: boolean;
  /** This run is shard I of N of one search (--shard): a disjoint part of the plans (src/workload/shard.ts). */
  shard?: Shard;
}

/**
 * The CLI sets `exitOnSignal`: SIGINT/SIGTERM/SIGHUP store what was found (results.json
 * with `interrupted` and the reason) and exit 130 for Ctrl-C, else 1 when a violation was
 * seen, 3 otherwise (the environment's own signal handler stands aside meanwhile). The library API
 * never does; it passes `signal`: an abort stores what was found, stops the servers,
 * then rejects with the signal's reason (an AbortError unless the caller gave one).
 */
export interface Interrupts {
  exitOnSignal?: boolean;
  signal?: AbortSignal;
  /** --json: a signal's exit prints what was stored (results.json's content) on stdout too. */
  json?: boolean;
}

/** The smallest failing run: its plan, what it did, and what the checkers found (lock anomalies first, then the resource's). */
export interface MinimalCounterexample {
  plan: RunPlan;
  /** Operations done in that run. */
  ops: number;
  faults: number;
  anomalies: Anomaly[];
  resource: ResourceResult;
  /** Broke the lock again on a confirmation run (absent on a replay). */
  confirmed?: boolean;
}

/** What every summary has, whatever the verdict (RunSummary adds the verdict). */
export interface RunSummaryFields {
  dir: string;
  runId: string;
  seed?: number;
  path?: string;
  runs: number;
  shrinkRuns: number;
  inconclusive: number;
  /** Search runs, conclusive and not, distinct schedules, search time and runs per minute of it (not shrinking). */
  throughput: Throughput;
  firstAfterMs?: number;
  ops: number;
  lockViolations: number;       // runs whose lock history was invalid
  /** Measured on every run, whatever the property: runs with a liveness violation, the longest unavailability seen. */
  liveness: LivenessTotals;
  firstAnomalies?: Anomaly[];   // of the first violating run (before shrinking)
  resource: { lostUpdates: number; staleWritesAccepted: number; staleStepsPrevented: number };
  /** The shrunk counterexample (UNSAFE); on a replay that did not break, its last run. */
  minimal?: MinimalCounterexample;
  replay: string;
  coverage: Coverage;
  /** Why no SAFE verdict could be given (exit 3); empty otherwise. */
  gaps: string[];
  /** Wall time of the whole run (search, shrink, reports), ms. */
  elapsedMs: number;
  /** store/<lock>/<run-id>/junit.xml (the same text also at --junit PATH when given). */
  junit: string;
  /** Every distinct failure found (one without keepGoing; none when SAFE), the first being `minimal`; absent on a replay. */
  failures?: FailureJson[];
}

/**
 * `lockpick run --json`, runLockTest and a replay resolve with this: a union on the
 * verdict, so `assert.equal(result.verdict, false)` (or `exitCode === 1`) leaves
 * `result.minimal` defined: an UNSAFE verdict always carries its counterexample.
 */
export type RunSummary = RunSummaryFields & (
  | { verdict: false; exitCode: 1; minimal: MinimalCounterexample }
  | { verdict: true; exitCode: 0 }
  | { verdict: 'unknown'; exitCode: 3 }
);

/** A summary being filled in; `done` checks the union's promise (verdict false ⇔ exit 1 ⇔ a counterexample). */
type SummaryDraft = RunSummaryFields & { verdict: Verdict; exitCode: 0 | 1 | 3 };
function done(s: SummaryDraft): RunSummary {
  const want = s.verdict === false ? 1 : s.verdict === true ? 0 : 3;
  if (s.exitCode !== want || (s.verdict === false && !s.minimal)) throw new Error(`lockpick: a summary with verdict ${String(s.verdict)} and exit code ${s.exitCode}${s.minimal ? '' : ', no counterexample'}`);
  return s as RunSummary;
}

/** A distinct failure as --json and results.json say it; its counterexample dir replays with `lockpick run --replay DIR`. */
export interface FailureJson {
  /** Its class by cause (stable: "bug: stale-release · stale-release · client-pause@release"). */
  class: string;
  /** bug: of this implementation; inherent: to the lock's design; unknown: not classified. */
  nature: 'bug' | 'inherent' | 'unknown';
  /** The class in words ("a bug in this lock: its release freed another client's lock (…)"). */
  cause: string;
  kinds: string[]; anomalies: string[]; after_ms: number; runs: number;
  ops: number; faults: number; counterexample: string; confirmed: boolean;
}

function failureJson(f: Failure, cdir: string): FailureJson {
  return {
    class: f.name, nature: f.nature ?? 'unknown', cause: f.words ?? `not classified: ${f.name}`, kinds: f.kinds, anomalies: f.anomalies, after_ms: f.afterMs, runs: f.runs,
    ops: planOps(f.minimal.plan), faults: f.minimal.plan.faults.length, counterexample: cdir, confirmed: f.confirmed,
  };
}

function describeFailure(j: FailureJson, n: number): string {
  return `  ${n}. ${j.cause}\n     after ${(j.after_ms / 1000).toFixed(1)} s of search; ${j.anomalies.join(', ')} under ${j.kinds.join(', ') || 'no fault'}; shrunk to ${j.ops} ops / ${j.faults} fault(s)`
    + `${j.confirmed ? '' : ' (not seen again on a confirmation run)'}; ${j.runs} violating run(s); ${j.counterexample}`;
}

export interface LivenessTotals {
  checked: boolean;              // the property asks for liveness (its violations make the run unsafe)
  violations: number;            // runs with a liveness violation
  longest_unavailable_ms: number;
  bound_ms: number | null;       // --liveness-ms, else 2 × TTL (+ the session timeout); null before any run
}

function addLiveness(t: LivenessTotals, o: RunOutcome): void {
  if (!o.liveness) return;
  t.bound_ms = o.liveness.bound_ms;
  if (o.liveness.violations.length) t.violations++;
  t.longest_unavailable_ms = Math.max(t.longest_unavailable_ms, o.liveness.longest_unavailable_ms);
}

function describeLiveness(t: LivenessTotals): string {
  return `liveness${t.checked ? '' : ' (measured, not part of --property)'}: ${t.violations} run(s) with a lock unavailable past the bound`
    + ` (${t.bound_ms === null ? 'none measured' : `${t.bound_ms} ms`}); longest unavailable ${t.longest_unavailable_ms} ms`;
}

function outcomeJson(o: RunOutcome) {
  return {
    run: o.run, verdict: o.verdict, check: o.check, resource: o.resource, problems: o.problems, inconclusive: o.inconclusive,
    faults: o.faults, stats: o.stats, liveness: o.liveness, elapsed_ms: Math.round(o.elapsedMs),
  };
}

/** The run's log and progress, also written to DIR/lockpick.log (the progress lines a terminal redraws in place are left out). */
function logged(dir: string, o: { log(line: string): void; progress?: ProgressSink }): { log(line: string): void; progress?: ProgressSink } {
  const append = runLog(dir);
  const progress = o.progress;
  return {
    log: (line) => { append(`${line}\n`); o.log(line); },
    progress: progress && {
      isTTY: progress.isTTY,
      write: (text: string) => { if (text.endsWith('\n')) append(text.replace(/\r\x1b\[K/g, '')); return progress.write(text); },
    },
  };
}

/** Writes counterexample/ (or NAME/): that run's history and the timeline (when the renderer loads); the JUnit file is the run's (writeJUnit). */
async function writeCounterexample(dir: string, o: RunOutcome, meta: Record<string, unknown>, name = 'counterexample'): Promise<string> {
  const cdir = join(dir, name);
  mkdirSync(cdir, { recursive: true });
  const hpath = join(cdir, 'history.jsonl');
  writeEvents(hpath, o.events);
  let html: string;
  try {
    // Drawn from the run's history in memory (the file just written holds the same events, line for line).
    const h = o.history ?? runHistory(o.events);
    const { renderTimelineHtml } = await import('../report/html.ts');
    html = renderTimelineHtml({ ...h.parsed, source: hpath }, o.check, meta, { clients: h.clients, resource: o.resource, resourceEntries: o.resourceEntries });
  } catch (e) {
    writeOutput(join(cdir, 'report-error.txt'), `${(e as Error).stack ?? e}\n`);
    return cdir;
  }
  writeOutput(join(cdir, 'timeline.html'), html);
  return cdir;
}

async function describeOutcome(o: RunOutcome, file: string): Promise<string> {
  const lines: string[] = [];
  try {
    const { formatResult } = await import('../report/text.ts');
    // In the user's terms: clients, and the fault that made each anomaly possible (src/report/cause.ts).
    const { explainAnomalies } = await import('../report/cause.ts');
    const h = o.history ?? runHistory(o.events);
    lines.push(formatResult(file, o.check, { clients: h.clients, causes: explainAnomalies(h.parsed, o.check.anomalies, h.clients) }));
  } catch {
    lines.push(`${file}: valid=${String(o.check.valid)}`);
    for (const a of o.check.anomalies) lines.push(`  ${a.type}: ${a.message}`);
  }
  // Asked-for liveness violations are among check.anomalies (formatResult says them); otherwise a note.
  if (o.liveness && !o.liveness.checked && o.liveness.violations.length) {
    lines.push(`liveness (not part of --property): ${o.liveness.violations.length} violation(s), e.g. ${o.liveness.violations[0]!.message}`);
  }
  lines.push(o.resource.message);
  for (const a of o.resource.anomalies.slice(0, 5)) lines.push(`  ${a.type} on "${a.key}": ${a.message}`);
  if (o.resource.anomalies.length > 5) lines.push(`  … and ${o.resource.anomalies.length - 5} more`);
  return lines.join('\n');
}

/** process.exit once stdout and stderr took what was written (a pipe would lose the last lines). */
function exitFlushed(code: number): void {
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}

/** What an aborted library run rejects with: the signal's own reason, else an AbortError. */
export function abortReason(signal: AbortSignal): Error {
  const r: unknown = signal.reason;
  return r instanceof Error ? r : new DOMException(typeof r === 'string' ? r : 'lockpick run aborted', 'AbortError');
}

/** What an interrupt stored (results.json's content): its verdict picks the exit code. */
export type Interrupted = { verdict: Verdict } & Record<string, unknown>;

/** The signals that end a CLI run: each stores what was found first (SIGHUP: the terminal went away). */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * The exit code of a run a signal ended: Ctrl-C is 130 (README "Exit codes"); any other
 * signal (a CI job cancelled, a timeout's SIGTERM) gives the verdict found so far:
 * 1 when a violation was already seen, else 3 (inconclusive), never a code outside the contract.
 */
export function interruptedExit(sig: NodeJS.Signals, verdict: Verdict | undefined): number {
  if (sig === 'SIGINT') return 130;
  return verdict === false ? 1 : 3;
}

/**
 * Runs the session body and always tears the session down. On an interrupt
 * (Interrupts: SIGINT/SIGTERM/SIGHUP for the CLI, the AbortSignal for the library)
 * `onInterrupt` first stores what was found so far (results.json, with the reason),
 * after an `interrupted` nemesis event closes every history file the session wrote.
 */
async function withSession<T>(o: SessionOptions, ctl: Interrupts, body: (s: Session) => Promise<T>, onInterrupt: (reason: string) => Promise<Interrupted | void> = async () => {}): Promise<T> {
  ctl.signal?.throwIfAborted();
  let session: Session | undefined;
  let interrupted: NodeJS.Signals | 'abort' | undefined;
  let closing: Promise<void> | undefined;   // the teardown an interrupt started
  let verdict: Verdict | undefined;         // what the interrupt stored
  let rejectAborted: (e: Error) => void = () => {};
  const aborted = new Promise<never>((_, reject) => { rejectAborted = reject; });
  aborted.catch(() => {});   // raced below; unobserved when the body wins
  /** Stores what was found (the reason in the history and results.json); a signal then exits with its code. */
  const store = (sig: NodeJS.Signals | 'abort'): Promise<void> => {
    const reason = sig === 'abort' ? 'aborted (AbortSignal)' : `interrupted by ${sig}`;
    session?.markInterrupted(reason);
    let found: Interrupted | void;
    const stored = onInterrupt(reason).then((r) => { found = r; verdict = r?.verdict; }, (e: unknown) => {
      if (sig !== 'abort') process.stderr.write(`lockpick: could not store the results: ${(e as Error).message}\n`);
    });
    if (sig === 'abort') return stored;
    return stored.then(() => {
      if (ctl.json && found) process.stdout.write(`${JSON.stringify({ ...found, exitCode: interruptedExit(sig, found.verdict) })}\n`);
    });
  };
  const finish = (sig: NodeJS.Signals | 'abort') => {
    closing = store(sig).finally(() => (session?.close() ?? Promise.resolve()).catch(() => {}));
    if (sig === 'abort') void closing.finally(() => rejectAborted(abortReason(ctl.signal!)));
    else void closing.finally(() => exitFlushed(interruptedExit(sig, verdict)));
  };
  // Installed before the servers start: an interrupt while they come up waits for them, then stops them.
  const onSignal = (sig: NodeJS.Signals | 'abort') => {
    if (interrupted) return;
    interrupted = sig;
    if (session) finish(sig);
  };
  const onAbort = () => onSignal('abort');
  let release = () => {};
  if (ctl.exitOnSignal) {
    for (const s of STOP_SIGNALS) process.on(s, onSignal);
    release = claimSignals();   // the environment's own handler would exit before the results are stored
  }
  ctl.signal?.addEventListener('abort', onAbort, { once: true });
  const detach = () => {
    if (ctl.exitOnSignal) {
      for (const s of STOP_SIGNALS) process.off(s, onSignal);
      release();
    }
    ctl.signal?.removeEventListener('abort', onAbort);
  };
  try {
    try {
      session = await Session.open(o);
    } catch (e) {
      if (interrupted === 'abort') throw abortReason(ctl.signal!);
      // The servers did not come up (the signal reached them too): what was asked is stored all the same.
      if (interrupted) {
        const sig = interrupted;
        await store(sig);
        exitFlushed(interruptedExit(sig, verdict));
        return await new Promise<never>(() => {});
      }
      throw e;
    }
    if (interrupted) {
      finish(interrupted);
      return await aborted;   // a signal: finish() exits the process; an abort rejects once the servers are down
    }
    try {
      return await Promise.race([body(session), aborted]);
    } catch (e) {
      // The run in flight fails as its servers go away: the abort is the reason, not that failure.
      if (interrupted === 'abort') throw abortReason(ctl.signal!);
      // A signal: finish() stores what was found and exits (130, else 1 or 3); this failure is only its echo.
      if (interrupted) return await new Promise<never>(() => {});
      throw e;
    }
  } finally {
    if (interrupted === 'abort') {
      detach();
      await closing;   // servers down before the promise settles
    } else if (!interrupted) {
      detach();
      await session?.close();
    }
  }
}

/** Writes the run's JUnit file into DIR (and the counterexample dir, and --junit PATH when given). */
function writeJUnit(dir: string, paths: (string | undefined)[], input: RunJUnit): string {
  const xml = renderRunJUnit(input);
  const own = join(dir, 'junit.xml');
  writeOutput(own, xml);
  const fix = 'give --junit a file in a directory that exists and can be written';
  for (const p of paths) if (p) writeOutput(p, xml, { what: `cannot write the JUnit file ${p} (the run's results are in ${join(dir, 'results.json')})`, fix });
  return own;
}

/** What JUnit says of the run shown (the counterexample, or a replay's breaking run): its anomalies, the resource, its plan in words and its timeline. */
function shownRun(out: RunOutcome | undefined, cdir: string | undefined): Pick<RunJUnit, 'anomalies' | 'resource' | 'plan' | 'timeline'> {
  return {
    anomalies: out ? [...out.check.anomalies, ...out.resource.anomalies] : [], resource: out?.resource,
    plan: out && describePlan(out.plan), timeline: cdir && join(cdir, 'timeline.html'),
  };
}

/**
 * The end of every run, a search's or a replay's: the note on the clients' own output, the
 * elapsed time, junit.xml (in DIR, at --junit PATH, in the counterexample), results.json, and
 * the summary checked against its verdict.
 */
function finish(dir: string, o: { log(line: string): void }, t0: number, summary: SummaryDraft, junit: Omit<RunJUnit, 'verdict' | 'elapsedMs' | 'gaps'>, junitPaths: (string | undefined)[], results: Record<string, unknown>): RunSummary {
  const output = clientOutputNote(dir);
  if (output) o.log(output);
  summary.elapsedMs = Date.now() - t0;
  // results.json first, whole: whatever fails after it (a --junit on a full disk), the verdict is stored.
  writeJson(join(dir, 'results.json'), { verdict: summary.verdict, ...results });
  writeJUnit(dir, junitPaths, { ...junit, verdict: summary.verdict, elapsedMs: summary.elapsedMs, gaps: summary.gaps });
  return done(summary);
}

export async function runTest(o: RunOptions): Promise<RunSummary> {
  o.interrupts?.signal?.throwIfAborted();
  const t0 = Date.now();
  checkPackages(o.recipe.packages);   // a missing optional package ends the run before anything is written (exit 3)
  const { id, dir } = newRunDir(o.storeRoot, lockLabel(o.lock));
  o = { ...o, ...logged(dir, o) };
  const topo = topologyOf(o.recipe);
  const seed = o.seed ?? Math.floor(Math.random() * 0x7fffffff);
  const test: Record<string, unknown> = {
    lock: lockLabel(o.lock), ...storedLock(o.lock), model: o.recipe.model, fencing: o.recipe.fencing,
    topology: { name: topo.name, ...topo.opts }, faults: o.faults, pause_points: o.pausePoints ?? null, property: o.property ?? 'both', liveness_ms: o.livenessMs ?? null, clients: o.clients, ttl_ms: o.ttlMs, keys: o.keys,
    time_s: o.timeS, runs: o.runs, parallel: o.parallel ?? 1, keep_going: o.keepGoing === true, first_failure: o.firstFailure === true, shrink_time_s: o.shrinkTimeS, seed, lock_options: o.lockOptions ?? {},
    versions: versions(), started: new Date().toISOString(), plan: null, ...envJson(o.env, o.keyPrefix),
    ...(o.shard ? { shard: o.shard } : {}),
  };
  writeJson(join(dir, 'test.json'), test);
  o.log(`lockpick run ${id}: lock ${lockLabel(o.lock)}, faults ${o.faults.join(',') || 'none'}, ${o.clients} clients, seed ${seed}; history in ${join(dir, 'history.jsonl')}`);
  const leads = o.shard ? shardKinds(o.faults, o.shard) : [];
  if (o.shard) o.log(`shard ${shardLabel(o.shard)} (from ${o.shard.from}): this run draws only its share of the plans${leads.length < new Set(o.faults).size ? `, each with a fault of ${leads.join(' or ')} (a kind it never applies is left to the other shards: lockpick merge sums them)` : ''}; merge the shards' run dirs with lockpick merge`);
  const coverage = emptyCoverage(o.faults);
  let ops = 0;
  let lockViolations = 0;
  let firstSeen: RunOutcome | undefined;   // the first violation, kept for an interrupt
  const stored: { f: Failure; cdir: string }[] = [];   // keepGoing: the distinct failures so far (the 2nd on already in counterexample-N)
  const failuresJson = () => stored.map((s) => failureJson(s.f, s.cdir));
  const resource = { lostUpdates: 0, staleWritesAccepted: 0, staleStepsPrevented: 0 };
  const property = o.property ?? 'both';
  const liveness: LivenessTotals = { checked: wantsLiveness(property), violations: 0, longest_unavailable_ms: 0, bound_ms: o.livenessMs ?? null };
  const totals = () => ({ property, lock_violations: lockViolations, liveness, resource_totals: resource, ops, coverage, ...(o.shard ? { shard: o.shard } : {}) });
  const junitBase = { lock: lockLabel(o.lock), property, faults: o.faults, replayCommand: `lockpick run --replay ${dir}`, properties: { run: id, seed } };
  // An interrupt: what was found so far is stored and said, with the reason; a violation already seen stays one.
  let interrupted = false;
  const onInterrupt = async (reason: string): Promise<Interrupted> => {
    interrupted = true;
    const verdict: Verdict = firstSeen ? false : 'unknown';
    const gapsNow = firstSeen ? [] : [`${reason} after ${coverage.runs} run(s): no verdict`];
    const results: Interrupted = {
      verdict, interrupted: true, reason, gaps: gapsNow, ...totals(), runs: coverage.runs, seed, first: firstSeen ? outcomeJson(firstSeen) : null,
      ...(o.keepGoing || stored.length ? { failures: failuresJson() } : {}), client_logs: clientLogs(dir), dir,
    };
    writeJson(join(dir, 'results.json'), results);
    if (firstSeen) await writeCounterexample(dir, firstSeen, { lock: lockLabel(o.lock), seed, plan: describePlan(firstSeen.plan) });
    writeJUnit(dir, [o.junitPath, firstSeen ? join(dir, 'counterexample', 'junit.xml') : undefined], {
      ...junitBase, verdict, interrupted: true, elapsedMs: Date.now() - t0, gaps: gapsNow, tested: describeCoverage(coverage),
      ...shownRun(firstSeen, firstSeen ? join(dir, 'counterexample') : undefined),
    });
    o.log(`\nINTERRUPTED (${reason}) after ${coverage.runs} run(s): ${firstSeen ? `UNSAFE: a violation was found in the history's run ${firstSeen.run} (keys r${firstSeen.run}-…; the history counts the calibration run too), not shrunk; its history is in ${join(dir, 'counterexample')}` : 'no violation so far; no verdict'}.`);
    if (firstSeen) o.log(await describeOutcome(firstSeen, join(dir, 'counterexample', 'history.jsonl')));
    if (stored.length && (o.keepGoing || stored.length > 1)) {
      o.log(`\ndistinct failures so far: ${stored.length} (the first as found above, the others shrunk)`);
      failuresJson().forEach((j, i) => o.log(describeFailure(j, i + 1)));
    }
    const output = clientOutputNote(dir);
    if (output) o.log(output);
    o.log(`results: ${join(dir, 'results.json')}`);
    return results;
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
    // undefined: the recipe does not say (a user lock); the calibration run finds out.
    let renew = o.recipe.renews;
    const reentrant = o.recipe.model === 'reentrant-mutex';
    const sessionMs = o.recipe.sessionMs?.(o.lockOptions);
    const workload = {
      clients: o.clients, faults: o.faults, ttlMs: lease.ttlMs, ttlFixed: o.ttlFixed, keys: o.keys, maxAttempts: o.maxAttempts, maxFaults: o.maxFaults, restartDelayMs: o.restartDelayMs, topology: topo.name, promotionMs: session.timescales.promotionMs,
      leaseLagMs: session.timescales.leaseLagMs,
      nodes: session.dataNodes(), servers: session.serverNodes(), peerLinks: session.hasPeerLinks(), points, reentrant, renew: renew === true, sessionMs,
      keepsAlive: o.recipe.keepsAlive === true, leased: isLeased(o.recipe),
    };
    let res: SearchResult;
    let learned = o.learnedPoints;
    const design = lockDesign(o.recipe, lease.ttlMs, o.lockOptions);
    try {
      // Points learned, not guessed (src/workload/points.ts): anchored faults land only where the lock's clients go.
      if (learned) o.log(`points as learned before (--points-from): ${learned.points.join(', ')}`);
      else if (o.faults.length) {
        const c = await calibrate((plan) => session.runOnce(plan), points, { ttlMs: lease.ttlMs, renew, reentrant, sessionMs });
        o.log(c.said);
        learned = c.learned;
        if (c.renews !== undefined) { renew = c.renews; workload.renew = c.renews; }
      }
      if (learned) {
        test.points_learned = { ...learned, from: o.learnedPoints ? 'points-from' : 'calibration' };
        writeJson(join(dir, 'test.json'), test);
      }
      const granted = learned?.reached?.io?.acquire;
      const drawing = { ...workload, points: learned?.points ?? points,
        ...(granted?.grantedSends !== undefined ? { grantedAcquireSends: granted.grantedSends } : {}),
        ...(granted?.grantedReplies !== undefined ? { grantedAcquireReplies: granted.grantedReplies } : {}),
        ...(learned?.reached?.validity ? { reportsValidity: true } : {}) };
      // A shard draws from its own seed stream, only the plans of its bucket that lead with its fault kinds, and its share of the aims' first plans.
      const all = planArb(drawing);
      const first = firstPlans(drawing, seed);
      const shard = o.shard && o.shard.total > 1 ? o.shard : undefined;
      res = await search({
        arb: shard ? planArb({ ...drawing, leadKinds: shardKinds(drawing.faults, shard) }).filter(shardFilter(first, shard)) : all, shrinkArb: all,
        first: shard ? shardFirstPlans(first, shard, drawing.faults) : first, runs: o.runs, timeMs: o.timeS * 1000, shrinkTimeMs: o.shrinkTimeS * 1000, seed: shard ? shardSeed(seed, shard) : seed,
        runOnce: (plan, lane) => session.runOnce(plan, lane),
        parallel: o.parallel, concurrent: (plan) => plan.faults.every((f) => kindDef(f.kind)?.scope === 'client'),
        keepGoing: o.keepGoing, stopAtFirst: o.firstFailure,
        classify: (out) => classifyRun(out, design),
        // The first failure found is stored below in counterexample/; the others as found (counterexample-N), each replayable on its own.
        onFailure: async (f, n) => {
          if (n === 1) { stored.push({ f, cdir: join(dir, 'counterexample') }); return; }
          const name = `counterexample-${n}`;
          const cdir = await writeCounterexample(dir, f.minimal, { lock: lockLabel(o.lock), seed, path: f.path, plan: describePlan(f.minimal.plan) }, name);
          writeJson(join(cdir, 'test.json'), { ...test, plan: f.minimal.plan, counterexample: { seed, path: f.path, run: f.minimal.run, class: f.name } });
          stored.push({ f, cdir });
        },
        onRun: (out, phase) => {
          ops += out.ops;
          if (out.lockVerdict === false) lockViolations++;
          if (phase === 'search') addLiveness(liveness, out);
          resource.lostUpdates += out.resource.lostUpdates;
          resource.staleWritesAccepted += out.resource.staleWritesAccepted;
          resource.staleStepsPrevented += out.resource.staleStepsPrevented;
          if (phase === 'search') addRun(coverage, out);
          if (out.verdict === false) firstSeen ??= out;
          progress.run(out.ops, out.verdict === false, phase, out.verdict === 'unknown' ? out.inconclusive[0] ?? '' : out.problems[0] ?? '');
        },
      });
    } catch (e) {
      // Interrupted: the session is closing under the run in flight; onInterrupt stored the results.
      if (interrupted) return await new Promise<never>(() => {});
      // A run that could not go on (broken lock contract, history not written): keep the record if the disk still takes it.
      try {
        writeJson(join(dir, 'results.json'), { verdict: 'unknown', error: (e as Error).message, ...totals(), runs: coverage.runs, seed });
      } catch { /* the error thrown says why the run stopped; a full disk takes no results.json either */ }
      throw e;
    } finally {
      progress.done();
    }
    const replay = `lockpick run --replay ${dir}`;
    const missing = res.minimal ? [] : gaps(coverage);
    const speed = throughput({ runs: res.runs, inconclusive: res.inconclusive, schedules: res.schedules, searchMs: res.searchMs, parallel: res.parallel });
    const summary: SummaryDraft = {
      verdict: res.minimal ? false : missing.length === 0 ? true : 'unknown',
      exitCode: res.minimal ? 1 : missing.length === 0 ? 0 : 3,
      dir, runId: id, seed: res.seed, path: res.path, runs: res.runs, shrinkRuns: res.shrinkRuns, inconclusive: res.inconclusive, throughput: speed,
      firstAfterMs: res.firstAfterMs, ops, lockViolations, liveness, resource, replay, coverage, gaps: missing,
      firstAnomalies: res.first ? [...res.first.check.anomalies, ...res.first.resource.anomalies] : undefined,
      elapsedMs: 0, junit: join(dir, 'junit.xml'),
      failures: [],
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
      const firstDir = await writeCounterexample(dir, firstFound.minimal, { lock: lockLabel(o.lock), seed: res.seed, path: firstFound.path, plan: describePlan(firstFound.minimal.plan) });
      // Shown after a bug found later, it replays from its own dir as counterexample-N do (the run dir replays the bug).
      if (firstFound !== res.failures[0]) writeJson(join(firstDir, 'test.json'), { ...test, plan: firstFound.minimal.plan, counterexample: { seed: res.seed, path: firstFound.path, run: firstFound.minimal.run, class: firstFound.name } });
      cdir = shown[0]!.cdir;
      const firstS = ((res.firstAfterMs ?? 0) / 1000).toFixed(1);
      o.log(o.keepGoing
        ? `\nUNSAFE: ${lockLabel(o.lock)} broke first after ${firstS} s of search (--keep-going: ${res.runs} search run(s), ${res.shrinkRuns} shrinking run(s) in all)${res.shrinkInterrupted ? '; its shrink time ran out' : ''}.`
        : `\nUNSAFE: ${lockLabel(o.lock)} broke after ${res.runs} run(s) (${firstS} s of search), shrunk in ${res.shrinkRuns} more run(s)${res.shrinkInterrupted ? ' (shrink time ran out)' : ''}.`);
      const head = res.failures[0]!;
      if (head.words) o.log(`${head.words}${res.failures.length > 1 ? ` (and ${res.failures.length - 1} more failure(s) below)` : ''}`);
      if (!o.keepGoing && res.failures.length === 1 && head.nature === 'inherent') o.log(`no bug of this implementation found beyond it in ${(res.searchMs / 1000).toFixed(1)} s of search (${head.runs - 1 + res.inherentRuns} more run(s) broke it only in ways inherent to its design)`);
      o.log(`\nMinimal schedule (${planOps(m.plan)} operations at most, ${m.ops} done; ${m.plan.faults.length} fault(s); ${res.minimalConfirmed ? 'broke the lock again on a confirmation run' : 'not seen again on a confirmation run: timing-sensitive, replay with --runs 5'}):\n${describePlan(m.plan)}`);
      o.log(`\n${await describeOutcome(m, join(cdir, 'history.jsonl'))}`);
      o.log(`\nsearch: ${describeCoverage(coverage)}`);
      o.log(describeThroughput(speed));
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
      o.log(describeThroughput(speed));
      o.log(describeLiveness(liveness));
      if (o.property === 'resource') {
        o.log(`the lock itself was broken in ${lockViolations} run(s) (double holders); the resource lost ${resource.lostUpdates} update(s), accepted ${resource.staleWritesAccepted} stale write(s) and rejected ${resource.staleStepsPrevented} stale step(s) by fencing`);
      }
    } else {
      o.log(`\nINCONCLUSIVE: no violation, but no safety promise either:`);
      for (const g of missing) o.log(`  - ${g}`);
      o.log(`tested: ${describeCoverage(coverage)}`);
      o.log(describeThroughput(speed));
      o.log(describeLiveness(liveness));
      const reasons = Object.entries(coverage.inconclusiveReasons).sort((a, b) => b[1] - a[1]).slice(0, 3);
      if (reasons.length) o.log(`inconclusive runs, most often:\n${reasons.map(([r, n]) => `  ${n} run(s): ${r}`).join('\n')}`);
    }
    return finish(dir, o, t0, summary, {
      ...junitBase, tested: describeCoverage(coverage), ...shownRun(res.minimal, cdir), confirmed: res.minimal ? res.minimalConfirmed : undefined,
      failures: (summary.failures ?? []).map((j, i) => ({ ...j, ...shownRun(res.failures[i]!.minimal, j.counterexample), replayCommand: i === 0 ? replay : `lockpick run --replay ${j.counterexample}` })),
    }, [o.junitPath, cdir && join(cdir, 'junit.xml')], {
      ...totals(), gaps: missing, runs: res.runs, shrink_runs: res.shrinkRuns, inconclusive: res.inconclusive, throughput: speed,
      first_violation_after_ms: res.firstAfterMs ?? null, seed: res.seed, path: res.path ?? null,
      first: res.first ? outcomeJson(res.first) : null, minimal: res.minimal ? outcomeJson(res.minimal) : null,
      failures: summary.failures, inherent_runs: res.inherentRuns, client_logs: clientLogs(dir),
    });
  }, onInterrupt);
}

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
function replayLock(test: Record<string, unknown>, where: string, o: ReplayOptions): { spec: LockSpec; same: boolean; note?: string } {
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
