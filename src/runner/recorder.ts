// The single recorder: every event goes to history.jsonl the moment it happens,
// with a synchronous write (the kernel has it, so a kill -9 of lockpick loses
// nothing already recorded), timestamped in ns by one monotonic clock. It also
// keeps the events of the current run in memory for checking that run.
//
// A full or failing disk does not tear the history: each event is one whole
// line, and when a write fails (ENOSPC, EIO, a short write) the file is cut back
// to the end of the last whole line and the recorder stops writing. It does not
// throw: `failure` says what happened, the in-memory events of the run go on (so
// the run can still be checked), and the session makes the run inconclusive.
import { basename } from 'node:path';
import { closeSync, fstatSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import type { HistoryEvent } from '../history/types.ts';
import { fsReason } from '../errors.ts';

export class Recorder {
  private readonly fd: number;
  private readonly t0 = process.hrtime.bigint();
  private run: HistoryEvent[] | null = null;
  private closed = false;
  /** Bytes of whole lines in the file: where a failed write is cut back to. */
  private size: number;
  /** Events appended (in memory, whether or not the file still takes them). */
  count = 0;
  /** Events in the file. */
  written = 0;
  /**
   * Set when the history file stopped taking events, e.g. "history.jsonl: no space
   * left on device (ENOSPC) after 1234 events; the run is inconclusive". The file
   * then holds exactly the first `written` events, each a whole line. The session
   * reads it and makes the run inconclusive.
   */
  failure?: string;

  constructor(readonly path: string) {
    this.fd = openSync(path, 'a', 0o644);
    this.size = fstatSync(this.fd).size;
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
    if (!this.closed && this.failure === undefined) this.write(JSON.stringify(e) + '\n');
    this.run?.push(e);
    this.count++;
    return e;
  }

  /** One whole line, or none: a failed or short write is cut back and ends the writing (see `failure`). */
  private write(line: string): void {
    const buf = Buffer.from(line);
    let done = 0;
    try {
      while (done < buf.length) {
        const n = writeSync(this.fd, buf, done);
        if (n <= 0) throw Object.assign(new Error(`EIO: the write took 0 of ${buf.length - done} bytes`), { code: 'EIO' });
        done += n;
      }
      this.size += buf.length;
      this.written++;
    } catch (e) {
      try {
        ftruncateSync(this.fd, this.size);
      } catch {
        /* a file that cannot be truncated (/dev/full) took no partial line either */
      }
      this.failure = `${basename(this.path)}: ${fsReason(e)} after ${this.written} events; the run is inconclusive`;
    }
  }

  nemesis(f: string, value: unknown): void {
    this.append({ type: 'info', f, process: 'nemesis', value });
  }

  beginRun(): void {
    this.run = [];
  }

  /** The current run's events so far (the session reads what the nemesis did before the run ends). */
  runEvents(): readonly HistoryEvent[] {
    return this.run ?? [];
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
