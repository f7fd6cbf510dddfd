// How the reader thread (./jsonl-worker.ts) hands scanned events to the thread that checks them
// (./jsonl-threaded.ts): batches of BATCH_LINES consecutive lines in SLOTS shared slots, each line
// STRIDE places: first which fields it has (a bit per field, SLOW_LINE for a line sent as text),
// then its fields as a tag and a number (a number itself, or the index of a string or nested
// value sent with the batch's message); a field the line lacks is left as it was, not cleared.
// The reader waits for a free slot (CONSUMED counts the messages taken): memory stays a few MB
// whatever the file's size. When the checking thread is about to run out of messages, the reader
// hands it the next piece of its chunk as bytes to scan itself: the scan, most of the work, is
// shared out between the two as their speeds allow.

/** The fields of an event the scanner reads, in slot order (jsonl-scan.ts numbers them from 1). */
export const FIELDS = ['type', 'f', 'process', 'key', 'value', 'time', 'index', 'lease_ms', 'valid_ms', 'sent_ms', 'mode', 'permits', 'limit'] as const;
export const FIELD_COUNT = FIELDS.length;
/** Places per line: the present-fields mask (in nums), then the fields, numbered from 1. */
export const STRIDE = FIELD_COUNT + 1;
/** The mask of a line the scanner did not take: its text is sent for JSON.parse (bit 0: no field has it). */
export const SLOW_LINE = 1;
export const BATCH_LINES = 32768;
export const SLOTS = 4;

/** Tags: the field is missing (one line read alone), a number, a string, true, false, null, a nested value. */
export const NONE = 0, NUM = 1, STR = 2, TRUE = 3, FALSE = 4, NULL = 5, NESTED = 6;

/** Int32 indices of the control array. */
export const CONSUMED = 0, ABORTED = 1;

export interface Shared { tags: SharedArrayBuffer; nums: SharedArrayBuffer; ctl: SharedArrayBuffer }

export function sharedBatches(): Shared {
  const n = SLOTS * BATCH_LINES * STRIDE;
  return { tags: new SharedArrayBuffer(n), nums: new SharedArrayBuffer(n * 8), ctl: new SharedArrayBuffer(8) };
}

/** Where batch n's lines start in the slot arrays. */
export const slotBase = (n: number): number => (n % SLOTS) * BATCH_LINES * STRIDE;

export interface WorkerInput { path: string; chunkBytes?: number; maxLineBytes?: number; shared: Shared; share: boolean }

/** One batch: `count` lines from `firstLine`; strs, nested and texts are what its STR and NESTED tags and SLOW_LINE masks point into. */
export interface Batch { kind: 'batch'; n: number; count: number; firstLine: number; strs: string[]; nested: unknown[]; texts: string[] }

/** A failure of the reader thread: a HistoryError's parts, a file-system error's code, or a bug. */
export interface ReadFailure {
  kind: 'error';
  message: string;
  history?: { file: string; line: number; rule: string; expected: string; fix: string };
  code?: string;
  stack?: string;
}

/** A chunk's whole lines (checked UTF-8, ending with a newline), the first numbered firstLine, for the checking thread to scan. */
export interface RawLines { kind: 'raw'; bytes: Uint8Array; firstLine: number }

export type FromReader = Batch | RawLines | ReadFailure | { kind: 'end' };
