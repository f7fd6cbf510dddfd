// When the client last wrote to a socket, for `sent_ms` on an acquire ok (checkers/validity.ts).
// A lock that reports its validity must start its clock before its granting round's first request
// goes out, and every write of that round comes after, so the time from the acquire's LAST write
// until it returned is a lower bound on the time the lock had to count: it holds whatever the lock
// did before that round (a failed attempt, a retry's sleep, a connect), and whatever other socket
// wrote meanwhile (a write after the round began only makes the bound smaller, never wrong).
// Measured here on the worker's monotonic clock, so neither IPC nor the recorder's scheduling is in it.
// Wrapped around whatever write is in place when installed (install it after the I/O points): a
// write an I/O point holds counts when the lock made it, which is after its clock started too.
// gRPC clients (HTTP/2) write past net.Socket: each session's request() counts as a write.
import http2 from 'node:http2';
import net from 'node:net';
import { performance } from 'node:perf_hooks';

export interface SendClock {
  /** Forget earlier writes: an operation starts. */
  reset(): void;
  /** ms since the last write since reset(), floored; undefined when nothing was written. */
  sinceLastWrite(now: number): number | undefined;
}

let installed: SendClock | undefined;

export function installSendClock(): SendClock {
  if (installed) return installed;
  let last: number | undefined;
  const proto = net.Socket.prototype as unknown as { write: (...a: unknown[]) => boolean };
  const write = proto.write;
  proto.write = function (this: net.Socket, ...args: unknown[]) {
    last = performance.now();
    return write.apply(this, args);
  };
  const mod = http2 as unknown as { connect: (...a: unknown[]) => http2.ClientHttp2Session };
  const connect = mod.connect;
  mod.connect = function (this: unknown, ...args: unknown[]) {
    const session = connect.apply(this, args);
    const request = session.request;
    session.request = function (this: http2.ClientHttp2Session, ...a: Parameters<typeof request>) {
      last = performance.now();
      return request.apply(this, a);
    } as typeof request;
    return session;
  };
  installed = {
    reset() { last = undefined; },
    sinceLastWrite(now) { return last === undefined ? undefined : Math.max(0, Math.floor(now - last)); },
  };
  return installed;
}
