// Bounds on reading a history: no line (JSON Lines) or op map (EDN) longer than maxLineBytes,
// so a file with no newline (/dev/zero, a 3 GB line) is an input error naming the line, never a
// buffer that doubles until Node aborts; and an optional limit (time, memory) asked between
// chunks, so --time-limit and --max-memory hold while reading as well as checking.
import { HistoryError } from './errors.ts';

/** The default longest line: far above any real event (a few hundred bytes), far below Node's string limit. */
export const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;
/** The largest --max-line-bytes: a line is decoded to one string on the slow path (Node's limit is ~512 MB). */
export const MAX_MAX_LINE_BYTES = 256 * 1024 * 1024;

export interface ReadOptions {
  /** The longest line / op map, in bytes (default DEFAULT_MAX_LINE_BYTES). */
  maxLineBytes?: number;
  /** Asked between chunks: undefined to go on, else why reading stops (a time or memory limit). */
  limit?: () => string | undefined;
}

/** Reading stopped at a limit (exit 3, no verdict): not an input error. */
export class ReadLimitReached extends Error {
  constructor(readonly file: string, readonly reason: string, readonly line: number) {
    super(`${file}: ${reason} while reading (at line ${line}); no verdict`);
    this.name = 'ReadLimitReached';
  }
}

export function maxLineBytesOf(o: ReadOptions | undefined): number {
  return o?.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
}

export function lineTooLong(file: string, line: number, max: number, what = 'line'): HistoryError {
  return new HistoryError(file, line, 'line-too-long', `${what === 'line' ? 'a line' : `an ${what}`} may be at most ${max} bytes (--max-line-bytes); this one is longer${what === 'line' ? ' (or the file has no newline: is it a history?)' : ''}`,
    `give a history file with one event per line; if the ${what} is really this long, raise --max-line-bytes (at most ${MAX_MAX_LINE_BYTES})`);
}

/** Parses --max-line-bytes: an integer of bytes in [1, MAX_MAX_LINE_BYTES]; a string is the problem. */
export function parseMaxLineBytes(raw: string | undefined): number | undefined | string {
  if (raw === undefined) return undefined;
  const v = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(v) || v < 1 || v > MAX_MAX_LINE_BYTES) {
    return `--max-line-bytes must be a whole number of bytes from 1 to ${MAX_MAX_LINE_BYTES}; got "${raw}"`;
  }
  return v;
}

/**
 * How deep a value (a register value, an error) may nest in an event: far above any real history
 * (Jepsen's are a few levels), low enough that every later walk of a value (canonical text, JSON,
 * the reports) stays far from the stack's end. Deeper is an input error naming the line.
 */
export const MAX_VALUE_DEPTH = 256;

export function tooDeep(file: string, line: number): HistoryError {
  return new HistoryError(file, line, 'too-deep', `a value may nest at most ${MAX_VALUE_DEPTH} levels deep (objects, arrays, EDN collections); this one nests deeper`,
    'flatten the value: an event records what a client saw, not a deep structure');
}

/** A key that would not be an own field of the event in JavaScript (it sets the object's prototype). */
export function protoKey(file: string, line: number, format: 'json' | 'edn'): HistoryError {
  return new HistoryError(file, line, 'proto-key', `the key ${format === 'edn' ? ':__proto__' : '"__proto__"'} is refused in an event, at any depth (JavaScript readers turn it into the object's prototype, so fields would appear or vanish)`,
    'rename the key');
}
