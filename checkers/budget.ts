// Time and memory limits for a check. Searches call check() every few thousand steps;
// a reason string means "stop now and answer unknown".
import { getHeapStatistics } from 'node:v8';

/** Above this share of V8's heap limit we stop before V8 would crash the process. */
const HEAP_GUARD = 0.85;
/** The heap's limit, fixed for the process: read once (a check of a hundred small files made a few budgets each, and each read cost more than the file's search). */
let heapLimitBytes: number | undefined;
const heapLimit = (): number => (heapLimitBytes ??= getHeapStatistics().heap_size_limit * HEAP_GUARD);

export class Budget {
  private deadline: number;

  /** deadline: the Date.now() at which the time limit runs out, when it started earlier (another thread's budget). */
  constructor(private readonly timeLimitMs?: number, private readonly maxMemoryBytes?: number, deadline?: number) {
    this.deadline = deadline ?? (timeLimitMs === undefined ? Infinity : Date.now() + timeLimitMs);
  }

  /** What another thread needs to hold the same limits (new Budget(...budget.limits)). */
  get limits(): [number | undefined, number | undefined, number] {
    return [this.timeLimitMs, this.maxMemoryBytes, this.deadline];
  }

  /** The same memory limit and a deadline at most ms from now (and no later than this one's). */
  narrowed(ms: number): Budget {
    const b = new Budget(ms, this.maxMemoryBytes);
    b.deadline = Math.min(this.deadline, b.deadline);
    return b;
  }

  /** Undefined while within limits, else why not. */
  check(): string | undefined {
    if (Date.now() > this.deadline) return `time limit of ${Math.round(this.timeLimitMs!)} ms reached before a verdict`;
    if (this.maxMemoryBytes !== undefined) {
      const rss = process.memoryUsage.rss();
      if (rss > this.maxMemoryBytes) return `memory limit of ${mb(this.maxMemoryBytes)} reached (resident ${mb(rss)}) before a verdict`;
    }
    const heap = getHeapStatistics().used_heap_size;
    if (heap > heapLimit()) return `the JavaScript heap is nearly full (${mb(heap)}); raise --max-old-space-size or set a smaller search`;
    return undefined;
  }
}

const mb = (n: number) => `${Math.round(n / 1048576)} MB`;
