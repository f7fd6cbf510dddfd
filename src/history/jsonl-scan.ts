// One pass over the bytes of a JSON Lines event, extracting only the fields the history rules
// and the models read (type, f, process, key, value, time, index, lease_ms), without building a
// string per line or an object per event. It accepts only lines it is sure JSON.parse would
// accept and read the same way: plain ASCII strings without escapes, integers of at most 15
// digits, true/false/null, nested values handed to JSON.parse. Anything else (escapes, non-ASCII
// strings, fractions, exponents, bad syntax) returns false and the caller parses the line with
// JSON.parse, so the values and every error message stay exactly those of JSON.parse.

/** The fields of one event; reused from line to line (HistoryBuilder.add keeps none of it). */
export interface ScannedEvent {
  type: unknown; f: unknown; process: unknown; key: unknown;
  value: unknown; time: unknown; index: unknown; lease_ms: unknown;
}

const QUOTE = 34, BACKSLASH = 92, COMMA = 44, COLON = 58, LBRACE = 123, RBRACE = 125, LBRACKET = 91, RBRACKET = 93, MINUS = 45;

/** Field ids by name; 0 is "a field the models ignore". */
const FIELDS = ['', 'type', 'f', 'process', 'key', 'value', 'time', 'index', 'lease_ms'] as const;
const FIELD_BYTES = FIELDS.map((s) => Buffer.from(s, 'latin1'));

/** Interned short strings: the same f or key on a million lines is one string, made once. */
const CACHE_SLOTS = 1024;

export class LineScanner {
  readonly ev: ScannedEvent = { type: undefined, f: undefined, process: undefined, key: undefined, value: undefined, time: undefined, index: undefined, lease_ms: undefined };
  private readonly cache: (string | undefined)[] = new Array(CACHE_SLOTS).fill(undefined);
  private buf: Buffer = Buffer.alloc(0);
  private pos = 0;
  private end = 0;

  /** Fills `ev` from buf[start, end) and returns true, or returns false: parse this line with JSON.parse. */
  scan(buf: Buffer, start: number, end: number): boolean {
    const ev = this.ev;
    ev.type = ev.f = ev.process = ev.key = ev.value = ev.time = ev.index = ev.lease_ms = undefined;
    this.buf = buf; this.pos = start; this.end = end;
    if (buf[start] !== LBRACE) return false;
    this.pos++;
    this.ws();
    if (buf[this.pos] === RBRACE) return this.rest();
    for (;;) {
      if (buf[this.pos] !== QUOTE) return false;
      const field = this.fieldName();
      if (field < 0) return false;
      this.ws();
      if (buf[this.pos] !== COLON) return false;
      this.pos++;
      this.ws();
      if (!this.value(field)) return false;
      this.ws();
      const c = buf[this.pos];
      if (c === COMMA) { this.pos++; this.ws(); continue; }
      if (c === RBRACE) return this.rest();
      return false;
    }
  }

  /** After the closing brace only whitespace may follow. */
  private rest(): boolean {
    this.pos++;
    this.ws();
    return this.pos === this.end;
  }

  private ws(): void {
    const buf = this.buf;
    let i = this.pos;
    for (let c = buf[i]; i < this.end && (c === 32 || c === 9 || c === 13 || c === 10); c = buf[++i]);
    this.pos = i;
  }

  /** At a '"': the id of the field name (0 for one the models ignore), or -1 to fall back. */
  private fieldName(): number {
    const buf = this.buf;
    const from = this.pos + 1;
    let i = from;
    for (let c = buf[i]; ; c = buf[++i]) {
      if (i >= this.end || c === undefined || c === BACKSLASH || c < 0x20 || c >= 0x80) return -1;
      if (c === QUOTE) break;
    }
    this.pos = i + 1;
    const len = i - from;
    for (let id = 1; id < FIELDS.length; id++) {
      const name = FIELD_BYTES[id]!;
      if (name.length !== len) continue;
      let k = 0;
      while (k < len && buf[from + k] === name[k]) k++;
      if (k === len) return id;
    }
    return 0;
  }

  /** A value for field `id`; false to fall back. */
  private value(id: number): boolean {
    const buf = this.buf;
    const c = buf[this.pos];
    let v: unknown;
    if (c === QUOTE) {
      const s = this.string(id !== 0);
      if (s === null) return false;
      v = s;
    } else if (c === MINUS || (c !== undefined && c >= 48 && c <= 57)) {
      const n = this.integer();
      if (n === null) return false;
      v = n;
    } else if (c === LBRACE || c === LBRACKET) {
      const from = this.pos;
      if (!this.skipNested()) return false;
      // Only the value field is kept; others are still parsed, so a line JSON.parse rejects falls back.
      try { v = JSON.parse(buf.toString('utf8', from, this.pos)); } catch { return false; }
    } else if (this.word('true')) v = true;
    else if (this.word('false')) v = false;
    else if (this.word('null')) v = null;
    else return false;
    const ev = this.ev;
    switch (id) {
      case 1: ev.type = v; break;
      case 2: ev.f = v; break;
      case 3: ev.process = v; break;
      case 4: ev.key = v; break;
      case 5: ev.value = v; break;
      case 6: ev.time = v; break;
      case 7: ev.index = v; break;
      case 8: ev.lease_ms = v; break;
    }
    return true;
  }

  /** At a '"': a plain ASCII string (interned when `keep`, else '' and skipped), or null to fall back. */
  private string(keep: boolean): string | null {
    const buf = this.buf;
    const from = this.pos + 1;
    let i = from;
    let h = 0;
    for (let c = buf[i]; ; c = buf[++i]) {
      if (i >= this.end || c === undefined || c === BACKSLASH || c < 0x20 || c >= 0x80) return null;
      if (c === QUOTE) break;
      h = (h * 31 + c) | 0;
    }
    this.pos = i + 1;
    if (!keep) return '';
    const len = i - from;
    const slot = (h ^ len) & (CACHE_SLOTS - 1);
    const hit = this.cache[slot];
    if (hit !== undefined && hit.length === len) {
      let k = 0;
      while (k < len && hit.charCodeAt(k) === buf[from + k]) k++;
      if (k === len) return hit;
    }
    const s = buf.toString('latin1', from, i);
    if (len <= 64) this.cache[slot] = s;
    return s;
  }

  /** JSON integer grammar only (no leading zeros, no fraction, no exponent), at most 15 digits: exact as a double. */
  private integer(): number | null {
    const buf = this.buf;
    let i = this.pos;
    const neg = buf[i] === MINUS;
    if (neg) i++;
    const first = i;
    let n = 0;
    for (let c = buf[i]; i < this.end && c !== undefined && c >= 48 && c <= 57; c = buf[++i]) n = n * 10 + (c - 48);
    const digits = i - first;
    if (digits === 0 || digits > 15 || (digits > 1 && buf[first] === 48)) return null;
    const c = buf[i];
    if (c === 46 /* . */ || c === 101 /* e */ || c === 69 /* E */) return null;
    this.pos = i;
    return neg ? -n : n;
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
      if (c === QUOTE) {
        for (i++; i < this.end && buf[i] !== QUOTE; i++) if (buf[i] === BACKSLASH) i++;
      } else if (c === LBRACE || c === LBRACKET) depth++;
      else if (c === RBRACE || c === RBRACKET) {
        if (--depth === 0) { this.pos = i + 1; return true; }
      }
    }
    return false;
  }
}
