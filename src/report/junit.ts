// JUnit XML for CI: one <testsuite> per checked history, one <testcase> per
// key (or one for the whole history when there is no per-key detail).
//   valid        → a passing testcase
//   invalid      → <failure> carrying every anomaly of that key in plain words
//   unknown      → <error type="unknown">: the checker gave up (time or memory
//                  limit). Deliberately not <skipped>: a CI gate must not turn
//                  green when safety was never established.
import type { Anomaly, CheckResult, Verdict } from '../../checkers/types.ts';
import { noSafetyAnomaly } from '../../checkers/anomaly-kinds.ts';
import { crashStack } from './text.ts';

export interface JUnitEntry { name: string; result: CheckResult; meta?: Record<string, unknown> }

// XML 1.0 forbids most control characters even when escaped; replace them.
const ILLEGAL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function xmlEscape(s: string): string {
  return s.replace(ILLEGAL, '\uFFFD').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);
}

const attrs = (o: Record<string, string | number | undefined>): string =>
  Object.entries(o).filter(([, v]) => v !== undefined).map(([k, v]) => ` ${k}="${xmlEscape(String(v))}"`).join('');
/** Property values stay short: a run's whole plan does not belong in every CI summary. */
const clip = (s: string, max = 300): string => (s.length > max ? `${s.slice(0, max - 1)}…` : s);
const seconds = (ms: number): string => (Math.max(0, ms) / 1000).toFixed(3);

function describe(a: Anomaly): string {
  const where = [
    a.processes.length ? `processes: ${a.processes.join(', ')}` : '',
    a.lines.length ? `lines: ${a.lines.join(', ')}` : '',
    a.times?.length ? `times (ms from run start): ${a.times.map((t) => (t / 1e6).toFixed(3)).join(', ')}` : '',
  ].filter(Boolean).join('; ');
  return [`[${a.type}] ${a.message}${where ? `\n    ${where}` : ''}`, ...crashStack(a, '    ')].join('\n');
}

interface Case { name: string; valid: Verdict; anomalies: Anomaly[]; reason?: string }

/** Testcases of one result: one per key, plus one for anomalies whose key has no detail. */
function casesOf(r: CheckResult): Case[] {
  const keys = Object.keys(r.keys_detail);
  const byKey = new Map<string, Anomaly[]>();
  for (const a of r.anomalies) byKey.set(a.key, [...(byKey.get(a.key) ?? []), a]);
  const label = (k: string): string => (k === '' ? 'key "" (default)' : `key "${k}"`);
  if (keys.length === 0) return [{ name: 'history', valid: r.valid, anomalies: r.anomalies, reason: r.reason }];
  const cases: Case[] = keys.sort().map((k) => {
    const d = r.keys_detail[k]!;
    return { name: label(k), valid: d.valid, anomalies: byKey.get(k) ?? [], reason: d.reason };
  });
  const stray = r.anomalies.filter((a) => !Object.hasOwn(r.keys_detail, a.key));
  if (stray.length) cases.push({ name: 'other anomalies', valid: false, anomalies: stray });
  // A verdict on the whole that no key explains (e.g. the overall time limit).
  if (r.valid !== true && !cases.some((c) => c.valid === r.valid)) cases.push({ name: 'history', valid: r.valid, anomalies: [], reason: r.reason });
  return cases;
}

function caseXml(suite: string, c: Case): string {
  const head = `    <testcase${attrs({ classname: `lockpick.${suite}`, name: c.name })}`;
  if (c.valid === true && c.anomalies.length === 0) return `${head}/>`;
  // Liveness only (a permit leak): the case passes, its anomalies said beside it.
  if (c.valid === true && noSafetyAnomaly(c.anomalies)) return `${head}>\n      <system-out>${xmlEscape(c.anomalies.map(describe).join('\n'))}</system-out>\n    </testcase>`;
  if (c.valid === 'unknown') {
    const msg = `no verdict: ${c.reason ?? 'a time or memory limit was reached before the check finished'}`;
    return `${head}>\n      <error${attrs({ type: 'unknown', message: msg })}>${xmlEscape(msg)}</error>\n    </testcase>`;
  }
  const first = c.anomalies[0];
  const message = first ? `${c.anomalies.length} anomal${c.anomalies.length === 1 ? 'y' : 'ies'}: ${first.message}` : `invalid${c.reason ? `: ${c.reason}` : ''}`;
  const body = c.anomalies.length ? c.anomalies.map(describe).join('\n') : message;
  return `${head}>\n      <failure${attrs({ type: first?.type ?? 'invalid', message })}>${xmlEscape(body)}</failure>\n    </testcase>`;
}

export function renderJUnit(results: JUnitEntry[]): string {
  let tests = 0, failures = 0, errors = 0, totalMs = 0;
  const suites = results.map(({ name, result: r, meta }) => {
    const cases = casesOf(r);
    const f = cases.filter((c) => c.valid === false || (c.valid === true && !noSafetyAnomaly(c.anomalies))).length;
    const e = cases.filter((c) => c.valid === 'unknown').length;
    tests += cases.length; failures += f; errors += e; totalMs += r.elapsed_ms;
    // The verdict's own fields last: a run's description (test.json) cannot overwrite them.
    const props = { ...(meta ?? {}), model: r.model, ops: r.ops, keys: r.keys, valid: String(r.valid) };
    const propXml = Object.entries(props).filter(([, v]) => v !== undefined)
      .map(([k, v]) => `      <property${attrs({ name: k, value: clip(typeof v === 'string' ? v : JSON.stringify(v) ?? String(v)) })}/>`).join('\n');
    return [
      `  <testsuite${attrs({ name, tests: cases.length, failures: f, errors: e, skipped: 0, time: seconds(r.elapsed_ms) })}>`,
      `    <properties>\n${propXml}\n    </properties>`,
      ...cases.map((c) => caseXml(name, c)),
      '  </testsuite>',
    ].join('\n');
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attrs({ name: 'lockpick', tests, failures, errors, skipped: 0, time: seconds(totalMs) })}>`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}

// ---------------------------------------------------------------------------
// The JUnit file of a whole `lockpick run` (store/<lock>/<run-id>/junit.xml, --junit
// PATH): one suite per lock, one testcase per property × fault kinds. Names are
// built only from what the user asked for, never from a run's fresh key names
// (r18-k0) or ids, so a CI server's test history follows them across runs.
//   safe         → a passing testcase
//   unsafe       → <failure>: anomalies in words, resource damage, the shrunk
//                  plan whole, the replay command and the timeline path
//   inconclusive → <error type="inconclusive"> carrying the gaps. Not <skipped>:
//                  publishers hide skipped tests, and exit 3 means no safety
//                  promise; a gate that only warns decides that from the exit code.

export interface RunJUnit {
  lock: string;
  property: 'lock' | 'resource' | 'both' | 'liveness' | 'all';
  faults: string[];
  replay?: boolean;               // `--replay`: the testcase says so (its own history in CI)
  verdict: Verdict;
  interrupted?: boolean;
  elapsedMs: number;
  anomalies: Anomaly[];           // the lock's and the resource's, of the run shown
  resource?: { message: string; lostUpdates: number; staleWritesAccepted: number; staleStepsPrevented: number };
  plan?: string;                  // describePlan() of the shrunk (or replayed) plan
  confirmed?: boolean;
  replayCommand: string;
  timeline?: string;
  gaps: string[];
  tested: string;                 // describeCoverage()
  /** The fault-space coverage line (describeCells: "coverage: 17 of 24 cells (70 %); never hit: …"), said after `tested`. */
  coverageLine?: string;
  properties?: Record<string, unknown>;
  /**
   * Each distinct failure a search reported (bugs of the lock first): with more than one, one
   * testcase each, named by its class (stable across runs), instead of the single one.
   */
  failures?: (Pick<RunJUnit, 'anomalies' | 'resource' | 'plan' | 'timeline' | 'replayCommand'> & { class: string; cause: string; confirmed: boolean })[];
}

/** A run's fresh key names (r18-k0) read as the plan's (k0): stable text across runs. */
export function normaliseKeys(s: string): string {
  return s.replace(/\br\d+-(k\d+)\b/g, '$1');
}

export function runSuiteName(lock: string): string {
  return `lockpick run ${lock}`;
}

export function runCaseName(r: Pick<RunJUnit, 'property' | 'faults' | 'replay'>): string {
  const faults = [...new Set(r.faults)].sort();
  return `property ${r.property} ${faults.length ? `under faults ${faults.join(',')}` : 'without faults'}${r.replay ? ' (replay)' : ''}`;
}

function damage(r: RunJUnit['resource']): string {
  if (!r) return '';
  const parts = [r.lostUpdates ? `${r.lostUpdates} update(s) lost` : '', r.staleWritesAccepted ? `${r.staleWritesAccepted} stale write(s) accepted` : ''].filter(Boolean);
  return parts.join(', ');
}

function failureText(r: RunJUnit): { message: string; body: string } {
  const types = [...new Set(r.anomalies.map((a) => a.type))];
  const hurt = damage(r.resource);
  const message = normaliseKeys(`UNSAFE${r.interrupted ? ' (interrupted, not shrunk)' : ''}: ${r.anomalies.length} anomal${r.anomalies.length === 1 ? 'y' : 'ies'}${types.length ? ` (${types.join(', ')})` : ''}${hurt ? `; ${hurt}` : ''}`);
  const lines = [message, '', `anomalies:`];
  r.anomalies.forEach((a, i) => lines.push(`  ${i + 1}. ${a.type}${a.key ? ` on key "${a.key}"` : ''}: ${a.message}`, ...crashStack(a, '     ')));
  if (r.resource) {
    lines.push('', `resource: ${r.resource.message.replace(/^resource: /, '')}`);
    lines.push(`  lost updates: ${r.resource.lostUpdates}, stale writes accepted: ${r.resource.staleWritesAccepted}, stale steps rejected by fencing: ${r.resource.staleStepsPrevented}`);
  }
  if (r.plan) {
    const conf = r.confirmed === undefined ? '' : r.confirmed ? ' (broke the lock again each time it was run: kept only so)' : ' (not seen again on a confirmation run: timing-sensitive, replay with --runs 5)';
    lines.push('', `${r.replay ? 'replayed plan' : 'minimal schedule'}${conf}:`, r.plan);
  }
  lines.push('', `replay:   ${r.replayCommand}`);
  if (r.timeline) lines.push(`timeline: ${r.timeline}`);
  lines.push(`tested:   ${r.tested}`);
  if (r.coverageLine) lines.push(r.coverageLine);
  return { message, body: normaliseKeys(lines.join('\n')) };
}

export function renderRunJUnit(r: RunJUnit): string {
  const suite = runSuiteName(r.lock);
  const time = seconds(r.elapsedMs);
  const head = `    <testcase${attrs({ classname: suite, name: runCaseName(r), time })}`;
  let testcase: string;
  let failures = 0, errors = 0;
  if (r.verdict === false && r.failures && r.failures.length > 1) {
    failures = r.failures.length;
    testcase = r.failures.map((x) => {
      const f = failureText({ ...r, ...x });
      const message = `${f.message}: ${x.cause}`;
      return `    <testcase${attrs({ classname: suite, name: `${runCaseName(r)}: ${x.class}`, time })}>\n      <failure${attrs({ type: 'unsafe', message })}>${xmlEscape(`${x.cause}\n\n${f.body}`)}</failure>\n    </testcase>`;
    }).join('\n');
  } else if (r.verdict === false) {
    failures = 1;
    const f = failureText(r);
    // One failure classed by cause: its words lead, as in the text report.
    const cause = r.failures?.length === 1 ? r.failures[0]!.cause : undefined;
    testcase = `${head}>\n      <failure${attrs({ type: 'unsafe', message: cause ? `${f.message}: ${cause}` : f.message })}>${xmlEscape(cause ? `${cause}\n\n${f.body}` : f.body)}</failure>\n    </testcase>`;
  } else if (r.verdict === 'unknown') {
    errors = 1;
    const why = r.interrupted ? ['interrupted before a verdict'] : r.gaps.length ? r.gaps : ['no verdict'];
    const message = `INCONCLUSIVE: ${why[0]}`;
    const body = [`INCONCLUSIVE: no violation, but no safety promise either:`, ...why.map((g) => `  - ${g}`), '', `tested:   ${r.tested}`, ...(r.coverageLine ? [r.coverageLine] : []), `replay:   ${r.replayCommand}`].join('\n');
    testcase = `${head}>\n      <error${attrs({ type: r.interrupted ? 'interrupted' : 'inconclusive', message })}>${xmlEscape(normaliseKeys(body))}</error>\n    </testcase>`;
  } else {
    testcase = `${head}>\n      <system-out>${xmlEscape(`SAFE: ${r.tested}${r.coverageLine ? `\n${r.coverageLine}` : ''}`)}</system-out>\n    </testcase>`;
  }
  const props = { lock: r.lock, property: r.property, faults: r.faults.join(',') || 'none', replay: r.replayCommand, timeline: r.timeline, ...(r.properties ?? {}) };
  const propXml = Object.entries(props).filter(([, v]) => v !== undefined && v !== null)
    .map(([k, v]) => `      <property${attrs({ name: k, value: clip(typeof v === 'string' ? v : JSON.stringify(v) ?? String(v)) })}/>`).join('\n');
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attrs({ name: 'lockpick', tests: Math.max(1, failures), failures, errors, skipped: 0, time })}>`,
    `  <testsuite${attrs({ name: suite, tests: Math.max(1, failures), failures, errors, skipped: 0, time })}>`,
    `    <properties>\n${propXml}\n    </properties>`,
    testcase,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
