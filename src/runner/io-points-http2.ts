// I/O points for clients that talk HTTP/2 (gRPC: the etcd3 package through @grpc/grpc-js): Node's
// http2 hands the session's socket to its native layer, so no frame goes through net.Socket's
// write or emit and the socket hook (./io-points.ts) sees nothing. Here one request is one
// command: its send is held at the stream's first data write (a unary gRPC call writes its one
// message there), and the stream's first data chunk is its reply. Later writes and chunks of a long-lived stream
// (lease keep-alives, a watch's events) are the library's background traffic, not a command of
// the operation they happen to fall in: counted, they would shift every later N by timing.
// A request is counted when it is made (its :path names the command in the report).
//
// The request's HEADERS frame leaves when request() returns (it cannot be held: request() is
// synchronous); the message is held instead, and with it the whole call: a server answers a
// unary call only once its message has come. Everything the stream does meanwhile (further
// writes, its end, and on the reply side every event after a held chunk) queues behind the held
// item, so order is kept; a stream destroyed while held drops its queue as a socket's does.
//
// http2.connect is wrapped (the module object: grpc-js reads http2.connect at each call), and
// each session's request() on that session; the session's socket is untagged for the socket
// hook, so nothing is counted twice when its frames do go through JS (TLS).
import { holdTimers, restartTimer } from './late-timers.ts';
import http2 from 'node:http2';

/** What the socket hook shares with this one: its counters, wanted points and the parent's question. */
export interface IoCore {
  /** Armed, inside an operation, and the port is one of the job's servers. */
  tracks(port: number | undefined): boolean;
  /** Counts a send of the current operation: its point name. */
  send(): string;
  /** Counts a reply of the current operation: its point name. */
  reply(): string;
  wants(name: string): boolean;
  /** Timers set in this turn (the command's deadline): restarted when a held write goes out. */
  turnTimers(): NodeJS.Timeout[];
  ask(name: string, command?: string): Promise<unknown>;
  /** The socket hook stops counting on this socket (it carries a session's frames). */
  forget(socket: unknown): void;
  /** Node's error to the callbacks of writes dropped on a destroyed stream. */
  dropOut(items: { args: unknown[] }[]): void;
}

type Item = { op: string; args: unknown[]; point?: string; timers?: NodeJS.Timeout[] };
type Fn = (...a: unknown[]) => unknown;

/** The last segment of a request's :path (gRPC: '/etcdserverpb.KV/Txn' → 'Txn'), for the report. */
function commandOf(headers: unknown): string | undefined {
  const p = headers && typeof headers === 'object' ? (headers as Record<string, unknown>)[':path'] : undefined;
  const word = typeof p === 'string' ? p.split('/').filter(Boolean).at(-1) : undefined;
  return word && /^[A-Za-z][A-Za-z0-9_.-]{0,31}$/.test(word) ? word : undefined;
}

function portOf(session: http2.ClientHttp2Session, authority: unknown): number | undefined {
  try {
    const p = session.socket?.remotePort;
    if (p) return p;
  } catch { /* no socket bound yet */ }
  try {
    const u = authority instanceof URL ? authority : new URL(String(authority));
    return u.port ? Number(u.port) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Hooks a request's stream. `point`: the request's send point when the parent wants a pause
 * there (counted when the request was made); its first data is held until the parent answers.
 */
function hookStream(core: IoCore, stream: http2.ClientHttp2Stream, port: number | undefined, command: string | undefined, point: string | undefined, timers: NodeJS.Timeout[]): void {
  const s = stream as unknown as Record<string, Fn>;
  const write = s.write!;
  const end = s.end!;
  const emit = s.emit!;
  let held = point === undefined;   // the request's point already taken (or none wanted)
  let replied = false;
  let out: Item[] | undefined;
  let inq: Item[] | undefined;

  async function drainOut(): Promise<void> {
    const q = out!;
    while (q.length) {
      const it = q[0]!;
      // As io-points.ts: timers that come due while the item is held run after it goes out.
      const release = it.point ? holdTimers() : undefined;
      try {
        if (it.point) await core.ask(it.point, command);
        q.shift();
        if (stream.destroyed) { core.dropOut([it, ...q.splice(0)]); break; }
        for (const t of it.timers ?? []) restartTimer(t);
        (it.op === 'end' ? end : write).apply(stream, it.args);
      } finally { release?.(); }
    }
    out = undefined;
  }

  async function drainIn(): Promise<void> {
    const q = inq!;
    while (q.length) {
      const it = q[0]!;
      const release = it.point ? holdTimers() : undefined;
      try {
        if (it.point) await core.ask(it.point);
        q.shift();
        emit.apply(stream, [it.op, ...it.args]);
      } finally { release?.(); }
    }
    inq = undefined;
  }

  /** The request's first data (write or end with a chunk): where its wanted point holds it. */
  const sendPoint = (op: string, args: unknown[]): string | undefined => {
    const data = op === 'write' || (args[0] !== undefined && args[0] !== null && typeof args[0] !== 'function');
    if (held || !data) return undefined;
    held = true;
    return point;
  };

  const outgoing = (op: 'write' | 'end') => function (this: unknown, ...args: unknown[]) {
    const point = sendPoint(op, args);
    if (out) { out.push({ op, args, point }); return op === 'end' ? stream : true; }
    if (!point) return (op === 'end' ? end : write).apply(stream, args);
    out = [{ op, args, point, timers: [...timers, ...core.turnTimers()] }];
    void drainOut();
    return op === 'end' ? stream : true;   // as if buffered: it is, here
  };
  s.write = outgoing('write');
  s.end = outgoing('end');

  s.emit = function (this: unknown, event: unknown, ...args: unknown[]) {
    let point: string | undefined;
    if (event === 'data' && !replied && core.tracks(port)) {
      replied = true;
      const name = core.reply();
      if (core.wants(name)) point = name;
    }
    if (inq) { inq.push({ op: event as string, args, point }); return true; }
    if (point) {
      inq = [{ op: 'data', args, point }];
      void drainIn();
      return true;
    }
    if (event === 'close' && out) core.dropOut(out.splice(1));   // q[0] is the write being paused at
    return emit.call(stream, event, ...args);
  };
}

/** Wraps http2.connect once: every session's requests count as the socket hook's sends and replies. */
export function hookHttp2(core: IoCore): void {
  const mod = http2 as unknown as { connect: Fn };
  const connect = mod.connect;
  mod.connect = function (this: unknown, authority: unknown, ...rest: unknown[]) {
    const session = connect.call(this, authority, ...rest) as http2.ClientHttp2Session;
    try { core.forget(session.socket); } catch { /* no socket bound yet */ }
    const request = session.request;
    session.request = function (this: http2.ClientHttp2Session, headers?: http2.OutgoingHttpHeaders, options?: http2.ClientSessionRequestOptions) {
      const port = portOf(this, authority);
      // A request is a command, counted when made; one that ends with its headers has no data
      // to hold, so it is no point either (gRPC never sends one).
      const name = core.tracks(port) && !options?.endStream ? core.send() : undefined;
      const point = name !== undefined && core.wants(name) ? name : undefined;
      // A held request's timeout starts when it goes out, as a command's does when the process
      // was paused before issuing it: gRPC's grpc-timeout header leaves before the hold and would
      // make the server count the pause (the client's own deadline timer is restarted instead).
      if (point && headers && 'grpc-timeout' in headers) {
        headers = { ...headers };   // the caller's object untouched; symbol keys (sensitive headers) kept
        delete headers['grpc-timeout'];
      }
      const stream = request.call(this, headers, options);
      // A request outside any operation (or to no server of the job) is no command: its stream is left alone.
      if (name !== undefined) hookStream(core, stream, port, commandOf(headers), point, point ? core.turnTimers() : []);
      return stream;
    } as typeof request;
    return session;
  };
}
