// Time this process could not run: a client pause SIGSTOPs the worker together with its process
// client, and a loaded machine starves it. A reply deadline counts only the time the worker could
// have read the reply, else a pause that ends just after the deadline kills a child whose answer is
// already in the pipe. Seen as gaps in a 20 ms tick (unref'd: it never keeps a process alive).
import { performance } from 'node:perf_hooks';

const TICK_MS = 20;
/** A gap longer than this between ticks is a stall (twice the tick: timer jitter is not one). */
const GAP_MS = 2 * TICK_MS;
const KEPT = 256;

let last = 0;
let ticker: NodeJS.Timeout | undefined;
const stalls: [number, number][] = [];

/** Starts watching (idempotent). */
export function watchStalls(): void {
  if (ticker) return;
  last = performance.now();
  ticker = setInterval(() => {
    const now = performance.now();
    if (now - last > GAP_MS) {
      stalls.push([last, now]);
      if (stalls.length > KEPT) stalls.shift();
    }
    last = now;
  }, TICK_MS);
  ticker.unref();
}

/** How long (ms) this process was stalled since `from` (performance.now()), the stall still under way included. */
export function stalledSince(from: number): number {
  const now = performance.now();
  let ms = 0;
  for (const [a, b] of stalls) {
    const lo = Math.max(a, from), hi = Math.min(b, now);
    if (hi > lo) ms += hi - lo;
  }
  // The tick has not run yet since the process came back: the gap so far is a stall too.
  if (ticker && now - last > GAP_MS) ms += now - Math.max(last, from);
  return ms;
}
