// What a checker returns, and the Porcupine-style model interface.
import type { Op } from '../src/history/types.ts';
import type { AnomalyType } from './anomaly-kinds.ts';

export type Verdict = true | false | 'unknown';

export interface Anomaly {
  type: AnomalyType;
  key: string;
  processes: number[];
  lines: number[];           // 1-based source lines that show it
  times?: number[];          // ns, when known
  message: string;           // plain words a person understands at a glance
  ops?: number[];            // Op ids of the shortest window that shows it (nonlinearizable)
  /** client-crash: the client, where it was, the error and its stack, the fault before it (checkers/crash.ts). */
  crash?: import('./crash.ts').CrashDetail;
}

export interface KeyDetail { valid: Verdict; ops: number; reason?: string }

export interface CheckResult {
  valid: Verdict;
  model: string;
  ops: number;
  keys: number;
  anomalies: Anomaly[];
  keys_detail: Record<string, KeyDetail>;
  elapsed_ms: number;
  parse_ms?: number;
  check_ms?: number;
  reason?: string;           // why 'unknown' (time or memory limit)
}

/**
 * The kind of server a lock runs on (a registered topology's backend word: 'redis', 'zookeeper',
 * 'mysql', ...): anomaly messages name causes in the words that topology declares (TopologyDef.words).
 */
export type Backend = string;

export interface CheckOptions {
  model: string;             // model name (default 'mutex')
  /** For the words of stale-unlock anomalies; default: the history's run-start record, else neutral words. */
  backend?: Backend;
  timeLimitMs?: number;      // give 'unknown' past this
  maxMemoryBytes?: number;   // give 'unknown' past this
}

/** Returned by Model.step when the op cannot happen in state s. */
export interface Inconsistent { inconsistent: true; reason: string }

/** A sequential specification: pure functions, nothing else (after Porcupine). */
export interface Model<S> {
  readonly name: string;
  readonly description: string;
  init(): S;
  /** Apply op (an ok, or an info that is assumed to take effect) to s. */
  step(s: S, op: Op): S | Inconsistent;
  /** Independent sub-histories; usually op.key. */
  partition(op: Op): string;
  /** A stable string for memoisation (equal states ⇒ equal strings). */
  hash(s: S): string;
  describe(s: S): string;
}
