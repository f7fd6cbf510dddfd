// JUnit XML for CI: one <testsuite> per checked history, one <testcase> per
// key (or one for the whole history when there is no per-key detail).
//   valid        → a passing testcase
//   invalid      → <failure> carrying every anomaly of that key in plain words
//   unknown      → <error type="unknown">: the checker gave up (time or memory
//                  limit). Deliberately not <skipped>: a CI gate must not turn
//                  green when safety was never established.
import type { Anomaly, CheckResult, Verdict } from '../../checkers/types.ts';

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
  return `[${a.type}] ${a.message}${where ? `\n    ${where}` : ''}`;
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
  const stray = r.anomalies.filter((a) => !(a.key in r.keys_detail));
  if (stray.length) cases.push({ name: 'other anomalies', valid: false, anomalies: stray });
  // A verdict on the whole that no key explains (e.g. the overall time limit).
  if (r.valid !== true && !cases.some((c) => c.valid === r.valid)) cases.push({ name: 'history', valid: r.valid, anomalies: [], reason: r.reason });
  return cases;
}

function caseXml(suite: string, c: Case): string {
  const head = `    <testcase${attrs({ classname: `lockpick.${suite}`, name: c.name })}`;
  if (c.valid === true && c.anomalies.length === 0) return `${head}/>`;
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
    const f = cases.filter((c) => c.valid === false || (c.valid === true && c.anomalies.length > 0)).length;
    const e = cases.filter((c) => c.valid === 'unknown').length;
    tests += cases.length; failures += f; errors += e; totalMs += r.elapsed_ms;
    const props = { model: r.model, ops: r.ops, keys: r.keys, valid: String(r.valid), ...(meta ?? {}) };
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
