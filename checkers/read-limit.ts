// A check's limits (time, memory) while the history is still being read: the
// reading asks the budget between chunks, and a limit reached there is the verdict
// "unknown" (exit 3), with how far the reading got. Shared by `lockpick check` and
// the library's checkHistory.
import type { ReadLimitReached, ReadOptions } from '../src/history/index.ts';
import type { Budget } from './budget.ts';
import type { CheckResult } from './types.ts';

/** The verdict "unknown" of a limit reached while reading (also the library's checkHistory). */
export function readLimitResult(model: string, e: ReadLimitReached, ms: number): CheckResult {
  const reason = `${e.reason} while reading the history (stopped at line ${e.line})`;
  return { valid: 'unknown', model, ops: 0, keys: 0, anomalies: [], keys_detail: {}, elapsed_ms: ms, parse_ms: ms, reason };
}

/** ReadOptions that make the limits of a check hold while reading (asked between chunks). */
export function limitedReading(budget: Budget, limited: boolean, maxLineBytes?: number): ReadOptions {
  return { maxLineBytes, limit: limited ? () => budget.check() : undefined };
}
