// One pass over the bytes of a JSON Lines event, extracting only the fields the history rules
// and the models read (type, f, process, key, value, time, index, lease_ms, valid_ms, sent_ms, mode, permits, limit), without building a
// string per line or an object per event. It accepts only lines it is sure JSON.parse would
// accept and read the same way: plain ASCII strings without escapes, integers of at most 15
// digits, true/false/null, nested values handed to JSON.parse. Anything else (escapes, non-ASCII
// strings, fractions, exponents, bad syntax) returns false and the caller parses the line with
// JSON.parse, so the values and every error message stay exactly those of JSON.parse. A line with
// a duplicate key or a "__proto__" key (at any depth) also returns false: the slow path refuses it (./json-dupes.ts).

/** The fields of one event; reused from line to line (HistoryBuilder.add keeps none of it). */
export interface ScannedEvent {
  type: unknown; f: unknown; process: unknown; key: unknown;
  value: unknown; time: unknown; index: unknown; lease_ms: unknown; valid_ms: unknown; sent_ms: unknown;
  mode: unknown; permits: unknown; limit: unknown;
}

import { keyProblem } from './json-dupes.ts';
import { FALSE, NESTED, NULL, NUM, STR, TRUE } from './jsonl-batch.ts';

const QUOTE = 34, BACKSLASH = 92, COMMA = 44, COLON = 58, LBRACE = 123, RBRACE = 125, LBRACKET = 91, RBRACKET = 93, MINUS = 45;

/** Field ids by name; 0 is "a field the models ignore". */
const FIELDS = ['', 'type', 'f', 'process', 'key', 'value', 'time', 'index', 'lease_ms', 'valid_ms', 'sent_ms', 'mode', 'permits', 'limit'] as const;
const FIELD_BYTES = FIELDS.map((s) => Buffer.from(s, 'latin1'));

/** The id of the field name buf[from, from + len) in FIELDS, or 0 for one the models ignore. */
function fieldId(buf: Buffer, from: number, len: number): number {
  const c0 = buf[from];
  let id: number;
  switch (len) {
    case 1: return c0 === 102 /* f */ ? 2 : 0;
    case 3: id = 4; break;                              // key
    case 4: id = c0 === 109 /* m */ ? 11 : buf[from + 1] === 121 /* y */ ? 1 : 6; break; // mode, type, time
    case 5: id = c0 === 118 /* v */ ? 5 : c0 === 108 /* l */ ? 13 : 7; break; // value, limit, index
    case 7: id = c0 === 115 /* s */ ? 10 : buf[from + 1] === 101 /* e */ ? 12 : 3; break; // sent_ms, permits, process
    case 8: id = c0 === 118 /* v */ ? 9 : 8; break;     // valid_ms, lease_ms
    default: return 0;
  }
  const name = FIELD_BYTES[id]!;
  for (let k = 0; k < len; k++) if (buf[from + k] !== name[k]) return 0;
  return id;
}

/** A field's id by its name's first two bytes (the second of "f" is its closing quote); valid_ms shares "va" with value. */
const BY_FIRST_TWO = new Uint8Array(1 << 16);
for (let id = 1; id < FIELDS.length; id++) if (id !== 9) { const b = FIELD_BYTES[id]!; BY_FIRST_TWO[(b[0]! << 8) | (b.length > 1 ? b[1]! : QUOTE)] = id; }

/**
 * Each field's `name":` (its closing quote and the colon) as little-endian 32-bit words, compared
 * four bytes at a time (a DataView read is about a quarter of the cost of four byte reads): the
 * first four bytes, the last four (overlapping), and bytes 4–7 for the longer names.
 */
const PAT_LEN = new Int32Array(FIELDS.length);
const PAT_W0 = new Int32Array(FIELDS.length);
const PAT_W1 = new Int32Array(FIELDS.length);
const PAT_W2 = new Int32Array(FIELDS.length);
for (let id = 1; id < FIELDS.length; id++) {
  const b = Buffer.from(`${FIELDS[id]!}":`, 'latin1');
  PAT_LEN[id] = b.length;
  PAT_W0[id] = b.length < 4 ? b[0]! | (b[1]! << 8) | (b[2]! << 16) : b.readInt32LE(0);
  PAT_W1[id] = b.length < 4 ? 0 : b.readInt32LE(b.length - 4);
  PAT_W2[id] = b.length > 8 ? b.readInt32LE(4) : 0;
}
/** The low n bytes of a word (n < 4). */
const LOW_BYTES = [0, 0xff, 0xffff, 0xffffff];
/**
 * Line starts remembered (`{"type":"invoke","f":"acquire",`: the two fields every event begins
 * with, as a writer that always writes them first writes them), by a hash of two words of the
 * line: a line that begins the same is matched word by word and both fields taken at once.
 */
const HEAD_SLOTS = 32;
const MAX_HEAD = 64;
const HEAD_WORDS = MAX_HEAD >> 2;
/** `{"type":"` + `","f":"` + `",`: a remembered start's bytes beside its two strings. */
const HEAD_TEXT = 18;
/** The slot of the line start at `start` (two words: the type's first bytes, and bytes 22–25, which tell the f of each usual type apart). */
const headSlot = (dv: DataView, start: number): number =>
  ((Math.imul(dv.getInt32(start + 9, true), 0x9e3779b1) ^ Math.imul(dv.getInt32(start + 22, true), 0x85ebca6b)) >>> 27);
/** Stores the len bytes at `from` into words[w…] as 32-bit words, the last masked to the length (the memory after them is readable: WORD_ROOM). */
function storeWords(dv: DataView, from: number, len: number, words: Int32Array, w: number): void {
  const whole = len >> 2;
  for (let k = 0; k < whole; k++) words[w + k] = dv.getInt32(from + 4 * k, true);
  if ((len & 3) !== 0) words[w + whole] = dv.getInt32(from + 4 * whole, true) & LOW_BYTES[len & 3]!;
}

/** Whether the len bytes at `from` are those storeWords kept in words[w…]. */
function sameWords(dv: DataView, from: number, len: number, words: Int32Array, w: number): boolean {
  const whole = len >> 2;
  let k = 0;
  while (k < whole && dv.getInt32(from + 4 * k, true) === words[w + k]) k++;
  return k === whole && ((len & 3) === 0 || (dv.getInt32(from + 4 * k, true) & LOW_BYTES[len & 3]!) === words[w + k]);
}

/** A hash of the len bytes at `from`, word by word (the last masked to the length, as storeWords keeps it). */
function wordsHash(dv: DataView, from: number, len: number): number {
  const whole = len >> 2;
  let h = len;
  for (let k = 0; k < whole; k++) h = Math.imul(h ^ dv.getInt32(from + 4 * k, true), 0x9e3779b1);
  if ((len & 3) !== 0) h = Math.imul(h ^ (dv.getInt32(from + 4 * whole, true) & LOW_BYTES[len & 3]!), 0x9e3779b1);
  return (h ^ (h >>> 16)) >>> 0;
}

/** A predicted string compared as words when it and its closing quote fit in three. */
const MAX_WORD_STRING = 11;
/**
 * How far past a line's '\n' the word reads may look: a caller's buffer with this much room after
 * its bytes (bufferWithRoom) is read in place; a line whose '\n' is closer than this to the end of
 * its buffer's memory is copied first.
 */
export const WORD_ROOM = 16;

/** A buffer of `length` bytes whose memory goes on WORD_ROOM bytes past its end (the scanner's word reads). */
export function bufferWithRoom(length: number): Buffer {
  return Buffer.allocUnsafeSlow(length + WORD_ROOM).subarray(0, length);
}

const PROTO = Buffer.from('__proto__', 'latin1');
/** The field name buf[from, from + len) is "__proto__" (refused by the slow path). */
function isProto(buf: Buffer, from: number, len: number): boolean {
  return len === 9 && buf.compare(PROTO, 0, 9, from, from + 9) === 0;
}

/** Interned short strings: the same f or key on a million lines is one string, made once. */
const CACHE_SLOTS = 1024;
/** Field names the models ignore that one line may have before the scanner leaves the line to JSON.parse. */
const MAX_OTHER_FIELDS = 8;
/** Nested values remembered by their bytes ({"lost":true} on every other release, a cas's [1,2], parsed once each). */
const NESTED_BITS = 7;
const NESTED_SLOTS = 1 << NESTED_BITS;
const MAX_NESTED_BYTES = 256;

export class LineScanner {
  readonly ev: ScannedEvent = { type: undefined, f: undefined, process: undefined, key: undefined, value: undefined, time: undefined, index: undefined, lease_ms: undefined, valid_ms: undefined, sent_ms: undefined, mode: undefined, permits: undefined, limit: undefined };
  private readonly cache: (string | undefined)[] = new Array(CACHE_SLOTS).fill(undefined);
  private buf: Buffer = Buffer.alloc(0);
  private pos = 0;
  private end = 0;
  /** Where the ignored field names of the current line start and end (to see a duplicate). */
  private readonly otherFrom = new Int32Array(MAX_OTHER_FIELDS);
  private readonly otherTo = new Int32Array(MAX_OTHER_FIELDS);
  /** Nested values by their bytes (checked once: JSON.parse and no duplicate key), as words (the last masked to the length); values are shared, never changed. */
  private readonly nestedLen = new Int32Array(NESTED_SLOTS);
  private readonly nestedWords = new Int32Array(NESTED_SLOTS * (MAX_NESTED_BYTES >> 2));
  private readonly nestedValue: unknown[] = new Array(NESTED_SLOTS).fill(undefined);
  private nestedFlip = false;
  /**
   * Batch mode (the reader thread, ./jsonl-worker.ts; ./jsonl-batch.ts): each line's fields go to
   * tags and nums from `at` on, a string as its id in `strs` (the strings of the current batch,
   * each sent once per batch), a nested value as its index in batchNested. newBatch() starts the next batch.
   */
  private bt: Uint8Array<ArrayBufferLike> | null = null;
  private bn: Float64Array<ArrayBufferLike> = new Float64Array(0);
  at = 0;
  strs: string[] = [];
  batchNested: unknown[] = [];
  private sid = 0;
  private epoch = 1;
  private readonly slotEpoch: Int32Array;
  private readonly slotId: Int32Array;

  private readonly batchIds: boolean;
  /** By field and first byte: the string last read there, its batch and id in that batch (scanLine's first guess). */
  private readonly predicted: (string | undefined)[] = new Array(FIELDS.length << 7).fill(undefined);
  private readonly predictedEpoch = new Int32Array(FIELDS.length << 7);
  private readonly predictedId = new Int32Array(FIELDS.length << 7);
  /** The predicted string with its closing quote as words, as PAT_* holds the names: its length (0: compare by bytes) and three words. */
  private readonly predLen = new Int32Array(FIELDS.length << 7);
  private readonly predW = new Int32Array(3 * (FIELDS.length << 7));
  /** A DataView over the last buffer scanned and the memory after it (WORD_ROOM). */
  private view: DataView<ArrayBufferLike> = new DataView(new ArrayBuffer(0));
  private viewBuf: Buffer | undefined;
  /** Remembered line starts (HEAD_SLOTS): length (0: none), words (the last masked to the length), the two strings and their ids in the batch of `headEpoch`. */
  private readonly headLen = new Int32Array(HEAD_SLOTS);
  private readonly headWords = new Int32Array(HEAD_SLOTS * HEAD_WORDS);
  private readonly headType: string[] = new Array(HEAD_SLOTS).fill('');
  private readonly headF: string[] = new Array(HEAD_SLOTS).fill('');
  private readonly headEpoch = new Int32Array(HEAD_SLOTS);
  private readonly headTypeId = new Int32Array(HEAD_SLOTS);
  private readonly headFId = new Int32Array(HEAD_SLOTS);
  /** A line near the end of its buffer's memory is copied here to be read by words. */
  private scratch: Buffer = bufferWithRoom(256);

  constructor(batch?: { tags: Uint8Array<ArrayBufferLike>; nums: Float64Array<ArrayBufferLike> }) {
    if (!primed) { primed = true; primeFeedback(); }
    this.batchIds = batch !== undefined;
    if (batch) { this.bt = batch.tags; this.bn = batch.nums; }
    this.slotEpoch = new Int32Array(batch ? CACHE_SLOTS : 0);
    this.slotId = new Int32Array(batch ? CACHE_SLOTS : 0);
  }

  newBatch(): void {
    this.epoch++;
    this.strs = [];
    this.batchNested = [];
  }

  /**
   * Fills `ev` from buf[start, end) and returns true, or returns false: parse this line with
   * JSON.parse. The line's '\n' must follow it in buf (else false): every loop stops at it, so
   * none needs a bounds check.
   */
  scan(buf: Buffer, start: number, end: number): boolean {
    return buf[end] === 10 && this.scanLine(buf, start, end) === end;
  }

  /**
   * Fills `ev` from the line starting at `start` and returns the position of its '\n', or -1:
   * parse this line with JSON.parse. buf[limit] must be a '\n' (the line's or a later one's):
   * the scan never passes a '\n', so the reader need not look for the line's end first.
   */
  scanLine(buf: Buffer, start: number, limit: number): number {
    if (buf !== this.viewBuf) {
      this.viewBuf = buf;
      this.view = new DataView(buf.buffer, buf.byteOffset, buf.buffer.byteLength - buf.byteOffset);
    }
    // Every word read ends before the line's '\n' + 12 (WORD_ROOM).
    if (limit + WORD_ROOM > this.view.byteLength) return this.scanNearEnd(buf, start, limit);
    // One function with the position in a local: this loop runs for every event of the file.
    const ev = this.ev;
    // Batch mode writes each field's tag and number after `at` (field ids count from 1), and at
    // `at` which fields the line has (./jsonl-batch.ts), instead of filling ev.
    const bt = this.bt, bn = this.bn, at = this.at;
    if (bt === null) ev.type = ev.f = ev.process = ev.key = ev.value = ev.time = ev.index = ev.lease_ms = ev.valid_ms = ev.sent_ms = ev.mode = ev.permits = ev.limit = undefined;
    const end = limit;
    const dv = this.view;
    if (buf[start] !== LBRACE) return -1;
    let i = start + 1;
    let c = buf[i];
    while (c === 32 || c === 9) c = buf[++i];
    if (c === RBRACE) { if (bt !== null) bn[at] = 0; return this.rest(buf, i + 1, end); }
    let seen = 0;   // bit per field of FIELDS met on this line
    let others = 0; // ignored field names met on this line
    let type: unknown, f: unknown; // this line's type and f, to remember its start by
    // A line that starts as a remembered one: type and f from it (the bytes are the same, so are
    // JSON.parse's values); the scan goes on after its comma. Every word read lies before limit + 4.
    if (limit - start >= 10 && i === start + 1) {
      const hs = headSlot(dv, start), len = this.headLen[hs]!;
      if (len !== 0 && start + len <= limit && sameWords(dv, start, len, this.headWords, hs * HEAD_WORDS)) {
        seen = 6; // type and f
        if (bt !== null) {
          if (this.headEpoch[hs] !== this.epoch) {
            this.headEpoch[hs] = this.epoch;
            this.headTypeId[hs] = this.strs.push(this.headType[hs]!) - 1;
            this.headFId[hs] = this.strs.push(this.headF[hs]!) - 1;
          }
          bt[at + 1] = STR; bn[at + 1] = this.headTypeId[hs]!;
          bt[at + 2] = STR; bn[at + 2] = this.headFId[hs]!;
        } else { ev.type = this.headType[hs]; ev.f = this.headF[hs]; }
        i = start + len;
        c = buf[i];
        while (c === 32 || c === 9) c = buf[++i];
      }
    }
    for (;;) {
      if (c !== QUOTE) return -1;
      // The field name: one of FIELDS (by length and bytes), or one the models ignore.
      const from = ++i;
      // A name of FIELDS is matched byte for byte, with its closing quote, in one pass (most lines have only these).
      let field = BY_FIRST_TWO[(buf[from]! << 8) | buf[from + 1]!]!;
      if (field === 5 && buf[from + 3] === 105 /* i */) field = 9; // valid_ms, not value
      let colon = false; // the name was matched with its quote and colon (`name":`)
      if (field !== 0) {
        const len = PAT_LEN[field]!, w0 = dv.getInt32(from, true);
        if (len < 4 ? (w0 & 0xffffff) === PAT_W0[field] : w0 === PAT_W0[field] && dv.getInt32(from + len - 4, true) === PAT_W1[field] && (len <= 8 || dv.getInt32(from + 4, true) === PAT_W2[field])) {
          i = from + len - 1; colon = true;
        } else {
          const name = FIELD_BYTES[field]!, nlen = name.length; // whitespace before the colon
          let k = 0;
          while (k < nlen && buf[from + k] === name[k]) k++;
          if (k === nlen && buf[from + nlen] === QUOTE) i = from + nlen;
          else field = 0;
        }
      }
      if (field === 0) {
        for (c = buf[i]; c !== QUOTE; c = buf[++i]) if (c! < 0x20 || c! >= 0x80 || c === BACKSLASH) return -1;
        field = fieldId(buf, from, i - from);
      }
      if (field !== 0) {
        if (seen & (1 << field)) return -1; // a duplicate key
        seen |= 1 << field;
      } else {
        if (others === MAX_OTHER_FIELDS || this.seenOther(buf, from, i, others) || isProto(buf, from, i - from)) return -1;
        this.otherFrom[others] = from; this.otherTo[others++] = i;
      }
      if (!colon) {
        c = buf[++i];
        while (c === 32 || c === 9) c = buf[++i];
        if (c !== COLON) return -1;
      }
      c = buf[++i];
      while (c === 32 || c === 9) c = buf[++i];
      let v: unknown;
      let tag = 0, num = 0; // batch mode
      if (c === QUOTE) {
        const sFrom = ++i;
        // The string this field had last time it began with this byte: compared in place, no hash.
        const ps = (field << 7) | (buf[sFrom]! & 127);
        const p = this.predicted[ps];
        if (p !== undefined) {
          const len = p.length, wl = this.predLen[ps]!;
          let same: boolean;
          if (wl !== 0) {
            const w = 3 * ps, w0 = dv.getInt32(sFrom, true);
            same = wl < 4 ? (w0 & LOW_BYTES[wl]!) === this.predW[w] : w0 === this.predW[w] && dv.getInt32(sFrom + wl - 4, true) === this.predW[w + 1] && (wl <= 8 || dv.getInt32(sFrom + 4, true) === this.predW[w + 2]);
          } else {
            let k = 0;
            while (k < len && buf[sFrom + k] === p.charCodeAt(k)) k++;
            same = k === len && buf[sFrom + len] === QUOTE;
          }
          if (same) {
            i = sFrom + len;
            v = p; tag = STR;
            if (this.batchIds) {
              if (this.predictedEpoch[ps] !== this.epoch) { this.predictedEpoch[ps] = this.epoch; this.predictedId[ps] = this.strs.push(p) - 1; }
              num = this.predictedId[ps]!;
            }
          }
        }
      }
      if (tag === STR) i++;
      else if (c === QUOTE && field === 0) { // an ignored field's string: only checked
        for (c = buf[i]; c !== QUOTE; c = buf[++i]) if (c! < 0x20 || c! >= 0x80 || c === BACKSLASH) return -1;
        v = '';
        i++;
      } else if (c === QUOTE) {
        const sFrom = i;
        let h = 0;
        for (c = buf[i]; c !== QUOTE; c = buf[++i]) {
          if (c! < 0x20 || c! >= 0x80 || c === BACKSLASH) return -1;
          h = (h * 31 + c) | 0;
        }
        v = this.intern(buf, sFrom, i, h); tag = STR; num = this.sid;
        const ps = (field << 7) | (buf[sFrom]! & 127);
        if (i - sFrom <= 64) { this.predicted[ps] = v as string; this.predictedEpoch[ps] = this.epoch; this.predictedId[ps] = num; this.predictWords(ps, buf, sFrom, i - sFrom); }
        i++;
      } else if (c === MINUS || (c !== undefined && c >= 48 && c <= 57)) {
        const neg = c === MINUS;
        if (neg) i++;
        const first = i;
        let n = 0;
        // Four digits at a time while they come in fours (times run to 10 or more digits), then one by one.
        for (let w = dv.getInt32(i, true); ((w & 0xf0f0f0f0) | (((w + 0x06060606) & 0xf0f0f0f0) >>> 4)) === 0x33333333; w = dv.getInt32(i, true)) {
          const x = w & 0x0f0f0f0f;
          const pairs = (x * 10 + (x >>> 8)) & 0x00ff00ff; // first two digits, last two
          n = n * 10000 + (((pairs & 0xff) * 100) + (pairs >>> 16));
          i += 4;
        }
        for (c = buf[i]; c! >= 48 && c! <= 57; c = buf[++i]) n = n * 10 + (c! - 48);
        const digits = i - first;
        // JSON integers only (no leading zeros, fraction or exponent), at most 15 digits: exact as a double.
        if (digits === 0 || digits > 15 || (digits > 1 && buf[first] === 48) || c === 46 /* . */ || c === 101 /* e */ || c === 69 /* E */) return -1;
        if (bt === null) v = neg ? -n : n; // (a double is boxed as v: not in batch mode)
        else { tag = NUM; num = neg ? -n : n; }
      } else {
        this.pos = i; this.end = end; this.buf = buf;
        if (c === LBRACE || c === LBRACKET) {
          if (!this.skipNested()) return -1;
          // Only the value field is kept; others are still parsed, so a line JSON.parse rejects falls back.
          v = this.nested(buf, i, this.pos);
          if (v === undefined) return -1;
          tag = NESTED;
          if (bt !== null && field !== 0) { const ns = this.batchNested; num = ns[ns.length - 1] === v ? ns.length - 1 : ns.push(v) - 1; }
        } else if (this.word('true')) { v = true; tag = TRUE; }
        else if (this.word('false')) { v = false; tag = FALSE; }
        else if (this.word('null')) { v = null; tag = NULL; }
        else return -1;
        i = this.pos;
      }
      if (field <= 2) { if (field === 1) type = v; else if (field === 2) f = v; }
      if (bt !== null) { if (field !== 0) { bt[at + field] = tag; bn[at + field] = num; } }
      else switch (field) {
        case 1: ev.type = v; break;
        case 2: ev.f = v; break;
        case 3: ev.process = v; break;
        case 4: ev.key = v; break;
        case 5: ev.value = v; break;
        case 6: ev.time = v; break;
        case 7: ev.index = v; break;
        case 8: ev.lease_ms = v; break;
        case 9: ev.valid_ms = v; break;
        case 10: ev.sent_ms = v; break;
        case 11: ev.mode = v; break;
        case 12: ev.permits = v; break;
        case 13: ev.limit = v; break;
      }
      c = buf[i];
      while (c === 32 || c === 9 || c === 13) c = buf[++i];
      if (c === COMMA) {
        // Just type then f, in the fewest bytes (no space, nothing else): a start to remember.
        if (seen === 6 && typeof type === 'string' && typeof f === 'string' && buf[start + 2] === 116 /* t */ &&
          i + 1 - start === HEAD_TEXT + type.length + f.length && i + 1 - start <= MAX_HEAD && limit - start >= 10) this.rememberHead(dv, start, i + 1 - start, type, f);
        c = buf[++i];
        while (c === 32 || c === 9) c = buf[++i];
        continue;
      }
      if (c === RBRACE) { if (bt !== null) bn[at] = seen; return this.rest(buf, i + 1, end); }
      return -1;
    }
  }

  /** Remembers the line start buf[start, start + len) (`{"type":"T","f":"F",`) in its slot. */
  private rememberHead(dv: DataView, start: number, len: number, type: string, f: string): void {
    const hs = headSlot(dv, start);
    storeWords(dv, start, len, this.headWords, hs * HEAD_WORDS);
    this.headLen[hs] = len;
    this.headType[hs] = type;
    this.headF[hs] = f;
    this.headEpoch[hs] = 0; // its strings get ids in the batch that first uses it
  }

  /** scanLine of a line whose buffer may end too soon after it for the word reads: on a copy with room, if so. */
  private scanNearEnd(buf: Buffer, start: number, limit: number): number {
    const nl = buf.indexOf(10, start); // at most limit
    if (nl + WORD_ROOM <= this.view.byteLength) return this.scanLine(buf, start, nl);
    const len = nl - start + 1;
    if (this.scratch.length < len) this.scratch = bufferWithRoom(Math.max(len, 2 * this.scratch.length));
    buf.copy(this.scratch, 0, start, nl + 1);
    const at = this.scanLine(this.scratch, 0, len - 1);
    return at === -1 ? -1 : start + at;
  }

  /** Keeps the predicted string buf[from, from + len) and its closing quote as words, when they fit in three. */
  private predictWords(ps: number, buf: Buffer, from: number, len: number): void {
    const wl = len + 1;
    if (wl > MAX_WORD_STRING + 1) { this.predLen[ps] = 0; return; }
    const dv = this.view, w = 3 * ps;
    this.predLen[ps] = wl;
    const w0 = dv.getInt32(from, true);
    this.predW[w] = wl < 4 ? w0 & LOW_BYTES[wl]! : w0;
    this.predW[w + 1] = wl < 4 ? 0 : dv.getInt32(from + wl - 4, true);
    this.predW[w + 2] = wl > 8 ? dv.getInt32(from + 4, true) : 0;
  }

  /** Whether the ignored field name buf[from, to) was met before on this line. */
  private seenOther(buf: Buffer, from: number, to: number, others: number): boolean {
    const len = to - from;
    for (let n = 0; n < others; n++) {
      const f = this.otherFrom[n]!;
      if (this.otherTo[n]! - f === len && buf.compare(buf, from, to, f, f + len) === 0) return true;
    }
    return false;
  }

  /** After the closing brace only whitespace may follow, up to the line's '\n' (its position, else -1). */
  private rest(buf: Buffer, i: number, end: number): number {
    for (let c = buf[i]; i < end && (c === 32 || c === 9 || c === 13); c = buf[++i]);
    return buf[i] === 10 ? i : -1;
  }

  /** The string of buf[from, to) (ASCII, hash h), made once per distinct short string; with batch ids, its id in `sid`. */
  private intern(buf: Buffer, from: number, to: number, h: number): string {
    const len = to - from;
    const slot = (h ^ len) & (CACHE_SLOTS - 1);
    const hit = this.cache[slot];
    if (hit !== undefined && hit.length === len) {
      let k = 0;
      while (k < len && hit.charCodeAt(k) === buf[from + k]) k++;
      if (k === len) {
        if (this.batchIds) {
          if (this.slotEpoch[slot] !== this.epoch) { this.slotEpoch[slot] = this.epoch; this.slotId[slot] = this.strs.push(hit) - 1; }
          this.sid = this.slotId[slot]!;
        }
        return hit;
      }
    }
    const s = buf.toString('latin1', from, to);
    if (len <= 64) this.cache[slot] = s;
    if (this.batchIds) {
      this.sid = this.strs.push(s) - 1;
      if (len <= 64) { this.slotEpoch[slot] = this.epoch; this.slotId[slot] = this.sid; }
    }
    return s;
  }

  /** The nested value of buf[from, to), or undefined when JSON.parse refuses it or it has a duplicate key. */
  private nested(buf: Buffer, from: number, to: number): unknown {
    const len = to - from;
    // By a hash of all its bytes, in one of two slots: a cas register's [a,b] pairs differ in a
    // digit or two, and a slot of a few bytes' sum sent most of them to a few slots, parsed anew each time.
    const h = len <= MAX_NESTED_BYTES ? wordsHash(this.view, from, len) : 0;
    const s1 = h >>> (32 - NESTED_BITS), s2 = (h >>> (32 - 2 * NESTED_BITS)) & (NESTED_SLOTS - 1);
    // Word by word (the bytes' memory goes on past `to`: the line's '\n' and WORD_ROOM).
    const W = MAX_NESTED_BYTES >> 2;
    if (this.nestedLen[s1] === len && len !== 0 && sameWords(this.view, from, len, this.nestedWords, s1 * W)) return this.nestedValue[s1];
    if (this.nestedLen[s2] === len && len !== 0 && sameWords(this.view, from, len, this.nestedWords, s2 * W)) return this.nestedValue[s2];
    const text = buf.toString('utf8', from, to);
    let v: unknown;
    try { v = JSON.parse(text); } catch { return undefined; }
    if (keyProblem(text, 1) !== undefined) return undefined; // a field's value sits one level in
    if (len <= MAX_NESTED_BYTES) {
      // The emptier slot of its two, else the one it did not take last time (no pair of values evicts each other for ever).
      const slot = this.nestedLen[s1] === 0 ? s1 : this.nestedLen[s2] === 0 ? s2 : (this.nestedFlip = !this.nestedFlip) ? s1 : s2;
      storeWords(this.view, from, len, this.nestedWords, slot * W);
      this.nestedLen[slot] = len;
      this.nestedValue[slot] = v;
    }
    return v;
  }

  private word(w: string): boolean {
    const buf = this.buf;
    for (let k = 0; k < w.length; k++) if (buf[this.pos + k] !== w.charCodeAt(k)) return false;
    this.pos += w.length;
    return true;
  }

  /** At '{' or '[': moves past the matching close, minding strings; JSON.parse then checks the inside. */
  private skipNested(): boolean {
    const buf = this.buf;
    let depth = 0;
    for (let i = this.pos; i < this.end; i++) {
      const c = buf[i];
      if (c === 10) return false; // the line ended inside it
      if (c === QUOTE) {
        for (i++; i < this.end && buf[i] !== QUOTE; i++) {
          if (buf[i] === 10) return false;
          if (buf[i] === BACKSLASH) i++;
        }
      } else if (c === LBRACE || c === LBRACKET) depth++;
      else if (c === RBRACE || c === RBRACKET) {
        if (--depth === 0) { this.pos = i + 1; return true; }
      }
    }
    return false;
  }
}

/**
 * Type feedback for the engine before scanLine runs hot: a run history's times pass 2^31 ns two
 * seconds into the run, and an integer field first met below that and later above it made the
 * engine throw away scanLine's optimized code ("overflow") and compile this large function again,
 * twice (~0.1–0.2 s of CPU in a 100k-op check). One line scanned here, with integers of 15
 * digits, tells it from the start that these numbers are doubles.
 */
function primeFeedback(): void {
  const line = Buffer.from('{"type":"invoke","f":"acquire","process":-123456789012345,"key":"k","value":{"a":1},"time":123456789012345,"index":123456789012345,"lease_ms":1,"valid_ms":1,"sent_ms":1,"other":"x","other2":true}\n{"type":"invoke","f":"acquire","time":9}\n', 'latin1');
  const b = bufferWithRoom(line.length);
  line.copy(b);
  const s = new LineScanner();
  // The engine keeps no feedback for a function's first few calls (lazy feedback allocation).
  for (let k = 0; k < 16; k++) s.scanLine(b, s.scanLine(b, 0, line.length - 1) + 1, line.length - 1);
}
/** Primed once, by the first scanner made: a check whose files all go to JSON.parse (./reader-choice.ts) never pays it (~4 ms). */
let primed = false;
