// Tables keyed by process id, fast for the usual small ids (an array; larger ids in a Map). The
// history builder looks up each event's open op here (twice per event); the sweep keeps who
// believes they hold in a ProcessMap, which can also list its values (a Map emptied on nearly
// every release reallocated its table each time, a few hundred MB over a 10M-op history).

/** Process ids below this go in a plain array (Jepsen's grow by one per info), the rest in a Map. */
const SMALL_PROCESS = 1 << 24; // 10M ops with 1% info reach ~100k ids: a Map there cost a third of the reading

/** A map from process id to T. */
export class ProcessTable<T> {
  private readonly small: (T | undefined)[] = [];
  private readonly large = new Map<number, T>();
  get(p: number): T | undefined { return p < SMALL_PROCESS ? this.small[p] : this.large.get(p); }
  set(p: number, v: T): void { if (p < SMALL_PROCESS) this.small[p] = v; else this.large.set(p, v); }
  delete(p: number): void { if (p < SMALL_PROCESS) this.small[p] = undefined; else this.large.delete(p); }
}

/** A ProcessTable that knows its size and lists its values (in no fixed order). */
export class ProcessMap<T> {
  /** Where each present id's value sits in `vals`. */
  private readonly slot = new ProcessTable<number>();
  private readonly ids: number[] = [];
  private readonly vals: T[] = [];

  get size(): number { return this.ids.length; }

  get(p: number): T | undefined {
    const s = this.slot.get(p);
    return s === undefined ? undefined : this.vals[s];
  }

  has(p: number): boolean { return this.slot.get(p) !== undefined; }

  set(p: number, v: T): void {
    const s = this.slot.get(p);
    if (s !== undefined) { this.vals[s] = v; return; }
    this.slot.set(p, this.ids.length);
    this.ids.push(p);
    this.vals.push(v);
  }

  delete(p: number): boolean {
    const s = this.slot.get(p);
    if (s === undefined) return false;
    this.slot.delete(p);
    // Swap-remove: the last entry takes the freed place.
    const lastId = this.ids.pop()!, lastVal = this.vals.pop()!;
    if (s < this.ids.length) {
      this.ids[s] = lastId;
      this.vals[s] = lastVal;
      this.slot.set(lastId, s);
    }
    return true;
  }

  /** The present values (a live view: do not change the map while iterating). */
  values(): readonly T[] { return this.vals; }
}
