// I/O points the fault proxy makes (a lockpick extension of the Toxiproxy API: src/proxy/api.ts):
// for a client whose I/O no hook in its process sees (a native client library, a client in
// another language), the proxy frames the requests it sends (./framing/) and counts them per
// operation, as the worker's in-process points do (src/runner/io-points.ts): 'send:release:2' is
// the 2nd send of a release. A send is the requests that reach the proxy in one read of a link
// (a pipeline written at once is one send, as it is one turn's writes in the worker); a read that
// only continues a request is not one.
//
// The runner says which operation the client is in (counters start at 0) and which points to
// hold. At a held point the request, and everything after it on that link, waits (bytes keep
// their order); the runner hears of it (a long poll), pauses the client (SIGSTOP) and lets the
// request go on when the pause ends. Other links of the client go on meanwhile, as the
// in-process points let other sockets go on.
import { FRAMINGS, type Framer, type Framing } from './framing/index.ts';

export const POINT_OPS = ['acquire', 'release', 'renew'] as const;
export type PointOp = typeof POINT_OPS[number];

/** The most sends one operation of a kind made, and (acquires) the fewest of one that got the lock. */
export interface SendCounts { sends: number; grantedSends?: number }

/** A request the proxy holds: the point it is at and its command, when readable. */
export interface HeldJson { id: number; point: string; command?: string }

interface Held extends HeldJson { go: () => void }

/** One client's counters and holds, shared by every link the client has. */
export class ClientPoints {
  private op: PointOp | undefined;
  private sends = 0;
  private wanted = new Set<string>();
  private most = new Map<PointOp, SendCounts>();
  private held: Held[] = [];
  private reported = 0;      // ids up to this were handed to the runner
  private nextId = 0;
  private waiters: (() => void)[] = [];

  constructor(readonly framing: Framing) {}

  /** Points to hold from now on ('send:release:2'); the counts so far are forgotten. */
  arm(hold: readonly string[]): void {
    this.wanted = new Set(hold);
    this.most.clear();
    this.op = undefined;
  }

  /** The operation the client is in now (counters start at 0), or none; `granted`: the one ending returned the lock. */
  operation(op: PointOp | undefined, granted = false): void {
    if (granted && this.op === 'acquire') {
      const m = this.most.get('acquire') ?? { sends: this.sends };
      m.grantedSends = Math.min(m.grantedSends ?? Infinity, this.sends);
      this.most.set('acquire', m);
    }
    this.op = op;
    this.sends = 0;
  }

  /** A read of a link began requests (`starts`, offsets in `chunk`): counts a send; the point to hold at, if wanted. */
  arrive(chunk: Buffer, starts: number[]): { offset: number; point: string; command?: string } | undefined {
    if (this.op === undefined || starts.length === 0) return undefined;
    const offset = starts[0]!;
    const command = this.framing.command(chunk.subarray(offset, offset + 256));
    if (command !== undefined && this.framing.closes.includes(command)) return undefined;
    this.sends++;
    const m = this.most.get(this.op) ?? { sends: 0 };
    m.sends = Math.max(m.sends, this.sends);
    this.most.set(this.op, m);
    const point = `send:${this.op}:${this.sends}`;
    if (!this.wanted.has(point)) return undefined;
    return { offset, point, ...(command ? { command } : {}) };
  }

  /** Holds the request at `point` until the runner says go (or this client is unbound). */
  hold(at: { point: string; command?: string }): Promise<void> {
    return new Promise((resolve) => {
      this.held.push({ id: ++this.nextId, ...at, go: resolve });
      for (const w of this.waiters.splice(0)) w();
    });
  }

  /** The oldest hold not yet told to the runner, waiting up to waitMs for one. */
  async next(waitMs: number): Promise<HeldJson | undefined> {
    const first = () => this.held.find((h) => h.id > this.reported);
    if (!first() && waitMs > 0) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(() => { this.waiters = this.waiters.filter((w) => w !== done); resolve(); }, waitMs);
        const done = () => { clearTimeout(t); resolve(); };
        this.waiters.push(done);
      });
    }
    const h = first();
    if (!h) return undefined;
    this.reported = h.id;
    return { id: h.id, point: h.point, ...(h.command ? { command: h.command } : {}) };
  }

  /** The held request `id` goes on (unknown ids are ignored: it went on already). */
  go(id: number): void {
    const i = this.held.findIndex((h) => h.id === id);
    if (i >= 0) this.held.splice(i, 1)[0]!.go();
  }

  /** Everything held goes on, nothing more is held (the client is unbound, or its run ended). */
  releaseAll(): void {
    this.wanted.clear();
    for (const h of this.held.splice(0)) h.go();
    for (const w of this.waiters.splice(0)) w();
  }

  json(): { op: PointOp | null; sends: number; reached: Partial<Record<PointOp, SendCounts>>; held: HeldJson[] } {
    return {
      op: this.op ?? null, sends: this.sends,
      reached: Object.fromEntries(this.most),
      held: this.held.map(({ id, point, command }) => ({ id, point, ...(command ? { command } : {}) })),
    };
  }
}

/** What a proxy's connection does with the client's bytes when its client is bound: frame, count, hold. */
export interface RequestTap { framer: Framer; points: ClientPoints }

export function framing(name: unknown): Framing | undefined {
  return typeof name === 'string' ? FRAMINGS.get(name) : undefined;
}
