// The single recorder: every event goes to history.jsonl the moment it happens,
// with a synchronous write (the kernel has it, so a kill -9 of lockpick loses
// nothing already recorded), timestamped in ns by one monotonic clock. It also
// keeps the events of the current run in memory for checking that run.
import { closeSync, openSync, writeSync } from 'node:fs';
import type { HistoryEvent } from '../history/types.ts';

export class Recorder {
  private readonly fd: number;
  private readonly t0 = process.hrtime.bigint();
  private run: HistoryEvent[] | null = null;
  private closed = false;
  count = 0;

  constructor(readonly path: string) {
    this.fd = openSync(path, 'a', 0o644);
  }

  /** ns since this recorder started. */
  now(): number {
    return Number(process.hrtime.bigint() - this.t0);
  }

  append(ev: HistoryEvent): HistoryEvent {
    const { type, f, process, key, value, time: _ignored, ...extra } = ev;
    const e: HistoryEvent = { type, f, process };
    if (key !== undefined) e.key = key;
    if (value !== undefined) e.value = value;
    e.time = this.now();
    Object.assign(e, extra);
    if (!this.closed) writeSync(this.fd, JSON.stringify(e) + '\n');
    this.run?.push(e);
    this.count++;
    return e;
  }

  nemesis(f: string, value: unknown): void {
    this.append({ type: 'info', f, process: 'nemesis', value });
  }

  beginRun(): void {
    this.run = [];
  }

  endRun(): HistoryEvent[] {
    const r = this.run ?? [];
    this.run = null;
    return r;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }
}
