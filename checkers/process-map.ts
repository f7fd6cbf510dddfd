// A map from process id to a value for the sweep's per-process state that comes and goes on every
// hold (checkers/holds.ts `believing`): a Map emptied on nearly every release reallocates its
// table each time (V8 shrinks it), a few hundred MB over a 10M-op history. Small ids index an
// array; the present entries are also kept in a dense list for iteration (in no fixed order).
const SMALL = 1 << 20;

export class ProcessMap<T> {
  private readonly small: (T | undefined)[] = [];
  /** Where each small id sits in `present` (valid only while it is present). */
  private readonly slot: number[] = [];
  private readonly large = new Map<number, T>();
  /** The present entries: ids and values, in parallel. */
  private readonly ids: number[] = [];
  private readonly vals: T[] = [];

  get size(): number { return this.ids.length; }

  get(p: number): T | undefined { return p < SMALL ? this.small[p] : this.large.get(p); }

  has(p: number): boolean { return this.get(p) !== undefined; }

  set(p: number, v: T): void {
    if (p < SMALL) {
      if (this.small[p] !== undefined) { this.vals[this.slot[p]!] = v; this.small[p] = v; return; }
      this.small[p] = v;
      this.slot[p] = this.ids.length;
    } else {
      if (this.large.has(p)) { this.vals[this.ids.indexOf(p)] = v; this.large.set(p, v); return; }
      this.large.set(p, v);
    }
    this.ids.push(p);
    this.vals.push(v);
  }

  delete(p: number): boolean {
    let at: number;
    if (p < SMALL) {
      if (this.small[p] === undefined) return false;
      this.small[p] = undefined;
      at = this.slot[p]!;
    } else {
      if (!this.large.delete(p)) return false;
      at = this.ids.indexOf(p);
    }
    // Swap-remove: the last entry takes the freed place.
    const lastId = this.ids.pop()!, lastVal = this.vals.pop()!;
    if (at < this.ids.length) {
      this.ids[at] = lastId;
      this.vals[at] = lastVal;
      if (lastId < SMALL) this.slot[lastId] = at;
    }
    return true;
  }

  /** The present values (a live view: do not change the map while iterating). */
  values(): readonly T[] { return this.vals; }
}
