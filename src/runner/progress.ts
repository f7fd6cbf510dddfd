// Progress of a search: runs, runs/min, ops/s, faults active, violations. The CLI gives a
// stream (stderr): on a terminal it redraws one line, otherwise it prints a plain
// line per run. The library API gives a callback and no stream, so nothing is
// written anywhere it did not ask for.

/** Where progress lines go: process.stderr for the CLI, or any object with write(). */
export interface ProgressSink { write(s: string): unknown; isTTY?: boolean }

/** One update, after every run (also what the library's onProgress receives). */
export interface ProgressEvent {
  phase: 'searching' | 'shrinking';
  runs: number;
  ops: number;
  opsPerSec: number;
  /** Runs per minute since the search began (every phase's runs). */
  runsPerMinute: number;
  faultsActive: number;
  violations: number;
  elapsedMs: number;
  /** Why the last run said nothing either way, or its first problem; '' when none. */
  note: string;
}

export class Progress {
  private runs = 0;
  private ops = 0;
  private violations = 0;
  private readonly t0 = Date.now();
  private readonly tty: boolean;
  private timer?: NodeJS.Timeout;
  private phase: ProgressEvent['phase'] = 'searching';

  constructor(
    private readonly out: ProgressSink | undefined,
    private readonly faultsActive: () => number,
    private readonly onEvent?: (e: ProgressEvent) => void,
  ) {
    this.tty = out?.isTTY === true;
    if (this.tty) this.timer = setInterval(() => this.draw(), 250).unref();
  }

  private event(note: string): ProgressEvent {
    const elapsedMs = Date.now() - this.t0;
    const s = elapsedMs / 1000;
    return {
      phase: this.phase, runs: this.runs, ops: this.ops, opsPerSec: s > 0 ? Math.round(this.ops / s) : 0, runsPerMinute: perMinute(this.runs, elapsedMs),
      faultsActive: this.faultsActive(), violations: this.violations, elapsedMs, note,
    };
  }

  /** `live`: the terminal's line, redrawn while a run goes on; a plain line is printed after a run, when its faults are all healed (never any active to say). */
  private line(e: ProgressEvent, live: boolean): string {
    return `${e.phase}: ${e.runs} runs (${e.runsPerMinute}/min), ${e.ops} ops, ${e.opsPerSec} ops/s, ${live ? `${e.faultsActive} faults active, ` : ''}${e.violations} violations, ${(e.elapsedMs / 1000).toFixed(0)} s`;
  }

  private draw(): void {
    this.out?.write(`\r\x1b[K${this.line(this.event(''), true)}`);
  }

  run(ops: number, unsafe: boolean, phase: 'search' | 'shrink', note = ''): void {
    this.runs++;
    this.ops += ops;
    if (unsafe) this.violations++;
    this.phase = phase === 'search' ? 'searching' : 'shrinking';
    const e = this.event(note);
    this.onEvent?.(e);
    if (!this.out) return;
    if (this.tty) this.draw();
    else this.out.write(`${this.line(e, false)}${note ? ` (${note})` : ''}\n`);
  }

  done(): void {
    if (this.timer) clearInterval(this.timer);
    if (this.tty) this.out?.write('\r\x1b[K');
  }
}

/** n per minute over ms, to one decimal (0 before any time passed). */
export function perMinute(n: number, ms: number): number {
  return ms > 0 ? Math.round((n * 600_000) / ms) / 10 : 0;
}

/**
 * What the search got through, for the summary (text and --json): runs (each one
 * drawn schedule run on real servers), how many gave a verdict, the distinct
 * schedules among them (fast-check may draw one twice), the search time (not
 * shrinking), runs per minute of it, and how many ran at once at most.
 */
export interface Throughput {
  runs: number;
  conclusive: number;
  inconclusive: number;
  /** conclusive / runs (0 with no run): how much of the search told something. */
  conclusiveShare: number;
  schedules: number;
  searchMs: number;
  runsPerMinute: number;
  parallel: number;
}

export function throughput(o: { runs: number; inconclusive: number; schedules: number; searchMs: number; parallel?: number }): Throughput {
  return {
    runs: o.runs, conclusive: o.runs - o.inconclusive, inconclusive: o.inconclusive, schedules: o.schedules,
    conclusiveShare: o.runs > 0 ? Math.round(((o.runs - o.inconclusive) / o.runs) * 1000) / 1000 : 0,
    searchMs: Math.round(o.searchMs), runsPerMinute: perMinute(o.runs, o.searchMs), parallel: o.parallel ?? 1,
  };
}

export function describeThroughput(t: Throughput): string {
  return `throughput: ${t.runs} run(s) of ${t.schedules} distinct schedule(s) in ${(t.searchMs / 1000).toFixed(1)} s of search, `
    + `${t.runsPerMinute} runs/min (${t.conclusive} conclusive, ${Math.round(t.conclusiveShare * 100)}%; ${t.inconclusive} inconclusive)${t.parallel > 1 ? `, up to ${t.parallel} at once` : ''}`;
}
