// The run files lockpick reads back (results.json, test.json) checked against one small schema
// each, so an edited or foreign file is bad input naming the file and the field (exit 2), never a
// TypeError deep in a report (exit 4) or a verdict taken on trust. Hand-written: a field is
// checked only for what a reader of it relies on; fields nobody reads pass as they are.
import type { Anomaly, CheckResult, Verdict } from '../../checkers/types.ts';
import { basename } from 'node:path';
import { UsageError } from '../errors.ts';
import { validatePlan } from '../workload/plan.ts';

const VERDICTS = [true, false, 'unknown'] as const;

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Field problems of one file, each naming its path ("keys_detail.k1.valid"). */
class Checker {
  constructor(readonly file: string, readonly fix: string) {}
  fail(field: string, want: string, got: unknown): never {
    let shown: string;
    try { shown = JSON.stringify(got) ?? String(got); } catch { shown = typeof got; }
    if (shown.length > 60) shown = `${shown.slice(0, 57)}...`;
    throw new UsageError(`${this.file}: "${field}" must be ${want}; got ${shown}\n  fix: ${this.fix}`);
  }
  object(v: unknown, field: string): Record<string, unknown> {
    if (!isObject(v)) this.fail(field, 'an object', v);
    return v;
  }
  verdict(v: unknown, field: string): void {
    if (!VERDICTS.includes(v as never)) this.fail(field, 'true, false or "unknown"', v);
  }
  count(v: unknown, field: string, optional = false): void {
    if (optional && v === undefined) return;
    if (!(typeof v === 'number' && Number.isSafeInteger(v) && v >= 0)) this.fail(field, 'a whole number >= 0', v);
  }
  number(v: unknown, field: string, optional = false): void {
    if (optional && v === undefined) return;
    if (!(typeof v === 'number' && Number.isFinite(v))) this.fail(field, 'a finite number', v);
  }
  string(v: unknown, field: string, optional = false): void {
    if (optional && v === undefined) return;
    if (typeof v !== 'string') this.fail(field, 'a string', v);
  }
  strings(v: unknown, field: string): void {
    if (!Array.isArray(v)) this.fail(field, 'a list of strings', v);
    v.forEach((x, i) => this.string(x, `${field}[${i}]`));
  }
  counts(v: unknown, field: string): void {
    if (!Array.isArray(v)) this.fail(field, 'a list of whole numbers', v);
    v.forEach((x, i) => this.count(x, `${field}[${i}]`));
  }
}

/** A check result (the object of docs/history-format.md) as `check --json` writes it (ops, keys and keys_detail may be left out). */
function checkCheckResult(c: Checker, r: Record<string, unknown>, at: string): CheckResult {
  c.verdict(r.valid, `${at}valid`);
  c.string(r.model, `${at}model`);
  c.count(r.ops, `${at}ops`, true);
  c.count(r.keys, `${at}keys`, true);
  c.number(r.elapsed_ms, `${at}elapsed_ms`, true);
  c.string(r.reason, `${at}reason`, true);
  checkAnomalies(c, r.anomalies, `${at}anomalies`);
  const detail = r.keys_detail === undefined ? {} : c.object(r.keys_detail, `${at}keys_detail`);
  for (const [k, d] of Object.entries(detail)) {
    const f = `${at}keys_detail.${k}`;
    const o = c.object(d, f);
    c.verdict(o.valid, `${f}.valid`);
    c.count(o.ops, `${f}.ops`);
    c.string(o.reason, `${f}.reason`, true);
  }
  return r as unknown as CheckResult;
}

/** What a results.json says: a check result of this history, or a run's verdict over all its runs. */
export type StoredResults = { check: CheckResult } | { verdict: Verdict };

/**
 * results.json: a run's results ({"verdict": ...}: `lockpick run`) or a check result ({"valid": ...},
 * also under "result" / "check").
 */
/** A list of anomalies as the checkers write them (type, key, message, processes, lines). */
function checkAnomalies(c: Checker, list: unknown, at: string): Anomaly[] {
  if (!Array.isArray(list)) c.fail(at, 'a list of anomalies', list);
  list.forEach((a, i) => {
    const f = `${at}[${i}]`;
    const o = c.object(a, f);
    c.string(o.type, `${f}.type`);
    c.string(o.key, `${f}.key`);
    c.string(o.message, `${f}.message`);
    c.counts(o.processes, `${f}.processes`);
    c.counts(o.lines, `${f}.lines`);
  });
  return list as Anomaly[];
}

/** A run's results.json: what its resource check found in the minimal run (none when it has no minimal run or no resource record). */
export function minimalResourceAnomalies(raw: Record<string, unknown>, file: string): Anomaly[] {
  const c = new Checker(file, "remove or repair the file; it must be the results.json 'lockpick run' wrote");
  if (raw.minimal === undefined || raw.minimal === null) return [];
  const resource = c.object(raw.minimal, 'minimal').resource;
  if (resource === undefined) return [];
  return checkAnomalies(c, c.object(resource, 'minimal.resource').anomalies, 'minimal.resource.anomalies');
}

/** A counterexample dir's name in its run dir: counterexample/ (the first failure found), counterexample-N/ (the others). */
export const COUNTEREXAMPLE_DIR = /^counterexample(-\d+)?$/;

/**
 * The entry of a results.json's `failures` whose counterexample is the dir named `name`, matched by
 * name: the store may have moved since the run wrote the paths.
 */
export function failureOfDir<F extends { counterexample?: unknown }>(failures: unknown, name: string): F | undefined {
  if (!Array.isArray(failures)) return undefined;
  return (failures as F[]).find((f) => typeof f?.counterexample === 'string' && basename(f.counterexample) === name);
}

/** A counterexample's resource.json (the resource check of its run, ./run-files.ts): its anomalies. */
export function counterexampleResourceAnomalies(raw: unknown, file: string): Anomaly[] {
  const c = new Checker(file, "remove or repair the file; it must be the resource.json 'lockpick run' wrote beside a counterexample's history");
  return checkAnomalies(c, c.object(raw, '(the whole file)').anomalies, 'anomalies');
}

export function checkResultsJson(raw: unknown, file: string): StoredResults {
  const c = new Checker(file, "remove or repair the file; it must be the results.json 'lockpick run' or 'lockpick check --json' wrote (the history alone is enough: it is checked again)");
  const o = c.object(raw, '(the whole file)');
  for (const wrap of ['result', 'check'] as const) {
    if (Object.hasOwn(o, wrap)) return { check: checkCheckResult(c, c.object(o[wrap], wrap), `${wrap}.`) };
  }
  if (Object.hasOwn(o, 'valid')) return { check: checkCheckResult(c, o, '') };
  if (!Object.hasOwn(o, 'verdict')) c.fail('verdict', 'present (a run\'s results) or "valid" (a check result)', undefined);
  c.verdict(o.verdict, 'verdict');
  c.count(o.runs, 'runs', true);
  if (o.gaps !== undefined) c.strings(o.gaps, 'gaps');
  if (o.interrupted !== undefined && typeof o.interrupted !== 'boolean') c.fail('interrupted', 'true or false', o.interrupted);
  return { verdict: o.verdict as Verdict };
}

/** test.json as `lockpick run` writes it: the fields its readers (report, replay, --points-from) rely on. */
export function checkTestJson(raw: unknown, file: string): Record<string, unknown> {
  const c = new Checker(file, "remove or repair the file; it must be the test.json 'lockpick run' wrote");
  const t = c.object(raw, '(the whole file)');
  c.string(t.lock, 'lock', true);
  c.string(t.model, 'model', true);
  if (t.seed !== undefined && !(typeof t.seed === 'number' && Number.isSafeInteger(t.seed))) c.fail('seed', 'a whole number', t.seed);
  if (t.faults !== undefined) c.strings(t.faults, 'faults');
  c.count(t.clients, 'clients', true);
  if (t.lock_spec !== undefined) {
    const s = c.object(t.lock_spec, 'lock_spec');
    if (typeof s.name !== 'string' && typeof s.path !== 'string') c.fail('lock_spec', '{"name": "<lock>"} or {"path": "<module>"}', s);
  }
  if (t.env !== undefined) c.string(c.object(t.env, 'env').kind, 'env.kind');
  if (t.key_prefix !== undefined && t.key_prefix !== null) c.string(t.key_prefix, 'key_prefix');
  if (t.plan !== undefined && t.plan !== null) {
    try { validatePlan(t.plan, file); } catch (e) { throw new UsageError((e as Error).message); } // names the file, the field and the fix
  }
  return t;
}

/** What `lockpick merge` reads of a shard's results.json: its verdict, why not safe, its coverage and distinct failures. */
export interface ShardResults {
  verdict: Verdict;
  interrupted: boolean;
  reason?: string;
  gaps: string[];
  runs: number;
  coverage?: import('./coverage.ts').Coverage;
  failures: { class: string; nature?: 'bug' | 'inherent' | 'unknown'; cause?: string; kinds: string[]; anomalies: string[]; runs: number; counterexample: string; confirmed: boolean }[];
  /** The first violating run as found (an interrupted shard's only record of it): its anomaly types and fault kinds. */
  first?: { anomalies: string[]; kinds: string[] };
}

/** A run's results.json for merging, each field `lockpick merge` relies on checked (exit 2 naming it). */
export function checkShardResults(raw: unknown, file: string): ShardResults {
  const c: Checker = new Checker(file, "it must be the results.json 'lockpick run --shard' wrote; download the shard's run directory again");
  const o = c.object(raw, '(the whole file)');
  c.verdict(o.verdict, 'verdict');
  if (o.interrupted !== undefined && typeof o.interrupted !== 'boolean') c.fail('interrupted', 'true or false', o.interrupted);
  c.string(o.reason, 'reason', true);
  if (o.gaps !== undefined) c.strings(o.gaps, 'gaps');
  c.count(o.runs, 'runs', true);
  let coverage: ShardResults['coverage'];
  if (o.coverage !== undefined) {
    const v = c.object(o.coverage, 'coverage');
    for (const f of ['runs', 'conclusive', 'acquires', 'okAcquires', 'released', 'contended'] as const) c.count(v[f], `coverage.${f}`);
    for (const f of ['faultsApplied', 'inconclusiveReasons', 'lockStats'] as const) {
      const m = v[f] === undefined ? {} : c.object(v[f], `coverage.${f}`);
      for (const [k, n] of Object.entries(m)) c.count(n, `coverage.${f}.${k}`);
    }
    // The fault cells (fault-cells.ts): the cells known and the faults per cell, summed by merge.
    if (v.cells !== undefined) {
      const cells = c.object(v.cells, 'coverage.cells');
      c.strings(cells.known, 'coverage.cells.known');
      for (const [k, n] of Object.entries(c.object(cells.hits, 'coverage.cells.hits'))) c.count(n, `coverage.cells.hits.${k}`);
    }
    if (v.outcomes !== undefined) {   // report/outcomes.ts; absent from a results.json written before they were counted
      const out = c.object(v.outcomes, 'coverage.outcomes');
      for (const f of ['unexplained', 'underFault', 'unansweredWaiters'] as const) if (out[f] !== undefined) c.count(out[f], `coverage.outcomes.${f}`);
      for (const f of ['errors', 'unexplainedErrors'] as const) {
        for (const [k, n] of Object.entries(out[f] === undefined ? {} : c.object(out[f], `coverage.outcomes.${f}`))) c.count(n, `coverage.outcomes.${f}.${k}`);
      }
      for (const [k, x] of Object.entries(out.ops === undefined ? {} : c.object(out.ops, 'coverage.outcomes.ops'))) {
        const o = c.object(x, `coverage.outcomes.ops.${k}`);
        for (const t of ['ok', 'fail', 'info'] as const) c.count(o[t], `coverage.outcomes.ops.${k}.${t}`);
      }
    }
    coverage = v as unknown as ShardResults['coverage'];
  }
  const failures: unknown = o.failures === undefined || o.failures === null ? [] : o.failures;
  if (!Array.isArray(failures)) c.fail('failures', 'a list of failures', failures);
  failures.forEach((f, i) => {
    const at = `failures[${i}]`;
    const x = c.object(f, at);
    c.string(x.class, `${at}.class`);
    if (x.nature !== undefined && !['bug', 'inherent', 'unknown'].includes(x.nature as string)) c.fail(`${at}.nature`, '"bug", "inherent" or "unknown"', x.nature);
    c.string(x.cause, `${at}.cause`, true);
    c.strings(x.kinds, `${at}.kinds`);
    c.strings(x.anomalies, `${at}.anomalies`);
    c.count(x.runs, `${at}.runs`);
    c.string(x.counterexample, `${at}.counterexample`);
    if (typeof x.confirmed !== 'boolean') c.fail(`${at}.confirmed`, 'true or false', x.confirmed);
  });
  let first: ShardResults['first'];
  if (o.first !== undefined && o.first !== null) {
    const f = c.object(o.first, 'first');
    const types = (v: unknown, at: string): string[] => {
      if (!Array.isArray(v)) c.fail(at, 'a list of anomalies', v);
      return v.map((a, i) => { const x = c.object(a, `${at}[${i}]`); c.string(x.type, `${at}[${i}].type`); return x.type as string; });
    };
    const lock = types(c.object(f.check, 'first.check').anomalies, 'first.check.anomalies');
    const res = f.resource === undefined ? [] : types(c.object(f.resource, 'first.resource').anomalies, 'first.resource.anomalies');
    const applied = f.faults === undefined ? {} : c.object(c.object(f.faults, 'first.faults').applied ?? {}, 'first.faults.applied');
    // As failure-class.ts names a class: the lock's anomalies, else the resource's.
    first = { anomalies: [...new Set(lock.length ? lock : res)].sort(), kinds: Object.keys(applied).filter((k) => (applied[k] as number) > 0).sort() };
  }
  return {
    verdict: o.verdict as Verdict, interrupted: o.interrupted === true, reason: o.reason as string | undefined,
    gaps: (o.gaps as string[] | undefined) ?? [], runs: (o.runs as number | undefined) ?? 0, coverage,
    failures: failures as ShardResults['failures'], first,
  };
}
