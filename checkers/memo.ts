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

// Plain arrays, not typed ones: a snapshot is a few small numbers, and a typed array's allocation
// costs more than the rest of a step.
interface Snapshot { h2: number; sid: number; base: number; tail: number[]; infos: ArrayLike<number> }

/** Past this many kinds a count vector is no longer smaller than the list of info ops placed. */
const MAX_COUNTED_KINDS = 64;
const NO_INFOS: number[] = [];

/** The counts up to the last kind with any placed (often none: shared empty). */
function countsOf(c: Int32Array): number[] {
  let end = c.length;
  while (end > 0 && c[end - 1] === 0) end--;
  if (end === 0) return NO_INFOS;
  const out: number[] = new Array(end);
  for (let k = 0; k < end; k++) out[k] = c[k]!;
  return out;
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
  /** Keyed by a number made of the first ok-set hash and the state's id: no string built per step. */
  private readonly cache = new Map<number, Snapshot[]>();
  /** State hash -> small id. */
  private readonly stateIds = new Map<string, number>();
  size = 0;

  /** Info ops placed per kind (when counted): what a snapshot keeps instead of `infos`. */
  private readonly counts: Int32Array | undefined;

  /**
   * kindOf (optional): each info op's kind (-1: none). Only for a search that places the info
   * ops of a kind in a fixed order (the earliest unplaced first) and undoes them LIFO.
   */
  constructor(ops: readonly Op[], kindOf?: Int32Array, kinds = 0) {
    this.kindOf = kinds > 0 && kinds <= MAX_COUNTED_KINDS && kindOf ? kindOf : undefined;
    this.counts = this.kindOf ? new Int32Array(kinds) : undefined;
    const n = ops.length, words = (n + 31) >>> 5;
    this.bits = new Uint32Array(words);
    this.okMask = new Uint32Array(words);
    this.okTotal = new Int32Array(words);
    this.okCount = new Int32Array(words);
    this.z1 = new Int32Array(n);
    this.z2 = new Int32Array(n);
    let seed = 0x9e3779b9;
    const rnd = () => { seed ^= seed << 13; seed ^= seed >>> 17; seed ^= seed << 5; return seed | 0; };
    for (let i = 0; i < n; i++) {
      if (ops[i]!.outcome !== 'ok') continue;
      this.z1[i] = rnd(); this.z2[i] = rnd();
      this.okMask[i >>> 5]! |= 1 << (i & 31);
      this.okTotal[i >>> 5]!++;
    }
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

  /** True when (current set, state) is dominated by a configuration seen before; else records it. */
  seenWith(stateHash: string): boolean {
    let sid = this.stateIds.get(stateHash);
    if (sid === undefined) this.stateIds.set(stateHash, (sid = this.stateIds.size));
    const key = (this.h1 ^ Math.imul(sid + 1, 0x9e3779b1)) | 0; // a small integer: the Map hashes it fastest
    const bucket = this.cache.get(key);
    if (bucket) {
      for (const s of bucket) if (s.h2 === this.h2 && s.sid === sid && this.sameOk(s) && this.hasAll(s.infos)) return true;
    }
    const infos = this.counts ? countsOf(this.counts) : this.infos.length ? this.infos.slice() : NO_INFOS;
    const len = Math.max(0, this.top - this.base + 1);
    const tail: number[] = new Array(len);
    for (let j = 0; j < len; j++) tail[j] = this.bits[this.base + j]! & this.okMask[this.base + j]!;
    const snap = { h2: this.h2, sid, base: this.base, tail, infos };
    if (bucket) bucket.push(snap); else this.cache.set(key, [snap]);
    this.size++;
    return false;
  }

  private sameOk(s: Snapshot): boolean {
    if (s.base !== this.base || s.tail.length !== Math.max(0, this.top - this.base + 1)) return false;
    for (let j = 0; j < s.tail.length; j++) if (s.tail[j]! !== (this.bits[this.base + j]! & this.okMask[this.base + j]!)) return false;
    return true;
  }

  /** Every info op of the snapshot is placed now (counted: no kind has fewer placed now). */
  private hasAll(xs: ArrayLike<number>): boolean {
    const c = this.counts;
    if (c) {
      for (let k = 0; k < xs.length; k++) if (xs[k]! > c[k]!) return false; // kinds past xs.length: none placed then
      return true;
    }
    for (let j = 0; j < xs.length; j++) if (!this.has(xs[j]!)) return false;
    return true;
  }

  private advanceBase(): void {
    while (this.base < this.okTotal.length && this.okCount[this.base] === this.okTotal[this.base]) this.base++;
  }
}
