// HTTP/2, as gRPC clients speak it to etcd: after the 24-byte client preface, frames of a 9-byte
// header (a 24-bit length, type, flags, stream id) and a body. A request is a gRPC call: a client
// stream's first HEADERS frame (a new odd stream id). Its DATA frames, CONTINUATIONs, and the
// connection's own frames (SETTINGS, PING, WINDOW_UPDATE) are not new requests. Neither are later
// messages on a stream left open (a lease keep-alive, a watch): they are the library's background
// traffic, which timing alone places in one operation or another (the in-process HTTP/2 points,
// src/runner/io-points-http2.ts, leave them out for the same reason).
import { FrameScanner, type Framing } from './types.ts';

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
const HEADERS = 0x1;

class Http2Framer extends FrameScanner {
  private preface = true;   // the client preface is still to come
  private lastStream = 0;   // the highest client stream id opened so far

  protected headerBytes(): number { return this.preface ? PREFACE.length : 9; }

  protected begin(h: Buffer): { bodyBytes: number; starts: boolean } | undefined {
    if (this.preface) {
      // Anything else (TLS, HTTP/1.1) is not a cleartext HTTP/2 connection: count nothing on it.
      if (!h.equals(PREFACE)) return undefined;
      this.preface = false;
      return { bodyBytes: 0, starts: false };
    }
    const stream = h.readUInt32BE(5) & 0x7fffffff;
    // Client streams are odd and only grow (RFC 9113 5.1.1): a HEADERS on a higher one opens a call.
    const opens = h[3] === HEADERS && stream % 2 === 1 && stream > this.lastStream;
    if (opens) this.lastStream = stream;
    return { bodyBytes: h.readUIntBE(0, 3), starts: opens };
  }
}

export const http2: Framing = {
  summary: "HTTP/2 (etcd's gRPC): a request is a new client stream's HEADERS frame; a long-lived stream's later messages (keep-alives) are not counted",
  create: () => new Http2Framer(),
  // The method's name is HPACK-coded against the connection's header table: not readable from one request's bytes.
  command: () => undefined,
  closes: [],
};
