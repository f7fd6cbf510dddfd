// The progress line on stderr: runs, ops/s, faults active, violations. On a
// terminal it redraws one line; otherwise it prints a plain line per run.
export class Progress {
  private runs = 0;
  private ops = 0;
  private violations = 0;
  private readonly t0 = Date.now();
  private readonly tty: boolean;
  private timer?: NodeJS.Timeout;

  constructor(private readonly out: NodeJS.WriteStream, private readonly faultsActive: () => number, private readonly quiet = false) {
    this.tty = out.isTTY === true && !quiet;
    if (this.tty) this.timer = setInterval(() => this.draw(), 250).unref();
  }

  private line(phase: string): string {
    const s = (Date.now() - this.t0) / 1000;
    const rate = s > 0 ? Math.round(this.ops / s) : 0;
    return `${phase}: ${this.runs} runs, ${this.ops} ops, ${rate} ops/s, ${this.faultsActive()} faults active, ${this.violations} violations, ${s.toFixed(0)} s`;
  }

  private phase = 'searching';

  private draw(): void {
    this.out.write(`\r\x1b[K${this.line(this.phase)}`);
  }

  run(ops: number, unsafe: boolean, phase: 'search' | 'shrink', note = ''): void {
    this.runs++;
    this.ops += ops;
    if (unsafe) this.violations++;
    this.phase = phase === 'search' ? 'searching' : 'shrinking';
    if (this.quiet) return;
    if (this.tty) this.draw();
    else this.out.write(`${this.line(this.phase)}${note ? ` (${note})` : ''}\n`);
  }

  done(): void {
    if (this.timer) clearInterval(this.timer);
    if (this.tty) this.out.write('\r\x1b[K');
  }
}
