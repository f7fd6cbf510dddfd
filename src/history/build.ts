// Turns a stream of raw events (one object per line, from JSONL or EDN) into a
// ParsedHistory: checks every rule of docs/history-format.md on the way and pairs each
// completion with its process's open invoke. Shared by every reader so both
// formats obey exactly the same rules.
import { HistoryError } from './errors.ts';
import type { HoldMode, NemesisEvent, Op, ParsedHistory } from './types.ts';
import { ProcessTable } from './process-table.ts';

const EVENT_SHAPE = 'an event is {"type":"invoke"|"ok"|"fail"|"info","f":"<op>","process":<integer ≥ 0 or "nemesis">, ...}';

/** Creates Ops with one fixed field order so V8 keeps them all in one hidden class. */
function newOp(id: number, process: number, f: string, key: string, invokeValue: unknown, line: number, time: number | undefined, seq: number, leaseMs: number | undefined): Op {
  return {
    id, process, f, key,
    outcome: 'info',
    invokeValue,
    value: undefined,
    invokeLine: line,
    completeLine: Infinity,
    invokeTime: time,
    completeTime: undefined,
    invokeSeq: seq,
    completeSeq: Infinity,
    leaseMs,
    mode: undefined,
    permits: undefined,
    limit: undefined,
  };
}

// V8 keeps an object field that has only ever held numbers as a double in a box of its own,
// allocated with each object (completeSeq and completeLine start as Infinity, times exceed small
// integers): a third of an op's memory. A field that has once held something else holds any value
// as a plain reference, so small integers need no box and a time read from the file keeps its
// own. One throwaway op makes the fields so for every op (it changes memory and speed, not values).
{
  const shape = newOp(0, 0, '', '', undefined, 0, 0, 0, undefined) as unknown as Record<string, unknown>;
  shape.completeLine = shape.completeSeq = shape.invokeTime = shape.completeTime = shape.leaseMs = null;
}

/**
 * Receives the history as it is read instead of the builder keeping it (the streaming check):
 * each op at its invoke and again at its completion (the same object, completed), each nemesis
 * event. Ops still open at the end stay outcome 'info' and get no complete call.
 */
export interface HistorySink {
  invoke(op: Op): void;
  complete(op: Op): void;
  nemesis(ev: NemesisEvent): void;
}

export class HistoryBuilder {
  /** Every op, in invoke order (empty with a sink). */
  readonly ops: Op[] = [];
  /** Every nemesis event (empty with a sink). */
  readonly nemesis: NemesisEvent[] = [];
  private seq = 0;
  private opCount = 0;
  private nemesisCount = 0;
  /** process → its open invoke. */
  private readonly open = new ProcessTable<Op>();
  /** process → line of the info completion that ended it. */
  private readonly ended = new ProcessTable<number>();

  constructor(readonly source: string, private readonly sink?: HistorySink) {}

  private fail(line: number, rule: string, expected: string, fix: string): never {
    throw new HistoryError(this.source, line, rule, expected, fix);
  }

  /** Adds one event read from `line` (1-based). `raw` is whatever the line parsed to. */
  add(raw: unknown, line: number): void {
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
      this.fail(line, 'not-an-object', `each event must be one object; got ${describe(raw)}`,
        `write one event object per line: ${EVENT_SHAPE}`);
    }
    const ev = raw as Record<string, unknown>;
    this.addFields(ev.type, ev.f, ev.process, ev.key, ev.value, ev.time, ev.index, ev.lease_ms, ev.valid_ms, line, ev.sent_ms, ev.mode, ev.permits, ev.limit);
  }

  /** add() of an event object with these fields (undefined: missing); the reader thread's batches make no object. */
  addFields(type: unknown, f: unknown, process: unknown, key: unknown, value: unknown, rawTime: unknown, index: unknown, lease: unknown, valid: unknown, line: number, sent?: unknown,
    mode?: unknown, permits?: unknown, limit?: unknown): void {
    const seq = this.seq;
    if (type !== 'invoke' && type !== 'ok' && type !== 'fail' && type !== 'info') {
      this.fail(line, 'unknown-type', `"type" must be "invoke", "ok", "fail" or "info"; got ${describe(type)}`,
        'use invoke to start an operation and ok / fail / info to complete it');
    }
    if (typeof f !== 'string') {
      this.fail(line, 'missing-f', `"f" must be a string naming the operation (acquire, release, read, ...); got ${describe(f)}`,
        'add "f" to the event, the same on the invoke and its completion');
    }
    const isNemesis = process === 'nemesis';
    if (!isNemesis && !(typeof process === 'number' && Number.isSafeInteger(process) && process >= 0)) {
      this.fail(line, 'bad-process', `"process" must be an integer from 0 to 2^53-1 or "nemesis"; got ${describe(process)}`,
        unsafe(process) ? 'renumber the processes below 2^53 (9007199254740992): larger ids cannot be told apart as numbers (…992 and …993 read as one)'
          : 'give each logical single-threaded client its own integer process id');
    }
    if (key !== undefined && typeof key !== 'string') {
      this.fail(line, 'bad-key', `"key" must be a string when present; got ${describe(key)}`,
        'write the lock name or register key as a string, or leave "key" out (it then means "")');
    }
    let time = rawTime;
    if (typeof time === 'bigint') time = Number(time);
    if (time !== undefined && !(typeof time === 'number' && Number.isSafeInteger(time))) {
      this.fail(line, 'bad-time', `"time" must be an integer below 2^53 (nanoseconds since the run started) when present; got ${describe(rawTime)}`,
        'write time as integer nanoseconds from a monotonic clock since the run started (2^53 ns is 104 days), or leave it out');
    }
    if (lease !== undefined && !(typeof lease === 'number' && Number.isFinite(lease) && lease > 0)) {
      this.fail(line, 'bad-lease', `"lease_ms" must be a positive number of milliseconds when present (the lease the lock was granted); got ${describe(lease)}`,
        'write the lease as a number of milliseconds, e.g. "lease_ms": 800, or leave it out if the lock has no lease');
    }
    // A grant's figures: on the ok of an acquire, or of a renew (the validity the renew reported).
    const grant = type === 'ok' && (f === 'acquire' || f === 'renew');
    if (valid !== undefined && !(typeof valid === 'number' && Number.isFinite(valid) && grant)) {
      this.fail(line, 'bad-valid', `"valid_ms" belongs on an ok acquire or an ok renew and must be a finite number of milliseconds (the validity the lock reported left when it returned; 0 or less: it returned an expired hold); got ${describe(valid)}${!grant ? ` on a "${String(type)}" of ${String(f)}` : ''}`,
        'write "valid_ms" only on acquire ok and renew ok lines, as a number of milliseconds, or leave it out if the lock reports no validity');
    }
    if (sent !== undefined && !(typeof sent === 'number' && Number.isFinite(sent) && sent >= 0 && grant)) {
      this.fail(line, 'bad-sent', `"sent_ms" belongs on an ok acquire or an ok renew and must be a number of milliseconds, 0 or more (how long before it returned its last request went out); got ${describe(sent)}${!grant ? ` on a "${String(type)}" of ${String(f)}` : ''}`,
        'write "sent_ms" only on acquire ok and renew ok lines, as a number of milliseconds, or leave it out');
    }
    if (mode !== undefined && !((mode === 'exclusive' || mode === 'shared') && f === 'acquire')) {
      this.fail(line, 'bad-mode', `"mode" belongs on acquire events and must be "exclusive" or "shared"; got ${describe(mode)}${f !== 'acquire' ? ` on ${String(f)}` : ''}`,
        'write "mode": "shared" on the acquire events of a read hold, "exclusive" (or nothing) on a write hold; a release ends the whole hold and needs no mode');
    }
    if (permits !== undefined && !(Number.isSafeInteger(permits) && (permits as number) >= 1 && f === 'acquire')) {
      this.fail(line, 'bad-permits', `"permits" belongs on acquire events and must be an integer of 1 or more (how many permits of the semaphore the hold takes); got ${describe(permits)}${f !== 'acquire' ? ` on ${String(f)}` : ''}`,
        'write "permits": N on the acquire events, or leave it out for one permit; a release gives back the whole hold');
    }
    if (limit !== undefined && !(Number.isSafeInteger(limit) && (limit as number) >= 1 && f === 'acquire')) {
      this.fail(line, 'bad-limit', `"limit" belongs on acquire events and must be an integer of 1 or more (the semaphore's total permits); got ${describe(limit)}${f !== 'acquire' ? ` on ${String(f)}` : ''}`,
        'write "limit": N (the semaphore\'s size) on the acquire events, or leave it out for a mutex');
    }
    if (index !== undefined && index !== seq) {
      this.fail(line, 'bad-index', `"index" must equal the event's 0-based position in the file, ${seq}; got ${describe(index)}`,
        'renumber "index" from 0 in file order (blank lines do not count), or leave it out');
    }
    this.place(type, f, process, key, value, time as number | undefined, lease, valid, sent, line, seq, mode as HoldMode | undefined, permits as number | undefined, limit as number | undefined);
  }

  /**
   * addFields of an event the reader thread scanned as most are: type and f strings, process a
   * number, and nothing beyond key, value and time (./jsonl-threaded.ts). What it cannot pass
   * here goes through addFields, so every error is the same.
   */
  addCommon(type: string, f: string, process: number, key: unknown, value: unknown, time: unknown, line: number): void {
    if ((type === 'invoke' || type === 'ok' || type === 'fail' || type === 'info') && process >= 0 && (key === undefined || typeof key === 'string') &&
      (time === undefined || typeof time === 'number')) {
      // The scanner's numbers are integers of at most 15 digits: safe.
      this.place(type, f, process, key, value, time as number | undefined, undefined, undefined, undefined, line, this.seq);
    } else this.addFields(type, f, process, key, value, time, undefined, undefined, undefined, line);
  }

  /** The event at seq, its fields checked: a nemesis record, an invoke, or the completion of its process's open invoke. */
  private place(type: 'invoke' | 'ok' | 'fail' | 'info', f: string, process: number | 'nemesis', key: unknown, value: unknown, time: number | undefined,
    lease: unknown, valid: unknown, sent: unknown, line: number, seq: number, mode?: HoldMode, permits?: number, limit?: number): void {
    this.seq = seq + 1;
    if (process === 'nemesis') {
      // Fault records: not paired (Jepsen's nemesis logs info/info pairs), only kept for reports.
      const n: NemesisEvent = { line, seq, f, type, value: value, time };
      this.nemesisCount++;
      if (this.sink) this.sink.nemesis(n); else this.nemesis.push(n);
      return;
    }
    const p = process;
    const open = this.open.get(p);
    if (type === 'invoke') {
      if (open !== undefined) {
        this.fail(line, 'second-invoke', `process ${p} invokes ${f} while its ${open.f} from line ${open.invokeLine} is still open (a process has at most one operation outstanding)`,
          `complete the operation of line ${open.invokeLine} (ok / fail / info) before process ${p} invokes again, or record the new call under another process id`);
      }
      const endedAt = this.ended.get(p);
      if (endedAt !== undefined) {
        this.fail(line, 'invoke-after-info', `process ${p} invokes ${f} after its info completion at line ${endedAt} (after info a process never invokes again)`,
          `record the client's later operations under a new process id, as Jepsen does`);
      }
      const op = newOp(this.opCount++, p, f, key === undefined ? '' : key as string, value, line, time, seq, lease as number | undefined);
      op.mode = mode; op.permits = permits; op.limit = limit;
      if (this.sink) this.sink.invoke(op); else this.ops.push(op);
      this.open.set(p, op);
      return;
    }
    if (open === undefined) {
      const endedAt = this.ended.get(p);
      const why = endedAt !== undefined ? `process ${p} already ended with info at line ${endedAt}` : `process ${p} has no open invoke`;
      this.fail(line, 'completion-without-invoke', `${type === 'fail' ? 'a' : 'an'} "${type}" of ${f} must complete an open invoke of the same process, but ${why}`,
        `add the invoke of ${f} by process ${p} before this line, or remove this line`);
    }
    if (open.f !== f || (key !== undefined && key !== open.key)) {
      const what = open.f !== f ? `f "${f}"` : `key "${key as string}"`;
      const want = open.f !== f ? `f "${open.f}"` : `key "${open.key}"`;
      this.fail(line, 'completion-mismatch', `this "${type}" has ${what} but the open invoke of process ${p} (line ${open.invokeLine}) has ${want}`,
        'a completion must repeat the f (and key, if given) of the invoke it completes');
    }
    const changed = (mode !== undefined && open.mode !== undefined && mode !== open.mode) ? 'mode'
      : (permits !== undefined && open.permits !== undefined && permits !== open.permits) ? 'permits'
      : (limit !== undefined && open.limit !== undefined && limit !== open.limit) ? 'limit' : undefined;
    if (changed) {
      this.fail(line, 'completion-mismatch', `this "${type}" has "${changed}": ${String({ mode, permits, limit }[changed])} but the invoke of process ${p} (line ${open.invokeLine}) has ${String(open[changed])}`,
        `a completion repeats the ${changed} of its acquire's invoke, or leaves it out`);
    }
    open.outcome = type;
    open.value = value;
    open.completeLine = line;
    open.completeTime = time;
    open.completeSeq = seq;
    if (lease !== undefined) open.leaseMs = lease as number;
    if (valid !== undefined) open.validMs = valid as number;
    if (sent !== undefined) open.sentMs = sent as number;
    if (mode !== undefined) open.mode = mode;
    if (permits !== undefined) open.permits = permits;
    if (limit !== undefined) open.limit = limit;
    this.open.delete(p);
    if (type === 'info') this.ended.set(p, line);
    this.sink?.complete(open);
  }

  /** Ops and nemesis events read so far (also with a sink). */
  get counts(): { ops: number; nemesis: number; events: number } {
    return { ops: this.opCount, nemesis: this.nemesisCount, events: this.seq };
  }

  /** Ends the history: invokes still open stay outcome 'info' (they may or may not have happened). */
  finish(): ParsedHistory {
    return { source: this.source, ops: this.ops, nemesis: this.nemesis, events: this.seq };
  }
}

/** An integer too large to be held exactly as a double: two such ids may read as one. */
function unsafe(v: unknown): boolean {
  return (typeof v === 'number' && Number.isInteger(v) && !Number.isSafeInteger(v)) || typeof v === 'bigint';
}

/** A short rendering of a bad value for messages. */
function describe(v: unknown): string {
  if (v === undefined) return 'nothing (the field is missing)';
  if (typeof v === 'number' && !Number.isFinite(v)) return Number.isNaN(v) ? 'NaN (not a number)' : `a number that is not finite (${v}: the literal is too large for a double, e.g. 1e309)`;
  if (unsafe(v)) return `${v}, beyond 2^53 (9007199254740992), where integers are no longer exact (the file's digits may differ)`;
  let s: string;
  try { s = typeof v === 'bigint' ? `${v}` : JSON.stringify(v) ?? String(v); } catch { s = String(v); }
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}
