// Time and memory limits for a check. Searches call check() every few thousand steps (checkDue);
// a reason string means "stop now and answer unknown".
import { createRequire } from 'node:module';

// node:v8 is loaded at the first look at the heap: a check that never asks (a streamed mutex
// history without limits) does not pay its ~5 ms of loading (it brings node:stream with it).
const require = createRequire(import.meta.url);
const getHeapStatistics = () => (require('node:v8') as typeof import('node:v8')).getHeapStatistics();

/** Above this share of V8's heap limit we stop before V8 would crash the process. */
const HEAP_GUARD = 0.85;
/** The heap's limit, fixed for the process: read once (a check of a hundred small files made a few budgets each, and each read cost more than the file's search). */
let heapLimitBytes: number | undefined;
const heapLimit = (): number => (heapLimitBytes ??= getHeapStatistics().heap_size_limit * HEAP_GUARD);

/**
 * The memory figures are read at most this often, for every budget of the process (the heap and
 * the resident size are the process's): check() is then a clock read, cheap enough to be asked
 * at a search's first steps too (checkDue).
 */
const MEMORY_LOOK_MS = 5;
let heapAt = -Infinity, heapBytes = 0, rssAt = -Infinity, rssBytes = 0;
function usedHeap(now: number): number {
  if (now - heapAt >= MEMORY_LOOK_MS) { heapBytes = getHeapStatistics().used_heap_size; heapAt = now; }
  return heapBytes;
}
function resident(now: number): number {
  if (now - rssAt >= MEMORY_LOOK_MS) { rssBytes = process.memoryUsage.rss(); rssAt = now; }
  return rssBytes;
}

/**
 * Whether a loop's step n (counted from 1) asks Budget.check(): every `every` steps (a power of
 * two), and at each power of two before that. The engine then knows the call before it optimizes
 * the loop: a call first made from optimized code throws that code away (the search's ~50 ms
 * compile, lost at its 4096th step), and a call made once in many steps is not inlined either.
 */
export const checkDue = (n: number, every: number): boolean => (n & (every - 1)) === 0 || (n & (n - 1)) === 0;

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
    const now = Date.now();
    if (now > this.deadline) return `time limit of ${Math.round(this.timeLimitMs!)} ms reached before a verdict`;
    if (this.maxMemoryBytes !== undefined) {
      const rss = resident(now);
      if (rss > this.maxMemoryBytes) return `memory limit of ${mb(this.maxMemoryBytes)} reached (resident ${mb(rss)}) before a verdict`;
    }
    const heap = usedHeap(now);
    if (heap > heapLimit()) return `the JavaScript heap is nearly full (${mb(heap)}); raise --max-old-space-size or set a smaller search`;
    return undefined;
  }
}

const mb = (n: number) => `${Math.round(n / 1048576)} MB`;
