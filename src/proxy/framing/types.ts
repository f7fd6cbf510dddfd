// A request framer: reads the bytes a client sends to its server, in order, and says where each
// request of the server's protocol begins, so the fault proxy can count a client's requests and
// hold one before it goes out (src/proxy/points.ts). One per connection, from its first byte.

export interface Framer {
  /**
   * The offsets in `chunk` (the next bytes of the client's stream) at which a request begins.
   * Undefined from the moment the bytes are not this protocol (TLS, a compressed MySQL link, a
   * malformed frame): the proxy then counts nothing more on that connection, rather than guess.
   */
  push(chunk: Buffer): number[] | undefined;
}

/** One protocol the proxy frames: an entry of FRAMINGS (./index.ts), named by a TopologyDef's `framing`. */
export interface Framing {
  summary: string;
  create(): Framer;
  /** The request's command in the server's words (DEL, DELETE, GETDATA) from its first bytes, when it can be read for sure. */
  command(head: Buffer): string | undefined;
  /**
   * The commands that end the session (QUIT, Terminate): a client's close() sends one right after
   * its last operation, before the runner can tell the proxy that operation ended, so they are
   * never counted as a send of it.
   */
  closes: readonly string[];
}

/** A framer that has lost the protocol stays lost: every later push is undefined too. */
export abstract class BaseFramer implements Framer {
  private lost = false;
  push(chunk: Buffer): number[] | undefined {
    if (this.lost) return undefined;
    const starts = this.scan(chunk);
    if (!starts) this.lost = true;
    return starts;
  }
  protected abstract scan(chunk: Buffer): number[] | undefined;
}

/**
 * Length-prefixed frames, the shape MySQL, PostgreSQL and ZooKeeper share: a header of
 * `headerBytes` read whole (across chunks), then a body whose length the header gives.
 * `begin(header)` says how long the body is and whether this frame starts a request
 * (undefined: not this protocol).
 */
export abstract class FrameScanner extends BaseFramer {
  private header: number[] = [];
  private body = 0;          // body bytes still to skip
  private frameAt = -1;      // where the current frame's header began in this chunk, or -1 (an earlier chunk)

  protected abstract headerBytes(): number;
  protected abstract begin(header: Buffer): { bodyBytes: number; starts: boolean } | undefined;

  protected scan(chunk: Buffer): number[] | undefined {
    const starts: number[] = [];
    let i = 0;
    this.frameAt = this.header.length > 0 ? -1 : 0;
    while (i < chunk.length) {
      if (this.body > 0) {
        const take = Math.min(this.body, chunk.length - i);
        this.body -= take;
        i += take;
        continue;
      }
      if (this.header.length === 0) this.frameAt = i;
      const need = this.headerBytes() - this.header.length;
      const take = Math.min(need, chunk.length - i);
      for (let j = 0; j < take; j++) this.header.push(chunk[i + j]!);
      i += take;
      if (this.header.length < this.headerBytes()) break;
      const frame = this.begin(Buffer.from(this.header));
      this.header = [];
      if (!frame || frame.bodyBytes < 0) return undefined;
      this.body = frame.bodyBytes;
      // A request whose header began in an earlier chunk is counted where this chunk begins.
      if (frame.starts) starts.push(Math.max(0, this.frameAt));
    }
    return starts;
  }
}
