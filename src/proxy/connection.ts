// One proxied TCP connection: the client socket, the upstream socket, and a
// pipe per direction that runs every chunk through the proxy's current toxics.
// Toxics are read afresh for every chunk, so adding or removing one affects
// connections that are already open, as in Toxiproxy.
import net from 'node:net';
import type { Stream, Toxic } from './toxics.ts';
import type { RequestTap } from './points.ts';

/** How a connection sees its proxy's toxics. */
export interface ToxicSource {
  toxics(stream: Stream): Toxic[];
  /** The client's bytes reached the proxy (any connection of the link, framed or not): their time, for `sent_ms`. */
  clientSent?(): void;
}

const HIGH_WATER = 64; // queued chunks before reading from the source pauses
const BANDWIDTH_SLICE_MS = 100; // a bandwidth-limited chunk is sent in ≤100 ms slices

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A chunk to forward; `hold`: a request the proxy holds at its start (./points.ts), this chunk begins with it. */
type Chunk = { data: Buffer; at: number; hold?: { point: string; command?: string } };

class Pipe {
  private queue: Chunk[] = [];
  private running = false;
  private ended = false; // the source sent FIN (or closed)
  done = false;          // everything forwarded and the FIN passed on (or the destination is gone)
  private wake: (() => void) | null = null;
  private sent = 0; // bytes forwarded, for limit_data
  private readonly rolls = new Map<string, boolean>(); // toxic name@generation → applies to this connection
  private readonly timers = new Map<string, NodeJS.Timeout>(); // timeout / reset_peer timers by toxic name@generation

  constructor(private readonly conn: Connection, readonly stream: Stream,
    private readonly src: net.Socket, private readonly dst: net.Socket) {
    const sent = stream === 'upstream' ? conn.source.clientSent?.bind(conn.source) : undefined;
    src.on('data', (data: Buffer) => {
      sent?.();
      this.enqueue(data, Date.now());
      if (this.queue.length >= HIGH_WATER) src.pause();
      void this.run();
    });
    src.on('end', () => this.sourceEnded());
  }

  /** Queues what the source sent; the client's bytes are framed and counted as they arrive (a held request splits its chunk). */
  private enqueue(data: Buffer, at: number): void {
    const tap = this.stream === 'upstream' ? this.conn.tap : undefined;
    const starts = tap?.framer.push(data);
    const hold = starts ? tap!.points.arrive(data, starts) : undefined;
    if (!hold) { this.queue.push({ data, at }); return; }
    const { offset, ...point } = hold;
    if (offset > 0) this.queue.push({ data: data.subarray(0, offset), at });
    this.queue.push({ data: data.subarray(offset), at, hold: point });
  }

  sourceEnded(): void { this.ended = true; void this.run(); }

  /** The destination socket is gone: nothing more can be delivered. */
  discard(): void { this.queue = []; this.ended = true; this.markDone(); }

  private markDone(): void {
    if (this.done) return;
    this.done = true;
    this.conn.pipeDone();
  }

  /** The toxics that apply to this connection (toxicity rolled once per toxic version). */
  active(): Toxic[] {
    return this.conn.source.toxics(this.stream).filter((t) => {
      const key = `${t.name}@${t.generation}`;
      let applies = this.rolls.get(key);
      if (applies === undefined) { applies = t.toxicity >= 1 || Math.random() < t.toxicity; this.rolls.set(key, applies); }
      return applies;
    });
  }

  /** Re-reads the toxics: arms timers for new timeout/reset_peer toxics, drops timers of removed ones. */
  refresh(): void {
    const active = this.active();
    const live = new Set<string>();
    for (const t of active) {
      const key = `${t.name}@${t.generation}`;
      if (t.type === 'reset_peer') {
        live.add(key);
        if (!this.timers.has(key)) this.timers.set(key, setTimeout(() => this.conn.reset(this.stream), t.attributes.timeout));
      } else if (t.type === 'timeout' && t.attributes.timeout > 0) {
        live.add(key);
        if (!this.timers.has(key)) this.timers.set(key, setTimeout(() => this.conn.close(), t.attributes.timeout));
      }
    }
    for (const [key, timer] of this.timers) if (!live.has(key)) { clearTimeout(timer); this.timers.delete(key); }
    this.wake?.();
  }

  stop(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.queue = [];
    this.wake?.();
  }

  /** Whether a timeout toxic holds this stream now (a black hole). */
  holding(): boolean {
    return this.active().some((t) => t.type === 'timeout');
  }

  /** Waits while a timeout toxic holds this stream: it holds all data, and the source's FIN too, until it is removed. */
  private async held(): Promise<void> {
    while (!this.conn.closed && this.holding()) {
      await new Promise<void>((r) => { this.wake = r; });
      this.wake = null;
    }
  }

  private async run(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      while (!this.conn.closed && this.queue.length > 0) {
        await this.held();
        const chunk = this.queue.shift();
        if (!chunk || this.conn.closed) break;
        // A held request, and all behind it on this link, waits for the runner's go.
        if (chunk.hold) await this.conn.tap!.points.hold(chunk.hold);
        if (this.conn.closed) break;
        if (this.queue.length < HIGH_WATER / 2) this.src.resume();
        await this.forward(chunk);
      }
      // As in Toxiproxy, a black hole swallows the close too: the far side sees its peer vanish
      // (a host that died behind a silent network keeps its server session) until it is removed.
      if (this.ended && this.queue.length === 0) await this.held();
      if (this.ended && this.queue.length === 0 && !this.conn.closed && !this.done) {
        this.dst.end();
        this.markDone();
      }
    } finally {
      this.running = false;
    }
  }

  private async forward(chunk: Chunk): Promise<void> {
    const toxics = this.active();
    // Latency counts from when the chunk arrived, so back-to-back chunks are not delayed twice.
    let delay = 0;
    for (const t of toxics) {
      if (t.type !== 'latency') continue;
      const { latency, jitter } = t.attributes;
      delay += latency + (jitter > 0 ? Math.round((Math.random() * 2 - 1) * jitter) : 0);
    }
    const wait = chunk.at + delay - Date.now();
    if (wait > 0) await sleep(wait);
    if (this.conn.closed) return;

    let data = chunk.data;
    const limit = toxics.find((t) => t.type === 'limit_data');
    let closeAfter = false;
    if (limit) {
      const remaining = Math.max(0, limit.attributes.bytes - this.sent);
      if (data.length >= remaining) { data = data.subarray(0, remaining); closeAfter = true; }
    }
    const rates = toxics.filter((t) => t.type === 'bandwidth' && t.attributes.rate > 0).map((t) => t.attributes.rate);
    if (rates.length > 0) {
      const rate = Math.min(...rates); // KB/s = bytes per ms
      const slice = Math.max(1, Math.floor(rate * BANDWIDTH_SLICE_MS));
      for (let off = 0; off < data.length && !this.conn.closed; off += slice) {
        const part = data.subarray(off, off + slice);
        await sleep(part.length / rate);
        if (!this.conn.closed) this.dst.write(part);
      }
    } else if (data.length > 0) {
      this.dst.write(data);
    }
    this.sent += data.length;
    if (closeAfter) this.conn.close(true);
  }
}

export class Connection {
  closed = false;
  private readonly up: Pipe;
  private readonly down: Pipe;

  constructor(readonly source: ToxicSource, readonly client: net.Socket, readonly upstream: net.Socket,
    private readonly onClosed: (c: Connection) => void, readonly tap?: RequestTap) {
    this.up = new Pipe(this, 'upstream', client, upstream);
    this.down = new Pipe(this, 'downstream', upstream, client);
    for (const s of [client, upstream]) {
      // A socket that failed (a reset) ends the connection, unless a black hole holds its side's
      // stream: then the other side hears nothing, as with a FIN, until the hole is removed.
      const failed = () => ((s === client ? this.up : this.down).holding() ? this.ended(s) : this.close());
      s.on('error', failed);
      s.on('close', (hadError) => (hadError ? failed() : this.ended(s)));
    }
    this.refresh();
  }

  /** A socket that closed: what it sent still drains to the other side (held by a black hole like its data), then FIN. */
  private ended(s: net.Socket): void {
    (s === this.client ? this.down : this.up).discard();
    (s === this.client ? this.up : this.down).sourceEnded();
  }

  pipeDone(): void { if (this.up.done && this.down.done) this.close(); }

  refresh(): void { this.up.refresh(); this.down.refresh(); }

  /** Closes both sides; `graceful` flushes what was already written and sends FIN. */
  close(graceful = false): void {
    if (this.closed) return;
    this.closed = true;
    this.up.stop(); this.down.stop();
    for (const s of [this.client, this.upstream]) {
      if (graceful) s.destroySoon(); else s.destroy();
    }
    this.onClosed(this);
  }

  /** reset_peer: the receiving side of `stream` gets a TCP RST. */
  reset(stream: Stream): void {
    if (this.closed) return;
    const victim = stream === 'downstream' ? this.client : this.upstream;
    if (!victim.destroyed) victim.resetAndDestroy();
    this.close();
  }
}
