// The search's memo: which ops are linearized, and which (set, state) configurations were seen.
// A configuration is dominated by a seen one with the same ok ops and state and a subset of its
// info ops (unplaced info ops can still be placed later or never), so the cache keys on a Zobrist
// hash of the ok ops plus the state hash and keeps, per bucket, an antichain of info sets.
// Snapshots are compact so long histories fit: ok ops are placed roughly in order, so a set is
// stored as "every ok op in the first `base` words" + the few words above it + the info ops placed.
// When the search groups info ops into kinds and places each kind's in order (search.ts), the
// info ops placed are just a count per kind, and a snapshot keeps those few counts instead of a
// list that grows with the history (hundreds of info ops placed, copied into every snapshot).
import type { Op } from '../src/history/types.ts';

/** Past this many kinds a count vector is no longer smaller than the list of info ops placed. */
const MAX_COUNTED_KINDS = 64;

// Snapshots live in flat pools, not one object and two arrays each: a failing search stores
// hundreds of thousands, and their allocation and collection cost more than the search.
/** Numbers per snapshot in `meta`: h2, state id, base, where its words start, how many, where its infos start, how many, next in bucket. */
const META = 8;

/** A growable pool of 32-bit integers. */
class Pool {
  a = new Int32Array(64); // most searches are small (checkers/window.ts makes hundreds): it doubles as needed
  n = 0;
  reserve(k: number): number {
    if (this.n + k > this.a.length) {
      const bigger = new Int32Array(Math.max(this.a.length * 2, this.n + k));
      bigger.set(this.a.subarray(0, this.n));
      this.a = bigger;
    }
    const at = this.n;
    this.n += k;
    return at;
  }
}

/**
 * int32 key -> the newest snapshot of its bucket (≥ 0), by open addressing in two typed arrays: a
 * Map of numbers cost most of a step's memo time in a long search (hashing, and each growth's
 * copy left to the collector), where these are probed in place and grow by doubling.
 */
class BucketHeads {
  private keys = new Int32Array(64);
  private heads = new Int32Array(64).fill(-1); // -1: an empty slot
  private mask = 63;
  private used = 0;

  /** The slot of key: its own, or the empty one where it would go. */
  private slot(key: number): number {
    const heads = this.heads, keys = this.keys, mask = this.mask;
    let i = Math.imul(key, 0x9e3779b1) >>> 0 & mask;
    while (heads[i] !== -1 && keys[i] !== key) i = (i + 1) & mask;
    return i;
  }

  /** key's head, or -1. */
  get(key: number): number {
    return this.heads[this.slot(key)]!;
  }

  set(key: number, head: number): void {
    let i = this.slot(key);
    if (this.heads[i] === -1) {
      if (2 * (this.used + 1) > this.heads.length) { this.grow(); i = this.slot(key); }
      this.used++;
      this.keys[i] = key;
    }
    this.heads[i] = head;
  }

  private grow(): void {
    const { keys, heads } = this;
    this.keys = new Int32Array(keys.length * 2);
    this.heads = new Int32Array(keys.length * 2).fill(-1);
    this.mask = keys.length * 2 - 1;
    for (let j = 0; j < keys.length; j++) if (heads[j] !== -1) { const i = this.slot(keys[j]!); this.keys[i] = keys[j]!; this.heads[i] = heads[j]!; }
  }
}

/**
 * Gives each ok op its two random hash words and marks it in okMask and okTotal. A function of its
 * own: on a long history the engine compiles this loop while it runs, and the constructor's code
 * after it, never run before, would have no type feedback (the optimized code thrown away there).
 */
function markOk(ops: readonly Op[], z1: Int32Array, z2: Int32Array, okMask: Uint32Array, okTotal: Int32Array): void {
  let seed = 0x9e3779b9;
  const rnd = () => { seed ^= seed << 13; seed ^= seed >>> 17; seed ^= seed << 5; return seed | 0; };
  for (let i = 0; i < ops.length; i++) {
    if (ops[i]!.outcome !== 'ok') continue;
    z1[i] = rnd(); z2[i] = rnd();
    okMask[i >>> 5]! |= 1 << (i & 31);
    okTotal[i >>> 5]!++;
  }
}

export class LinearizedSet {
  readonly bits: Uint32Array;
  private readonly okMask: Uint32Array;
  private readonly okTotal: Int32Array;
  private readonly okCount: Int32Array;
  private readonly z1: Int32Array;
  private readonly z2: Int32Array;
  private readonly kindOf: Int32Array | undefined;
  private h1 = 0;
  private h2 = 0;
  private base = 0;        // every ok op in words below base is placed
  private top = -1;        // highest word holding a placed ok op
  private readonly infos: number[] = []; // placed info ops, in placing order (the search undoes LIFO)
  /** Bucket key (made of the first ok-set hash and the state's id: no string built per step) -> its newest snapshot. */
  private readonly cache = new BucketHeads();
  private readonly meta = new Pool();
  private readonly words = new Pool();
  size = 0;

  /** Info ops placed per kind (when counted): what a snapshot keeps instead of `infos`. */
  private readonly counts: Int32Array | undefined;

  /**
   * kindOf (optional): each info op's kind (-1: none). Only for a search that places the info
   * ops of a kind in a fixed order (the earliest unplaced first) and undoes them LIFO.
   */
  constructor(ops: readonly Op[], kindOf?: Int32Array, kinds = 0) {
    if (!primed) { primed = true; primeFeedback(); }
    this.kindOf = kinds > 0 && kinds <= MAX_COUNTED_KINDS && kindOf ? kindOf : undefined;
    this.counts = this.kindOf ? new Int32Array(kinds) : undefined;
    const n = ops.length, words = (n + 31) >>> 5;
    this.bits = new Uint32Array(words);
    this.okMask = new Uint32Array(words);
    this.okTotal = new Int32Array(words);
    this.okCount = new Int32Array(words);
    this.z1 = new Int32Array(n);
    this.z2 = new Int32Array(n);
    markOk(ops, this.z1, this.z2, this.okMask, this.okTotal);
    this.advanceBase();
  }

  has(i: number): boolean { return (this.bits[i >>> 5]! & (1 << (i & 31))) !== 0; }

  add(i: number, ok: boolean): void {
    const w = i >>> 5;
    this.bits[w]! |= 1 << (i & 31);
    if (!ok) { if (this.counts) this.counts[this.kindOf![i]!]!++; else this.infos.push(i); return; }
    this.h1 ^= this.z1[i]!; this.h2 ^= this.z2[i]!;
    this.okCount[w]!++;
    if (w > this.top) this.top = w;
    if (w === this.base) this.advanceBase();
  }

  /** Undoes the most recent add of an info op, or any ok op. */
  remove(i: number, ok: boolean): void {
    const w = i >>> 5;
    this.bits[w]! &= ~(1 << (i & 31));
    if (!ok) { if (this.counts) this.counts[this.kindOf![i]!]!--; else this.infos.pop(); return; }
    this.h1 ^= this.z1[i]!; this.h2 ^= this.z2[i]!;
    this.okCount[w]!--;
    if (w < this.base) this.base = w;
    if (w === this.top) while (this.top >= 0 && this.okCount[this.top] === 0) this.top--;
  }

  /**
   * True when (current set, state) is dominated by a configuration seen before; else records it.
   * The state is given by its id (≥ 0; one id per state hash: the search numbers its states once).
   */
  seenWithId(sid: number): boolean {
    const key = (this.h1 ^ Math.imul(sid + 1, 0x9e3779b1)) | 0; // an int32: BucketHeads' key
    let head = this.cache.get(key);
    const len = Math.max(0, this.top - this.base + 1);
    const c = this.counts;
    const m = this.meta.a;
    for (let x = head, before = -1; x !== -1; x = m[x + 7]!) {
      if (m[x] === this.h2 && m[x + 1] === sid && m[x + 2] === this.base && m[x + 4] === len && this.sameOk(m[x + 3]!, len)) {
        if (this.hasAll(m[x + 5]!, m[x + 6]!)) return true;
        // A snapshot with at least as many of each kind placed is dominated by this one, recorded
        // below: dropped, so a bucket stays an antichain (its walk was most of a search's time).
        if (c && this.placedAtMost(m[x + 5]!, m[x + 6]!)) {
          if (before === -1) head = m[x + 7]!; else m[before + 7] = m[x + 7]!;
          continue;
        }
      }
      before = x;
    }
    // Record it: the ok words above base, then the info ops placed (or the counts per kind).
    let infoLen = 0;
    if (c) { infoLen = c.length; while (infoLen > 0 && c[infoLen - 1] === 0) infoLen--; } else infoLen = this.infos.length;
    const w = this.words.reserve(len + infoLen);
    const wa = this.words.a;
    for (let j = 0; j < len; j++) wa[w + j] = this.bits[this.base + j]! & this.okMask[this.base + j]!;
    if (c) for (let k = 0; k < infoLen; k++) wa[w + len + k] = c[k]!;
    else for (let k = 0; k < infoLen; k++) wa[w + len + k] = this.infos[k]!;
    const x = this.meta.reserve(META);
    const m2 = this.meta.a;
    m2[x] = this.h2; m2[x + 1] = sid; m2[x + 2] = this.base; m2[x + 3] = w; m2[x + 4] = len; m2[x + 5] = w + len; m2[x + 6] = infoLen; m2[x + 7] = head;
    this.cache.set(key, x);
    this.size++;
    return false;
  }

  /** The ok words above base equal the `len` stored from `at`. */
  private sameOk(at: number, len: number): boolean {
    const wa = this.words.a;
    for (let j = 0; j < len; j++) if (wa[at + j] !== (this.bits[this.base + j]! & this.okMask[this.base + j]!)) return false;
    return true;
  }

  /** Every info op of the snapshot is placed now (counted: no kind has fewer placed now). */
  private hasAll(at: number, n: number): boolean {
    const wa = this.words.a, c = this.counts;
    if (c) {
      for (let k = 0; k < n; k++) if (wa[at + k]! > c[k]!) return false; // kinds past n: none placed then
      return true;
    }
    for (let j = 0; j < n; j++) if (!this.has(wa[at + j]!)) return false;
    return true;
  }

  /** Counted: no kind has more placed now than in the snapshot (its kinds past n: none placed then). */
  private placedAtMost(at: number, n: number): boolean {
    const wa = this.words.a, c = this.counts!;
    for (let k = 0; k < c.length; k++) if (c[k]! > (k < n ? wa[at + k]! : 0)) return false;
    return true;
  }

  private advanceBase(): void {
    while (this.base < this.okTotal.length && this.okCount[this.base] === this.okTotal[this.base]) this.base++;
  }
}

/**
 * Type feedback for the engine before a search uses the memo: a bucket's snapshot dropped from
 * behind another (the antichain kept, seenWithId) is rare at a search's start, and a long search
 * reached it only after the engine had optimized seenWithId without feedback there: the ~45 ms
 * compile was thrown away at that step (`node --trace-deopt`) and done again. Four info ops of
 * two kinds, placed so that every path of seenWithId runs (recorded, dominated, a head dropped, a
 * snapshot behind the head dropped; and without kinds, the info ops listed), a few dozen times:
 * the engine keeps no feedback for a function's first calls (lazy feedback allocation).
 * Microseconds, once per process.
 */
function primeFeedback(): void {
  const ops = [{ outcome: 'info' }, { outcome: 'info' }, { outcome: 'info' }, { outcome: 'info' }] as Op[];
  const kindOf = new Int32Array([0, 0, 1, 1]);
  for (let round = 0; round < 32; round++) {
    const set = new LinearizedSet(ops, kindOf, 2);
    set.add(2, false); set.add(3, false); set.seenWithId(0); // placed per kind [0, 2]: recorded
    set.remove(3, false); set.remove(2, false);
    set.add(0, false); set.add(1, false); set.seenWithId(0); // [2, 0]: recorded, the bucket's head
    set.seenWithId(0); // the same again: dominated
    set.remove(1, false);
    set.add(2, false); set.seenWithId(0); // [1, 1]: neither dominated nor dominating; recorded
    set.remove(2, false); set.remove(0, false);
    set.add(2, false); set.seenWithId(0); // [0, 1]: drops [1, 1] (the head), and [0, 2] behind [2, 0]
    set.remove(2, false);
    set.add(0, false); set.seenWithId(0); // [1, 0]: drops [2, 0], behind [0, 1]
    // Without kinds (none given, or too many to count): the info ops placed are listed.
    const listed = new LinearizedSet(ops);
    listed.add(1, false); listed.seenWithId(0); // recorded
    listed.add(3, false); listed.seenWithId(0); // dominated by none: recorded
    listed.remove(3, false); listed.seenWithId(0); // the first again: dominated
    listed.remove(1, false);
  }
}
/** Primed once, by the first set made. */
let primed = false;
