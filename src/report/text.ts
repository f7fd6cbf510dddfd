// The human summary of a CheckResult: verdict first, then each anomaly in
// plain words with its processes, lines and times. Bounded in size: the first
// few anomalies, then "and N more".
import type { Anomaly, CheckResult } from '../../checkers/types.ts';

export interface TextOptions {
  maxAnomalies?: number;   // default 10
  maxLines?: number;       // lines listed per anomaly, default 12
  /** process → client ('c1'): anomalies then speak of clients, process ids as detail. */
  clients?: ReadonlyMap<number, string>;
  /** Per anomaly, the fault that made it possible (src/report/cause.ts), in words. */
  causes?: readonly (string | undefined)[];
}

/** "process 4's release" → "c2's release" where the client is known (the clients line keeps the ids). */
export function inClientTerms(message: string, clients: ReadonlyMap<number, string> | undefined): string {
  if (!clients?.size) return message;
  // "client c3 (process 37)", the resource check's words, would read "client c3 (c3)": the name once.
  return message.replace(/\bclient (\S+) \(process (\d+)\)/g, (m, c: string, p: string) => (clients.get(Number(p)) === c ? `client ${c}` : m))
    .replace(/\bprocess (\d+)\b/g, (m, p: string) => clients.get(Number(p)) ?? m);
}

const VERDICT: Record<string, string> = { true: 'VALID', false: 'INVALID', unknown: 'UNKNOWN' };

/** Nanoseconds since the run started, as seconds with millisecond precision. */
export function formatTime(ns: number): string {
  return `${(ns / 1e9).toFixed(3)} s`;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function list<T>(items: readonly T[], max: number, show: (x: T) => string): string {
  const shown = items.slice(0, max).map(show).join(', ');
  return items.length > max ? `${shown}, … (${items.length - max} more)` : shown;
}

function formatAnomaly(a: Anomaly, n: number, o: Required<Omit<TextOptions, 'clients' | 'causes'>> & TextOptions): string {
  const where = a.key === '' ? '' : ` on key "${a.key}"`;
  const out = [`  ${n}. ${a.type}${where}: ${inClientTerms(a.message, o.clients)}`];
  const cause = o.causes?.[n - 1];
  if (cause) out.push(`     cause: ${cause}`);
  const named = o.clients?.size ? a.processes.filter((p) => o.clients!.has(p)) : [];
  if (named.length > 0) out.push(`     clients: ${list(a.processes, o.maxLines, (p) => (o.clients!.has(p) ? `${o.clients!.get(p)} (process ${p})` : `process ${p}`))}`);
  else if (a.processes.length > 0) out.push(`     processes: ${list(a.processes, o.maxLines, String)}`);
  if (a.lines.length > 0) out.push(`     lines: ${list(a.lines, o.maxLines, String)}`);
  if (a.times && a.times.length > 0) out.push(`     times: ${list(a.times, o.maxLines, formatTime)}`);
  out.push(...crashStack(a, '     '));
  return out.join('\n');
}

/** A client-crash's stack (checkers/crash.ts), under the anomaly: where the lock's code threw. */
export function crashStack(a: Anomaly, indent: string): string[] {
  if (!a.crash?.stack) return [];
  return [`${indent}stack:`, ...a.crash.stack.split('\n').map((l) => `${indent}  ${l.trim()}`)];
}

export function formatResult(file: string, r: CheckResult, options: TextOptions = {}): string {
  const o = { ...options, maxAnomalies: options.maxAnomalies ?? 10, maxLines: options.maxLines ?? 12 };
  const timing = [r.parse_ms !== undefined ? `parsed in ${r.parse_ms} ms` : '', r.check_ms !== undefined ? `checked in ${r.check_ms} ms` : '']
    .filter(Boolean).join(', ');
  const out = [`${file}: ${VERDICT[String(r.valid)]} under model ${r.model} (${plural(r.ops, 'op')}, ${plural(r.keys, 'key')}${timing ? `; ${timing}` : ''})`];
  if (r.valid === 'unknown') out.push(`  no verdict: ${r.reason ?? 'a time or memory limit was reached'}`);

  const notValid = Object.entries(r.keys_detail).filter(([, d]) => d.valid !== true);
  if (notValid.length > 0 && r.keys > 1) {
    out.push(`  keys not shown valid: ${list(notValid, o.maxLines, ([k, d]) => `"${k}" (${d.valid === false ? 'invalid' : 'unknown'}${d.reason ? `: ${d.reason}` : ''})`)}`);
  }
  if (r.anomalies.length > 0) {
    out.push(`  ${plural(r.anomalies.length, 'anomaly', 'anomalies')}:`);
    r.anomalies.slice(0, o.maxAnomalies).forEach((a, i) => out.push(formatAnomaly(a, i + 1, o)));
    const more = r.anomalies.length - o.maxAnomalies;
    if (more > 0) out.push(`  and ${more} more (use --json to see them all)`);
  }
  return out.join('\n');
}
