// checkHistory: split a parsed history by the model's partition (per key), decide each part by
// the model's sweep when it has one (owner-aware lock models) or by the general search, and
// gather plain-words anomalies. Throws CheckInputError for input the model cannot read.
import { setOwn } from '../src/own-key.ts';
import type { NemesisEvent, Op, ParsedHistory } from '../src/history/types.ts';
import type { Anomaly, Backend, CheckOptions, CheckResult, KeyDetail, Model, Verdict } from './types.ts';
import { backendNames, loadBackends } from './backends.ts';
import { Budget } from './budget.ts';
import { MODELS, modelNamed, registerModel } from './models/index.ts';
import type { DescribedModel } from './models/lockpick-model.ts';
import { searchLinearization } from './search.ts';
import { PERMIT_MODELS, SWEEPS, SWEEP_OPTIONS, doubleHolderScan, staleUnlocks } from './sweep.ts';
import { noSafetyAnomaly } from './anomaly-kinds.ts';
import { explainNonlinearizable, explainUnreachable } from './window.ts';
import { unreachableOp } from './reach.ts';
import { crashAnomalies, withCrashes } from './crash.ts';
import { phantomGrants } from './phantom-grant.ts';
import { silencesOf, type Silences } from './silences.ts';

export { MODELS, modelNamed, registerModel };
export type { DescribedModel } from './models/lockpick-model.ts';

/** Reports list at most this many anomalies per key; the rest are counted in keys_detail. */
export const MAX_ANOMALIES_PER_KEY = 20;

/** Time for finding the shortest failing window: this many times the deciding search, at least EXPLAIN_MIN_MS. */
const EXPLAIN_FACTOR = 2;
const EXPLAIN_MIN_MS = 2000;
/** Histories of up to this many ops (on a key) keep, in the deciding search, where every op could take effect. */
const WATCH_ALL_MAX_OPS = 2000;
/** Time for the shortest failing window when the quick disproof (checkers/reach.ts) decided. */
const UNREACHABLE_EXPLAIN_MS = 300;

/**
 * The history or options do not fit the model: a usage problem (exit 2), not a verdict. Shaped
 * like a HistoryError: `FILE:LINE: rule: expected` and a `fix:` line (file '' and line 0 when
 * the problem is the options, not a place in the file).
 */
export class CheckInputError extends Error {
  constructor(readonly file: string, readonly line: number, readonly rule: string, readonly expected: string, readonly fix: string) {
    const where = file === '' ? '' : line > 0 ? `${file}:${line}: ` : `${file}: `;
    super(`${where}${rule}: ${expected}\n  fix: ${fix}`);
    this.name = 'CheckInputError';
  }
}

/**
 * Whether the model declares that every acquire ok must come from the servers (a mutex, a fenced
 * mutex, a semaphore, a read-write lock): phantom grants are judged there. Not under a reentrant
 * model (a re-entry may be answered by the client alone), nor an unknown one.
 */
export function grantsFromServers(model: Model<any> | undefined): boolean {
  return model !== undefined && (SWEEP_OPTIONS.get(model)?.reentrant === false || PERMIT_MODELS.has(model));
}

/** The anomalies of the run as a whole, beside the keys' verdicts: the lock's crashes, its phantom grants (checkers/crash.ts, phantom-grant.ts). */
export function runAnomalies(h: ParsedHistory, model: string | undefined): Anomaly[] {
  return [...crashAnomalies(h.nemesis), ...phantomGrants(h.ops, h.nemesis, !grantsFromServers(modelNamed(model ?? 'mutex')))];
}

export function checkHistory(h: ParsedHistory, o: CheckOptions): CheckResult {
  const c = prepareCheck(h, o);
  const crashes = runAnomalies(h, o.model);
  if ('valid' in c) return withCrashes(c, crashes);
  const { model, parts, budget, backend, started, silences } = c;
  function* verdicts(): Generator<[string, number, KeyVerdict]> {
    for (const [key, ops] of parts) yield [key, ops.length, keyVerdict(model, key, ops, budget, backend, silences)];
  }
  return withCrashes(summarize(model.name, h.ops.length, started, verdicts()), crashes);
}

/** A check ready to decide its keys: the model, the ops by key (in partition order), the limits. */
export interface PreparedCheck { model: Model<any>; parts: Map<string, Op[]>; budget: Budget; backend: Backend | undefined; started: number; silences: Silences }

/** The model and the ops by key of a check, or its result when there is nothing to decide; CheckInputError for input the model cannot read. */
export function prepareCheck(h: ParsedHistory, o: CheckOptions): PreparedCheck | CheckResult {
  const started = performance.now();
  const model = modelNamed(o.model);
  if (!model) throw new CheckInputError('', 0, 'unknown-model', `there is no model named "${o.model}"`, `use one of ${Object.keys(MODELS).join(', ')} (--model NAME)`);
  validateOps(model, h);
  if (h.ops.length === 0) return noOperations(model.name, h.nemesis.length);
  return { model, parts: partition(model, h.ops), budget: new Budget(o.timeLimitMs, o.maxMemoryBytes), backend: o.backend ?? (wordsMatter(model) ? backendOf(h) : undefined), started, silences: silencesOf(h.nemesis) };
}

/** One key's verdict, with the stale unlocks that explain an invalid lock key. */
export function keyVerdict(model: Model<any>, key: string, ops: Op[], budget: Budget, backend: Backend | undefined, silences?: Silences): KeyVerdict {
  const d = decideKey(model, key, ops, budget, backend, silences);
  // A stale unlock is named by the mutex's reading of the holds: not for a lock of several holds.
  return withStaleUnlocks(d, !PERMIT_MODELS.has(model) && ops.some((op) => op.f === 'acquire'), () => staleUnlocks(model, key, ops, backend));
}

/** The result of a check from each key's verdict (in partition order): anomalies listed up to MAX_ANOMALIES_PER_KEY per key. */
export function summarize(modelName: string, ops: number, started: number, verdicts: Iterable<[string, number, KeyVerdict]>): CheckResult {
  const anomalies: Anomaly[] = [];
  const keysDetail: Record<string, KeyDetail> = {}; // keyed by lock name (user data): setOwn
  let anyInvalid = false;
  let unknownReason: string | undefined;
  for (const [key, count, d] of verdicts) {
    const listed = d.anomalies.slice(0, MAX_ANOMALIES_PER_KEY);
    anomalies.push(...listed);
    const detail: KeyDetail = { valid: d.valid, ops: count };
    if (d.reason) detail.reason = d.reason;
    else if (d.anomalies.length > listed.length) detail.reason = `${d.anomalies.length} anomalies; the first ${listed.length} are listed`;
    setOwn(keysDetail, key, detail);
    if (d.valid === false) anyInvalid = true;
    if (d.valid === 'unknown') unknownReason ??= `key "${key}": ${d.reason}`;
  }
  const valid: Verdict = anyInvalid ? false : unknownReason ? 'unknown' : true;
  const elapsed = Math.round(performance.now() - started);
  const result: CheckResult = {
    valid, model: modelName, ops, keys: Object.keys(keysDetail).length,
    anomalies, keys_detail: keysDetail, elapsed_ms: elapsed, check_ms: elapsed,
  };
  if (valid === 'unknown') result.reason = unknownReason;
  return result;
}

/** Nothing was tested: no verdict, never a vacuous "valid". */
export function noOperations(modelName: string, nemesisEvents: number): CheckResult {
  const reason = nemesisEvents ? 'no operations (the history holds only nemesis events)' : 'no operations';
  return { valid: 'unknown', model: modelName, ops: 0, keys: 0, anomalies: [], keys_detail: {}, elapsed_ms: 0, check_ms: 0, reason };
}

export interface KeyVerdict { valid: Verdict; anomalies: Anomaly[]; reason?: string }

/** The backend the runner recorded in the history's first run-start event, if any. */
export function backendOf(h: ParsedHistory): Backend | undefined {
  for (const n of h.nemesis) {
    const b = backendIn(n);
    if (b) return b;
  }
  return undefined;
}

/** The backend a run-start event records, if it is one: its topology when that has words of its own (PgBouncer's pooled sessions), else its backend. */
export function backendIn(n: NemesisEvent): Backend | undefined {
  return namedBackends(n).find((b) => backendNames().includes(b));
}

/** The first word namedBackends gives, known or not (no registry needed). */
export function namedBackend(n: NemesisEvent): string | undefined {
  return namedBackends(n)[0];
}

/** The words a run-start event names for its lock service, most specific first: its topology, then its backend (no registry needed). */
export function namedBackends(n: NemesisEvent): string[] {
  if (n.f !== 'run-start') return [];
  const v = n.value as { backend?: unknown; topology?: unknown } | null | undefined;
  return [v?.topology, v?.backend].filter((b): b is string => typeof b === 'string');
}

/**
 * Whether a backend's words can show in a check under this model: only lock ops (acquire, release,
 * renew) are explained in them. A model that lists its operations without acquire (the registers)
 * never needs the topology registry, so a check of a register history recorded by `lockpick run`
 * (its run-start names the backend) does not load it (~40 ms of CPU at start).
 */
function wordsMatter(model: DescribedModel<any> | undefined): boolean {
  return model?.operations === undefined || model.operations.includes('acquire');
}

/** Loads what a check of h needs beyond the checker itself: the backends' words when the options or the history name one and the model can use them (checkers/backends.ts). */
export async function readyToCheck(h: ParsedHistory, o: CheckOptions): Promise<void> {
  if (o.backend !== undefined || (wordsMatter(modelNamed(o.model)) && h.nemesis.some((n) => namedBackend(n) !== undefined))) await loadBackends();
}

/** An invalid lock key: name the stale unlocks that explain it (alone, a late unlock broke nothing). */
export function withStaleUnlocks(d: KeyVerdict, hasAcquire: boolean, stale: () => Anomaly[]): KeyVerdict {
  // An exposure alone took nobody's lock: a late unlock beside it is said by the exposure (whose
  // lease may still have stood at a server that drops leases late), not named a stale unlock.
  if (d.valid === false && hasAcquire && d.anomalies.some((a) => a.type !== 'exposure')) d.anomalies.push(...stale());
  return d;
}

function decideKey(model: Model<any>, key: string, ops: Op[], budget: Budget, backend: Backend | undefined, silences?: Silences): KeyVerdict {
  const over = budget.check();
  if (over) return { valid: 'unknown', anomalies: [], reason: over };
  const sweep = SWEEPS.get(model);
  if (sweep) {
    const anomalies = sweep(key, ops, backend, silences);
    return { valid: noSafetyAnomaly(anomalies), anomalies };
  }
  // Certain double holders are definite whatever the model; lock-free ops give none.
  const definite = ops.some((op) => op.f === 'acquire') ? doubleHolderScan(key, ops, false, silences) : [];
  const live = ops.filter((op) => op.outcome !== 'fail');
  // An op that fits no state the model can reach at all is decided without the search; the
  // shortest failing window is still looked for, briefly (it takes a search up to that op).
  const u = unreachableOp(model, live, budget);
  if (u) {
    const failed = { result: 'fail' as const, deepest: [], deepestState: model.init(), blockedAt: u.op.completeSeq };
    return { valid: false, anomalies: [...definite, explainNonlinearizable(model, key, live, failed, budget.narrowed(UNREACHABLE_EXPLAIN_MS), () => explainUnreachable(model, key, u))] };
  }
  const started = performance.now();
  // A short history's deciding search keeps where each op could take effect: an explanation of
  // a violation then starts without repeating it (checkers/window.ts).
  const watched = live.length <= WATCH_ALL_MAX_OPS ? [] as (Map<string, unknown> | undefined)[] : undefined;
  const r = searchLinearization(model, live, budget, watched ? { watchAll: watched } : {});
  const searchMs = performance.now() - started;
  if (r.result === 'ok') return definite.length ? { valid: false, anomalies: definite } : { valid: true, anomalies: [] };
  if (r.result === 'unknown') {
    const reason = `${r.reason}${partialResult(model, live, r)}`;
    return definite.length ? { valid: false, anomalies: definite, reason: `the double holders decide it; the linearizability search stopped: ${reason}` } : { valid: 'unknown', anomalies: [], reason };
  }
  // The verdict is in; finding the shortest failing prefix may take a few more searches, but
  // never more than a few times the first one (it stops at the shortest prefix found by then).
  const explainBudget = budget.narrowed(Math.max(EXPLAIN_MIN_MS, EXPLAIN_FACTOR * searchMs));
  return { valid: false, anomalies: [...definite, explainNonlinearizable(model, key, live, r, explainBudget, undefined, watched)] };
}

/** What a search stopped by a limit had found: how far a consistent order got, and the return that held it up. */
function partialResult(model: Model<any>, ops: readonly Op[], r: { placed: number; blockedAt: number }): string {
  const ok = ops.filter((op) => op.outcome === 'ok').length;
  let out = `; partial result: the longest consistent order found places ${r.placed} of the ${ops.length} operations (${ok} answered ok)`;
  const stuck = r.blockedAt >= 0 ? ops.find((op) => op.completeSeq === r.blockedAt) : undefined;
  if (stuck) {
    const m = model as DescribedModel<any>;
    // A dead end at a return has every earlier return placed: the history before it fits.
    out += `; everything that returned before line ${stuck.completeLine} fits the model, and no order found gets past the return of process ${stuck.process}'s ${m.describeOp ? m.describeOp(stuck) : stuck.f} there (the first place to look)`;
  }
  return out;
}

function partition(model: Model<any>, ops: readonly Op[]): Map<string, Op[]> {
  const parts = new Map<string, Op[]>();
  for (const op of ops) {
    const k = model.partition(op);
    const list = parts.get(k);
    if (list) list.push(op); else parts.set(k, [op]);
  }
  return parts;
}

function validateOps(model: DescribedModel<any>, h: ParsedHistory): void {
  const limits = new LimitCheck(model);
  for (const op of h.ops) {
    const bad = unknownOperation(model, op, h.source) ?? badValue(model, op, h.source) ?? limits.differs(op, h.source);
    if (bad) throw bad;
  }
}

/** A semaphore's acquires on one key must give one limit (docs/history-format.md): the first acquire's, else refused. */
export class LimitCheck {
  private readonly first = new Map<string, Op>();
  private readonly on: boolean;
  constructor(model: Model<any>) { this.on = PERMIT_MODELS.get(model) === 'semaphore'; }
  /** Decided once op completed (the completion's limit counts). */
  differs(op: Op, source: string): CheckInputError | undefined {
    if (!this.on || op.f !== 'acquire') return undefined;
    const first = this.first.get(op.key);
    if (!first) { this.first.set(op.key, op); return undefined; }
    const a = first.limit ?? 1, b = op.limit ?? 1;
    if (a === b) return undefined;
    return new CheckInputError(source, op.invokeLine, 'limit-differs',
      `this acquire gives ${op.key === '' ? 'the semaphore' : `semaphore "${op.key}"`} "limit": ${b}, but the acquire at line ${first.invokeLine} gave ${a}${op.limit === undefined || first.limit === undefined ? ' (absent means 1)' : ''}`,
      'record the same "limit" (the semaphore\'s total permits) on every acquire of one key, or give semaphores of other sizes other keys');
  }
}

/** An op whose f the model does not know (decided at its invoke). */
export function unknownOperation(model: DescribedModel<any>, op: Op, source: string): CheckInputError | undefined {
  if (!model.operations || model.operations.includes(op.f)) return undefined;
  const fits = Object.values(MODELS).filter((m: DescribedModel<any>) => m.operations?.includes(op.f)).map((m) => m.name);
  return new CheckInputError(source, op.invokeLine, 'unknown-operation',
    `model '${model.name}' has no operation '${op.f}' (it knows ${model.operations.join(', ')})`,
    fits.length ? `choose a model that has it with --model (${fits.join(', ')})` : `check the "f" of this line, or register a model that knows '${op.f}'`);
}

/** An op whose values the model cannot read (decided once it completed). */
export function badValue(model: DescribedModel<any>, op: Op, source: string): CheckInputError | undefined {
  const bad = model.validate?.(op);
  if (bad === undefined) return undefined;
  if (typeof bad === 'string') return new CheckInputError(source, op.invokeLine, 'bad-value', bad, `fix the value of this ${op.f} so model '${model.name}' can read it, or choose another model with --model`);
  // A rule on what the op returned: the completion line shows it.
  return new CheckInputError(source, Number.isFinite(op.completeLine) ? op.completeLine : op.invokeLine, bad.rule, bad.expected, bad.fix);
}
