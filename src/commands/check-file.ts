// One history file checked (`lockpick check`): read, checked against the model, and its outcome
// in every form the command prints (text, the --json object, the exit code). Run on this thread
// or on the second one that shares a call's files (./check-files.ts).
import { Budget } from '../../checkers/budget.ts';
import { CheckInputError } from '../../checkers/index.ts';
import { checkHistoryOnThreads } from '../../checkers/threads.ts';
import type { Backend, CheckResult } from '../../checkers/types.ts';
import { EXIT } from '../errors.ts';
import { HistoryError, ReaderBug } from '../history/errors.ts';
import { ReadLimitReached } from '../history/limits.ts';
import { detectFormat, readHistory } from '../history/read-history.ts';
import { CheckerBug, checkJsonlStreaming, streams } from '../../checkers/stream.ts';
import { formatResult } from '../report/text.ts';
import { limitedReading, readLimitResult } from '../../checkers/read-limit.ts';

/** What checking one file comes to. bug: a checker bug's stack, for standard error (exit 4). */
export interface FileOutcome { code: number; json: unknown; text: string; toStderr: boolean; bug?: string }

/** The options of one `lockpick check` call that every file is checked with. */
export interface CheckFileOptions { model: string; backend: Backend | undefined; timeLimitMs: number | undefined; maxMemoryBytes: number | undefined; maxLineBytes: number | undefined }

export async function checkFile(file: string, o: CheckFileOptions): Promise<FileOutcome> {
  const { model, backend, timeLimitMs, maxMemoryBytes, maxLineBytes } = o;
  const t0 = performance.now();
  const options = { model, backend, timeLimitMs, maxMemoryBytes };
  // The limits hold while reading too: the reader asks between chunks.
  const budget = new Budget(timeLimitMs, maxMemoryBytes);
  const read = limitedReading(budget, timeLimitMs !== undefined || maxMemoryBytes !== undefined, maxLineBytes);
  let result: CheckResult;
  let t1: number;
  // A lock model on JSON Lines: read and swept in one pass, memory bounded by what is in flight.
  const streaming = streams(options) && await detectFormat(file).then((f) => f === 'jsonl', () => false);
  if (streaming) {
    try {
      result = await checkJsonlStreaming(file, options, undefined, read);
    } catch (e) {
      if (e instanceof CheckerBug) return internalError(file, model, e.bug, Math.round(performance.now() - t0));
      if (e instanceof ReaderBug) return internalError(file, model, e, Math.round(performance.now() - t0));
      return badInput(file, e);
    }
    t1 = performance.now();
    result.parse_ms = Math.round(t1 - t0); // reading and sweeping, interleaved
  } else {
    let history;
    try {
      history = await readHistory(file, read);
    } catch (e) {
      if (e instanceof ReadLimitReached) return readLimit(file, model, e, Math.round(performance.now() - t0));
      if (e instanceof ReaderBug) return internalError(file, model, e, Math.round(performance.now() - t0));
      return badInput(file, e);
    }
    t1 = performance.now();
    try {
      // What is left of the time limit after reading.
      result = await checkHistoryOnThreads(history, timeLimitMs === undefined ? options : { ...options, timeLimitMs: Math.max(1, timeLimitMs - (t1 - t0)) });
    } catch (e) {
      if (!(e instanceof CheckInputError)) return internalError(file, model, e, Math.round(t1 - t0));
      return badInput(file, e);
    }
    result.parse_ms = Math.round(t1 - t0);
  }
  const t2 = performance.now();
  result.check_ms = Math.round(t2 - t1);
  result.elapsed_ms = Math.round(t2 - t0);
  const code = result.valid === true ? EXIT.ok : result.valid === false ? EXIT.invalid : EXIT.unknown;
  return { code, toStderr: false, text: formatResult(file, result), json: { file, ...result } };
}

/** A limit reached while reading: no verdict (exit 3), with how far the reading got. */
function readLimit(file: string, model: string, e: ReadLimitReached, ms: number): FileOutcome {
  const result = readLimitResult(model, e, ms);
  return { code: EXIT.unknown, toStderr: false, text: formatResult(file, result), json: { file, ...result } };
}

/** A file that breaks docs/history-format.md, a history the model cannot read (exit 2), or a file that cannot be read at all. */
function badInput(file: string, e: unknown): FileOutcome {
  if (e instanceof HistoryError || e instanceof CheckInputError) {
    // CheckInputError: the history is well formed but the model cannot read it (e.g. a register op under a lock model).
    return {
      code: EXIT.usage, toStderr: true, text: `lockpick check: ${e.message}`,
      json: { file, error: { line: e.line, rule: e.rule, expected: e.expected, fix: e.fix } },
    };
  }
  const err = e as NodeJS.ErrnoException;
  const why = err.code === 'ENOENT' ? 'no such file' : err.code === 'EISDIR' ? 'is a directory' : err.message;
  return {
    code: EXIT.usage, toStderr: true, text: `lockpick check: cannot read ${file}: ${why}\n  fix: give the path of a history file (.jsonl or .edn)`,
    json: { file, error: { line: 0, rule: 'unreadable', expected: why, fix: 'give the path of a history file (.jsonl or .edn)' } },
  };
}

/**
 * A bug in a checker is no verdict, never a made-up one: exit 4 (internal error), not 1 (which
 * would read as "your lock is unsafe") nor 3. The stack goes to stderr for the bug report (the caller prints it).
 */
function internalError(file: string, model: string, e: unknown, parseMs: number): FileOutcome {
  const reason = `internal error in the checker (a lockpick bug, please report it): ${(e as Error)?.message ?? String(e)}`;
  const result: CheckResult = { valid: 'unknown', model, ops: 0, keys: 0, anomalies: [], keys_detail: {}, elapsed_ms: parseMs, parse_ms: parseMs, reason };
  return { code: EXIT.internal, toStderr: false, text: formatResult(file, result), json: { file, ...result }, bug: (e as Error)?.stack ?? String(e) };
}

