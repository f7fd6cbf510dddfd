// Benchmark histories written as `lockpick run` records them (src/runner/recorder.ts): the
// fields in the recorder's order (type, f, process, key, value, time, then the extras), `time`
// in ns from one monotonic clock on every event, the client's name on each invoke, `error` on
// an info, a run-start and run-end nemesis record around the run, keys named r<run>-k<n>.
// The ops come from the test simulators (correct services; test/support/*-sim.ts), seeded, and
// are streamed to the file: a 10M-op history never sits in memory.
import { closeSync, openSync, writeSync } from 'node:fs';
import type { HistoryEvent } from '../src/history/types.ts';
import { seeded, type Choices } from '../test/support/choices.ts';
import { injectWrongRead } from '../test/support/inject.ts';
import { simulateLock } from '../test/support/lock-sim.ts';
import { simulateRegister } from '../test/support/register-sim.ts';

/** Appends lines to a file in large writes. */
class LineWriter {
  private readonly fd: number;
  private buf: string[] = [];
  events = 0;
  constructor(file: string) { this.fd = openSync(file, 'w'); }
  line(s: string): void {
    this.buf.push(s);
    this.events++;
    if (this.buf.length >= 20_000) this.flush();
  }
  flush(): void { if (this.buf.length) writeSync(this.fd, this.buf.join('\n') + '\n'); this.buf = []; }
  close(): void { this.flush(); closeSync(this.fd); }
}

/**
 * Turns simulator events into recorded ones: a clock that moves 20 µs to 2 ms per event, a
 * client name per process (a fresh process after an info keeps its client's name), keys renamed
 * to the run's. The simulator's own `time` is dropped, as the recorder drops a caller's.
 */
class Recording {
  private now = 300_000_000; // the first run starts a few hundred ms after the recorder
  private readonly clientOf = new Map<number, string>();
  private readonly open = new Map<number, string>(); // process -> client, while its op is open
  constructor(private readonly w: LineWriter, private readonly ch: Choices, private readonly run: number, private readonly meta: Record<string, unknown>, private readonly plainReleases = false) {}

  private tick(): number { return (this.now += 20_000 + this.ch.int(1_980_000)); }

  start(): void { this.w.line(JSON.stringify({ type: 'info', f: 'run-start', process: 'nemesis', value: { run: this.run, ...this.meta }, time: this.tick() })); }
  end(): void { this.w.line(JSON.stringify({ type: 'info', f: 'run-end', process: 'nemesis', value: { run: this.run }, time: this.tick() })); }

  /** slot: which of the simulator's clients this process is (for its name). */
  event(e: HistoryEvent, slot: (p: number) => number): void {
    const p = e.process as number;
    const out: Record<string, unknown> = { type: e.type, f: e.f, process: p };
    if (e.key !== undefined) out.key = `r${this.run}-${e.key}`;
    if (e.value !== undefined && !(this.plainReleases && e.f === 'release')) out.value = e.value;
    out.time = this.tick();
    for (const [k, v] of Object.entries(e)) if (!['type', 'f', 'process', 'key', 'value', 'time'].includes(k)) out[k] = v;
    if (e.type === 'invoke') {
      let c = this.clientOf.get(p);
      if (c === undefined) this.clientOf.set(p, (c = `c${slot(p) + 1}`));
      out.client = c;
      this.open.set(p, c);
    } else {
      this.open.delete(p);
      if (e.type === 'info') out.error = 'timed out';
    }
    this.w.line(JSON.stringify(out));
  }
}

/** Tracks which simulator client (0..clients-1) each process id belongs to: a fresh id replaces the slot whose op ended in info. */
function slots(clients: number): { note: (e: HistoryEvent) => void; of: (p: number) => number } {
  const slot = new Map<number, number>();
  for (let i = 0; i < clients; i++) slot.set(i, i);
  const freed: number[] = [];
  return {
    note(e) {
      const p = e.process as number;
      if (e.type === 'invoke' && !slot.has(p)) slot.set(p, freed.shift() ?? slot.size);
      if (e.type === 'info') { freed.push(slot.get(p)!); }
    },
    of: (p) => slot.get(p) ?? 0,
  };
}

/**
 * leaseless: no release fails and no hold lapses, and a release the simulated server answered
 * "lost" (another acquire got in after its invoke, where the holder's belief ended) is recorded as
 * a plain release, which a plain mutex places before that acquire: no `lease_ms`, `lost` or
 * `lapse` anywhere, so a checker without lease semantics (Porcupine) reads the file alike.
 */
export interface MutexSpec { ops: number; keys: number; seed: number; clients?: number; infoPct?: number; doubleHolder?: boolean; leaseless?: boolean }

/** Process id of an injected double holder: above any id the simulator hands out. */
const INTRUDER = 2 ** 31;

/**
 * An owner-aware mutex history (a lock without leases), `ops` ops over `keys` keys. doubleHolder:
 * a third of the way in, right after some acquire ok, another process acquires and releases.
 */
export function writeRecordedMutex(file: string, o: MutexSpec): { events: number } {
  const w = new LineWriter(file);
  const clients = o.clients ?? 10;
  const ch = seeded(o.seed);
  const rec = new Recording(w, seeded(o.seed ^ 0x5bd1e995), 1, { lock: 'bench-mutex', backend: 'zookeeper', clients, faults: 0 }, o.leaseless);
  const s = slots(clients);
  let injectAt = o.doubleHolder ? Math.floor(o.ops * 2 / 3) : Infinity; // ~2 events per op: a third of the file
  try {
    rec.start();
    simulateLock({ clients, keys: o.keys, steps: Infinity, maxOps: o.ops, infoPerMille: (o.infoPct ?? 1) * 5, failPerMille: o.leaseless ? 0 : 20, renewPerMille: 0, ...(o.leaseless ? { lapsePerMille: 0 } : {}) }, ch,
      (e) => {
        s.note(e); rec.event(e, s.of);
        if (injectAt <= w.events && e.type === 'ok' && e.f === 'acquire') {
          injectAt = Infinity;
          for (const f of ['acquire', 'release']) for (const type of ['invoke', 'ok'] as const) rec.event({ type, f, process: INTRUDER, key: e.key }, () => clients);
        }
      });
    rec.end();
  } finally { w.close(); }
  return { events: w.events };
}

export interface RegisterSpec { steps: number; seed: number; clients?: number; infoPerMille?: number; badRead?: boolean }

/**
 * A cas-register history on one key (values null and 0..3): `steps` simulator steps (~1/3 as
 * many ops). badRead: one read in the middle returns a value nobody wrote.
 */
export function writeRecordedRegister(file: string, o: RegisterSpec): { events: number } {
  const clients = o.clients ?? 10;
  const events: HistoryEvent[] = [];
  simulateRegister({ clients, keys: 1, steps: o.steps, cas: true, infoPerMille: o.infoPerMille ?? 50 }, seeded(o.seed), (e) => events.push(e));
  const all = o.badRead ? injectWrongRead(events, Math.floor(events.length / 2)).events : events;
  const w = new LineWriter(file);
  const rec = new Recording(w, seeded(o.seed ^ 0x5bd1e995), 1, { lock: 'bench-register', clients, faults: 0 });
  const s = slots(clients);
  try {
    rec.start();
    for (const e of all) { s.note(e); rec.event(e, s.of); }
    rec.end();
  } finally { w.close(); }
  return { events: w.events };
}
