// One segment of a JSON Lines file scanned into plain numbers, on a parser thread
// (./jsonl-threads.ts): the lines that start in bytes [start, end) (a line that starts before
// `start` belongs to the segment before; the last one is read past `end` to its newline), each
// one record of RECORD numbers: a scanned event's fields (./jsonl-scan.ts) as tag + payload
// (strings as ids into the thread's string table), or a line left to JSON.parse as the id of its
// text. The same rules as forEachLineBytes: strict UTF-8, no line over maxLine; a break of them
// ends the segment with its line (relative to the segment) and what was wrong.
import { readSync } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import { LineScanner } from './jsonl-scan.ts';
import { firstInvalidUtf8, countNewlines } from './utf8.ts';

/**
 * Numbers per line: its kind; for a scanned line type, f and key as string ids (key NaN when
 * absent), process (NaN: "nemesis"), time, value's tag and payload, index, lease_ms, valid_ms
 * (NaN when absent: JSON has no NaN); for a SLOW line the id of its text.
 */
export const RECORD = 11;
/** Line kinds. */
export const SCANNED = 0, SLOW = 1;
/** Field tags. */
export const T_UNDEFINED = 0, T_NUMBER = 1, T_STRING = 2, T_JSON = 3, T_TRUE = 4, T_FALSE = 5, T_NULL = 6;

/** Strings up to this long are kept in the thread's table (types, ops, keys), at most MAX_SHARED of them. */
const MAX_SHARED_LENGTH = 64;
const MAX_SHARED = 100_000;

export interface SegmentResult {
  seg: number;
  /** The records, in the first `used` numbers. */
  records: Float64Array;
  used: number;
  lines: number;
  /** Strings met for the first time on this thread, in id order (ids continue the thread's table). */
  strings: string[];
  /** This segment's own texts (lines left to JSON.parse, nested values, long strings): id -1 - i. */
  texts: string[];
  /** A line breaking the reading rules: its number within the segment (1-based) and what broke. */
  error?: { line: number; kind: 'utf8'; byte: number | undefined } | { line: number; kind: 'too-long' };
}

export class SegmentScanner {
  private readonly scanner = new LineScanner();
  private readonly ids = new Map<string, number>();
  private fresh: string[] = [];
  private texts: string[] = [];
  private buf = Buffer.allocUnsafe(0);

  constructor(private readonly fd: number, private readonly size: number, private readonly maxLine: number) {}

  /** A short string's id in the thread's table (kept for the whole file), else a text of this segment. */
  private id(s: string): number {
    if (s.length > MAX_SHARED_LENGTH || this.ids.size >= MAX_SHARED) return this.text(s);
    let i = this.ids.get(s);
    if (i === undefined) { this.ids.set(s, (i = this.ids.size)); this.fresh.push(s); }
    return i;
  }

  private text(s: string): number {
    this.texts.push(s);
    return -this.texts.length;
  }

  /** Reads bytes [from, to) into this.buf at `at` (growing it), returns how many were read. */
  private read(at: number, from: number, to: number): number {
    const need = at + (to - from);
    if (this.buf.length < need) {
      const bigger = Buffer.allocUnsafe(Math.max(need, this.buf.length * 2));
      this.buf.copy(bigger, 0, 0, at);
      this.buf = bigger;
    }
    let got = 0;
    while (got < to - from) {
      const n = readSync(this.fd, this.buf, at + got, to - from - got, from + got);
      if (n === 0) break;
      got += n;
    }
    return got;
  }

  scan(seg: number, start: number, end: number): SegmentResult {
    this.fresh = [];
    this.texts = [];
    // Bytes [start - 1, end), then on to the newline that ends the last line begun before end.
    const from = Math.max(0, start - 1);
    let len = this.read(0, from, Math.min(end, this.size));
    let first = 0;
    if (start > 0) {
      // Not at a line's start: that line belongs to the segment before.
      const nl = this.buf.indexOf(10, 0);
      first = nl === -1 || nl >= len ? len : nl + 1;
    }
    let stop = len; // lines starting before here are this segment's
    if (first < stop && this.buf[len - 1] !== 10 && from + len < this.size) {
      // Finish the last line: read on up to maxLine past its start.
      const lastStart = this.buf.lastIndexOf(10, len - 1) + 1;
      for (;;) {
        const more = this.read(len, from + len, Math.min(this.size, from + len + 65536));
        if (more === 0) break;
        const nl = this.buf.indexOf(10, len);
        len += more;
        if (nl !== -1 && nl < len) { len = nl + 1; break; }
        if (len - Math.max(lastStart, first) > this.maxLine + 1) break;
      }
      stop = len;
    }
    const buf = this.buf;
    const atEof = from + stop >= this.size;
    this.out = this.spares.pop() ?? new Float64Array(RECORD * 65536);
    this.n = 0;
    let lines = 0;
    let error: SegmentResult['error'];
    // Strict UTF-8 over the segment's lines before any is handed on (as forEachLineBytes per chunk);
    // the lines before a bad byte are still handed on, then the error at its line.
    let validEnd = stop;
    let bad = -1;
    if (first < stop && !isUtf8(buf.subarray(first, stop))) {
      bad = first + firstInvalidUtf8(buf.subarray(first, stop), false);
      validEnd = Math.max(first, buf.lastIndexOf(10, bad - 1) + 1);
    }
    let s = first;
    while (s < validEnd) {
      let nl = buf.indexOf(10, s);
      if (nl === -1 || nl >= validEnd) {
        if (!(atEof && validEnd === stop)) break; // a line longer than the read allowed
        nl = stop;                              // the file's last line, without a newline
      }
      if (nl - s > this.maxLine) break;
      lines++;
      this.line(buf, s, nl);
      s = nl + 1;
    }
    if (s < validEnd) error = { line: lines + 1, kind: 'too-long' };
    else if (bad !== -1) error = { line: lines + 1, kind: 'utf8', byte: bad < stop ? buf[bad] : undefined };
    return { seg, records: this.out, used: this.n, lines, strings: this.fresh, texts: this.texts, ...(error ? { error } : {}) };
  }

  /** Record buffers handed back by the reading thread, to fill again (no new memory per segment). */
  readonly spares: Float64Array[] = [];
  private out: Float64Array = new Float64Array(0);
  private n = 0;
  private line(buf: Buffer, s: number, e: number): void {
    if (this.n + RECORD > this.out.length) {
      const bigger = new Float64Array(this.out.length * 2);
      bigger.set(this.out);
      this.out = bigger;
    }
    const o = this.out, n = this.n;
    this.n += RECORD;
    // The scanner needs the line's '\n' after it; the file's last line may have none (SLOW then).
    if (e < buf.length && buf[e] === 10 && this.scanner.scan(buf, s, e)) {
      const ev = this.scanner.ev;
      const { type, f, process, key } = ev;
      // The usual shape only; anything else (a number for "f", a string for "time"...) is left to
      // JSON.parse on the reading thread, which makes the same values and the same errors.
      if (typeof type === 'string' && typeof f === 'string' && (typeof process === 'number' || process === 'nemesis') &&
        (key === undefined || typeof key === 'string') && numberOrNot(ev.time) && numberOrNot(ev.index) && numberOrNot(ev.lease_ms) && numberOrNot(ev.valid_ms)) {
        o[n] = SCANNED;
        o[n + 1] = this.id(type);
        o[n + 2] = this.id(f);
        o[n + 3] = process === 'nemesis' ? NaN : process as number;
        o[n + 4] = key === undefined ? NaN : this.id(key as string);
        o[n + 5] = ev.time === undefined ? NaN : ev.time as number;
        o[n + 8] = ev.index === undefined ? NaN : ev.index as number;
        o[n + 9] = ev.lease_ms === undefined ? NaN : ev.lease_ms as number;
        o[n + 10] = ev.valid_ms === undefined ? NaN : ev.valid_ms as number;
        const v = ev.value;
        if (v === undefined) o[n + 6] = T_UNDEFINED;
        else if (typeof v === 'number') { o[n + 6] = T_NUMBER; o[n + 7] = v; }
        else if (typeof v === 'string') { o[n + 6] = T_STRING; o[n + 7] = this.id(v); }
        else if (v === true) o[n + 6] = T_TRUE;
        else if (v === false) o[n + 6] = T_FALSE;
        else if (v === null) o[n + 6] = T_NULL;
        else { o[n + 6] = T_JSON; o[n + 7] = this.text(JSON.stringify(v)); }
        return;
      }
    }
    o[n] = SLOW;
    o[n + 1] = this.text(buf.toString('utf8', s, e));
  }
}

const numberOrNot = (v: unknown) => v === undefined || typeof v === 'number';

/** A string of a record: from the thread's table (id >= 0) or the segment's texts (id < 0). */
export function stringOf(id: number, table: readonly string[], texts: readonly string[]): string {
  return id >= 0 ? table[id]! : texts[-1 - id]!;
}
