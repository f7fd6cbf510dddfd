// A client whose process crashed on the lock's own code: a robustness failure of the lock (its
// library takes the service down when a server restarts or a link is cut). The runner records the
// crash as a nemesis event (src/runner/clients.ts, docs/history-format.md: nemesis events may carry fields of
// their own):
//   {"process":"nemesis","type":"info","f":"client-crash","value":{"client":"c1","process":4,
//    "during":"acquire"|"release"|"renew"|"holding"|"between","key":"r1-k0","origin":"lock",
//    "error":"first line","stack":"first lines"}}
// Each one with origin "lock" is a `client-crash` anomaly, with the fault that preceded it: the
// latest `<kind>-start` or `<kind>-step` before it (or a start begun before it and recorded after
// it). A crash of lockpick's own code (origin "lockpick") is no anomaly: the runner makes that run
// inconclusive instead. Read from the nemesis events alone, in file order, so `lockpick check`
// and `report` of a stored history find it as the run did.
import type { NemesisEvent } from '../src/history/types.ts';
import type { Anomaly, CheckResult } from './types.ts';

export const CLIENT_CRASH = 'client-crash';

/** What an anomaly of this kind carries beyond the common fields (results.json, the reports). */
export interface CrashDetail {
  client: string;
  during: string;
  error: string;
  /** Where the lock's code threw; none when the lock's own process ended (a process client). */
  stack?: string;
  /** A process client's stderr, in the run dir (its last words). */
  log?: string;
  /** The fault that preceded the crash in the run, if any: its kind, words and line. */
  fault?: { kind: string; words: string; line: number; time?: number };
}

const obj = (v: unknown): Record<string, unknown> => (v !== null && typeof v === 'object' && !Array.isArray(v) ? v as Record<string, unknown> : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** "during its acquire", "while holding the lock", "between its operations". */
export function duringWords(during: string): string {
  if (during === 'holding') return 'while holding the lock';
  if (during === 'between') return 'between its operations';
  return `during its ${during}`;
}

/** A fault's start or step event in words: "kill of n1", "partition: cut c1 off (grudge ...)". */
function faultWords(kind: string, phase: string, v: Record<string, unknown>): string {
  const target = v.target === undefined ? '' : typeof v.target === 'string' ? ` of ${v.target}` : ` of ${JSON.stringify(v.target)}`;
  const client = v.target === undefined && typeof v.client === 'string' ? ` of ${v.client}` : '';
  const params = v.params && Object.keys(obj(v.params)).length ? ` (${Object.entries(obj(v.params)).map(([k, x]) => `${k} ${typeof x === 'string' ? x : JSON.stringify(x)}`).join(', ')})` : '';
  if (phase === 'step') return `${kind}${target}${client}: ${str(v.step) ?? 'a step'}`;
  return `${kind}${target}${client}${params}`;
}

/** Fed a history's nemesis events in file order; says the client-crash anomalies among them. */
export class CrashScan {
  private last: CrashDetail['fault'];
  /** When the latest fault began: its start's `began`, else its record's time. */
  private lastAt = -Infinity;
  readonly anomalies: Anomaly[] = [];
  /**
   * This run's crashes, with when their fault began: a fault's start record is written when its
   * start is done, and what the start did (a cut closing connections) may crash a client first.
   * A start record whose `began` (nemesis/fault.ts) is at or before a crash, and after the fault
   * that crash was given, preceded it more closely.
   */
  private crashes: { at: number; faultAt: number; n: NemesisEvent; v: Record<string, unknown> }[] = [];

  feed(n: NemesisEvent): void {
    const v = obj(n.value);
    const m = /^(.+)-(start|step)$/.exec(n.f);
    if (m && m[1] !== 'run') {
      this.last = { kind: m[1]!, words: faultWords(m[1]!, m[2]!, v), line: n.line, ...(n.time !== undefined ? { time: n.time } : {}) };
      const began = m[2] === 'start' && typeof v.began === 'number' ? v.began : undefined;
      this.lastAt = began ?? n.time ?? this.lastAt;
      if (began !== undefined) this.adopt(began);
      return;
    }
    if (n.f === 'run-start') { this.last = undefined; this.lastAt = -Infinity; this.crashes = []; return; }   // a fault of an earlier run did not precede this run's crash
    if (n.f !== CLIENT_CRASH || v.origin !== 'lock') return;
    if (n.time !== undefined) this.crashes.push({ at: this.anomalies.length, faultAt: this.last ? this.lastAt : -Infinity, n, v });
    this.anomalies.push(crashAnomaly(n, v, this.last));
  }

  /** The crashes since this fault's start began, and after the fault they were given, are its doing. */
  private adopt(began: number): void {
    for (const c of this.crashes) {
      if (c.n.time! < began || began <= c.faultAt) continue;
      this.anomalies[c.at] = crashAnomaly(c.n, c.v, this.last);
      c.faultAt = began;
    }
  }
}

function crashAnomaly(n: NemesisEvent, v: Record<string, unknown>, fault: CrashDetail['fault']): Anomaly & { crash: CrashDetail } {
  const client = str(v.client) ?? 'a client';
  const during = str(v.during) ?? 'between';
  const error = str(v.error) ?? 'an uncaught error';
  // A process client that ended by itself: no stack of its own (only lockpick's reading of the exit); its words are in its log.
  const exited = v.source === 'process';
  const log = str(v.log);
  const stack = exited ? undefined : str(v.stack) ?? error;
  const process = typeof v.process === 'number' ? v.process : undefined;
  const at = n.time !== undefined ? ` at ${(n.time / 1e9).toFixed(3)} s` : '';
  const after = fault ? `, after ${fault.words} (line ${fault.line})` : ', with no fault before it';
  return {
    type: CLIENT_CRASH,
    key: str(v.key) ?? '',
    processes: process === undefined ? [] : [process],
    lines: [n.line],
    ...(n.time !== undefined ? { times: [n.time] } : {}),
    message: exited
      ? `${client}'s lock process ended ${duringWords(during)}${at}${after}: ${error}; it was not asked to (its stderr: ${log ?? `the client's log`}): the lock takes down the service that uses it`
      : `${client}'s process crashed ${duringWords(during)}${at}${after}: ${error}, thrown by the lock's own code (its module or client library) where nothing caught it: the lock takes down the service that uses it`,
    crash: { client, during, error, ...(stack !== undefined ? { stack } : {}), ...(log !== undefined ? { log } : {}), ...(fault ? { fault } : {}) },
  };
}

/** The client-crash anomalies of a history's nemesis events. */
export function crashAnomalies(nemesis: Iterable<NemesisEvent>): Anomaly[] {
  const scan = new CrashScan();
  for (const n of nemesis) scan.feed(n);
  return scan.anomalies;
}

/** A check's result with the run's own anomalies added (crashes, phantom grants): each is a violation whatever the keys said. */
export function withCrashes(r: CheckResult, crashes: readonly Anomaly[]): CheckResult {
  return crashes.length === 0 ? r : { ...r, valid: false, anomalies: [...r.anomalies, ...crashes] };
}
