// A key's sweep points in event order while the file is read (checkers/stream.ts,
// checkers/permit-stream.ts): a release or renew waits at its invoke until its outcome is known,
// and everything after it waits behind it, so the queue holds what happened during the oldest op
// still in flight, not the history.
import type { Op } from '../src/history/types.ts';

/** Once the queue has consumed this many entries (and half of it), it is compacted. */
const COMPACT_AT = 4096;

export class PointQueue {
  private queue: Op[] = [];
  /** Entries in use: an emptied queue is reused from 0, not truncated (setting an array's length on nearly every completion cost a few % of a streamed check). */
  private size = 0;
  private head = 0;
  /** Every point before this event position has been swept. */
  swept = 0;

  push(op: Op): void { this.queue[this.size++] = op; }

  /** Takes the points in order up to the first still in flight (final: all of them). */
  drain(final: boolean, take: (op: Op) => void): void {
    const q = this.queue, n = this.size;
    let i = this.head;
    for (; i < n; i++) {
      const e = q[i]!;
      if (!final && e.completeSeq === Infinity) break;
      take(e);
    }
    this.head = i;
    this.swept = i === n ? Infinity : q[i]!.invokeSeq; // only a release or renew in flight blocks
    if (i === n) {
      this.head = this.size = 0;
      if (q.length > COMPACT_AT) q.length = 0; // after a long wait: let go of what it held
    } else if (i >= COMPACT_AT && 2 * i >= n) { this.queue = q.slice(i, n); this.size = n - i; this.head = 0; }
  }
}
