// The PostgreSQL frontend protocol: a type byte and an int32 length (itself included), except the
// first message (startup, SSLRequest, GSSENCRequest, CancelRequest: an int32 length and an int32
// code, no type byte). A request is a run of messages up to the one that asks the server to act
// and answer: a simple Query, a Sync ending an extended-protocol batch (Parse, Bind, Describe,
// Execute), a Flush, a FunctionCall, a password or SASL message, the end of a COPY, Terminate.
// A link that turns to TLS (an SSLRequest the server accepted) is not framed.
import { FrameScanner, type Framing } from './types.ts';

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
/** Frontend message types. */
const TYPES = new Set('BCdcfDEHFPpQSX'.split('').map((c) => c.charCodeAt(0)));
/** The messages after which the client waits for the server: the next message begins a request. */
const ENDS = new Set('QSHFpcfX'.split('').map((c) => c.charCodeAt(0)));

class PostgresFramer extends FrameScanner {
  private untyped = true;      // the next message has no type byte (startup, or after an SSL/GSS request)
  private afterEnd = true;     // the previous message ended a request
  private tlsMaybe = false;    // an SSL/GSS request was sent: the next byte tells whether TLS began

  protected headerBytes(): number { return this.untyped ? 8 : 5; }

  protected begin(h: Buffer): { bodyBytes: number; starts: boolean } | undefined {
    if (this.untyped) {
      // After an accepted SSLRequest the client starts a TLS handshake (0x16): not framed.
      if (this.tlsMaybe && h[0] === 0x16) return undefined;
      this.tlsMaybe = false;
      const len = h.readInt32BE(0);
      const code = h.readInt32BE(4);
      if (len < 8) return undefined;
      const again = code === SSL_REQUEST || code === GSSENC_REQUEST;
      this.untyped = again;
      this.tlsMaybe = again;
      this.afterEnd = true;
      return { bodyBytes: len - 8, starts: true };
    }
    const type = h[0]!;
    const len = h.readInt32BE(1);
    if (!TYPES.has(type) || len < 4) return undefined;
    const starts = this.afterEnd;
    this.afterEnd = ENDS.has(type);
    return { bodyBytes: len - 4, starts };
  }
}

/** The first word of a statement (upper-cased) from a NUL-terminated string at `at`. */
function word(b: Buffer, at: number): string | undefined {
  const w = /^\s*([A-Za-z]+)/.exec(b.toString('latin1', at, Math.min(b.length, at + 64)))?.[1];
  return w?.toUpperCase();
}

export const postgres: Framing = {
  summary: 'PostgreSQL: a type byte and an int32 length (the startup message has no type byte); a request runs to a Query, Sync or Flush',
  create: () => new PostgresFramer(),
  closes: ['TERMINATE'],
  command(head) {
    if (head.length < 5) return undefined;
    if (head[0] === 0x58) return 'TERMINATE';
    if (head[0] === 0x51) return word(head, 5);   // Query: the statement
    if (head[0] === 0x50) {                        // Parse: statement name, NUL, then the statement
      const nul = head.indexOf(0, 5);
      return nul < 0 ? undefined : word(head, nul + 1);
    }
    return undefined;
  },
};
