// Pause points made by a client's I/O, with no help from the lock: 'send:<op>:N' just before
// the N-th send to a server socket during one operation (acquire, release, renew), and
// 'reply:<op>:N' just after the N-th chunk of reply data arrives in it, before the client
// library sees it. A send is what the client writes to one socket in one turn of the event
// loop (until it next waits for I/O or a timer), not one write() call: node-redis (v4, v5)
// writes a command with a Buffer argument as three write() calls (and a MULTI as one call per
// command, corked), ioredis and mysql2 one call per command or pipeline, so counting calls
// made 'send:release:2' the middle of a GET for one library and the DEL for another. Counted
// by turn it is the command (or the pipeline written at once) for every client library, and
// a pause can only land where a paused process could have stopped: between the writes of two
// turns, never inside the bytes a library hands the socket at once. A user's lock declares no ctx.point(), so this is how a pause lands between
// its GET and its DEL ('send:release:2'), or between a SET and its reply ('reply:acquire:1').
// Counting within the operation (not from the run's start) keeps the DEL the 2nd command of
// every such release however many SETs the acquire before it retried, so a drawn point is
// reached in most runs, at the first such operation after the fault's at_ms.
//
// Installed once in the worker: net.Socket's connect (to learn the port a socket was opened
// to), write/end and emit are wrapped. Only sockets to the job's server ports count (never the
// resource store, never the IPC channel, which is no net.Socket to a port). At a wanted point
// the write (or data chunk) is held and the parent asked (the same `point` question as a
// recipe's point: if the fault is due the parent SIGSTOPs this process for the pause, then says
// 'go'); everything that socket does meanwhile is queued behind it, so bytes keep their order
// both ways and pipelined commands stay in order. A socket that closes while held drops its
// queue (write callbacks get an error as Node gives them for a destroyed socket): nothing leaks.
// A socket the client destroyed while a reply was held gets no more data (nor its end): only its
// 'close' and 'error', as Node gives a destroyed socket; data after the destroy made node-redis's
// parser throw on a reply to a command it had already failed.
//
// After the pause the held item goes out before any timer that ran out during it fires
// (late-timers.ts, installed with these points): a reply that arrived during a pause is read, as a
// real paused process would find it in its socket, rather than the library's timeout firing first.
//
// What each operation kind reached (the most sends and replies of one operation) is kept for
// the run (takeReached()): the runner draws I/O points only among those (src/workload/points.ts).
//
// HTTP/2 clients (gRPC: etcd3) write their frames natively, past net.Socket: ./io-points-http2.ts
// counts each request as one send there, on the same counters.
//
// Not covered: clients doing their I/O outside Node's net (the `zookeeper` package's C client, a
// child process): their send points come from the fault proxy instead (./proxy-points.ts).
import net from 'node:net';
import { ioPointName, type IoPointOp } from '../../nemesis/points.ts';
import { commandWord } from './command-word.ts';
import { hookHttp2 } from './io-points-http2.ts';
import { holdTimers, installLateTimers, restartTimer } from './late-timers.ts';
import type { IoCounts } from '../workload/points.ts';

const PORT = Symbol('lockpick.ioPort');
const OUT = Symbol('lockpick.ioOut');     // writes/ends queued behind a held write
const IN = Symbol('lockpick.ioIn');       // events queued behind a held data chunk
const TURN = Symbol('lockpick.ioTurn');   // the turn of this socket's last counted send

type Item = { op: string; args: unknown[]; point?: string; timers?: NodeJS.Timeout[] };
type Tagged = net.Socket & { [PORT]?: number; [OUT]?: Item[]; [IN]?: Item[]; [TURN]?: number };

export interface IoPoints {
  /** From now on count on sockets to these ports and hold at these points. */
  arm(ports: Iterable<number>, points: readonly string[]): void;
  /** The operation the client is in from now (counters start at 0), or none (nothing counts). */
  operation(op: IoPointOp | undefined): void;
  /** The current operation returned the lock: its sends so far are what a granted acquire reaches. */
  granted(): void;
  /** Stop counting (held items still go out when the parent answers). */
  disarm(): void;
  /** Sends and data chunks counted in the current operation (for tests). */
  counts(): IoCounts;
  /** Per operation kind, the most sends and replies one operation reached since the last take (or arm()). */
  takeReached(): Partial<Record<IoPointOp, IoCounts>>;
}

/** The port a connect call names: (port, host), (options), or Node's normalized [options, cb]. */
function portOf(args: unknown[]): number | undefined {
  let a = args[0];
  if (Array.isArray(a)) a = a[0];
  if (a && typeof a === 'object') a = (a as { port?: unknown }).port;
  const n = typeof a === 'number' ? a : typeof a === 'string' && /^\d+$/.test(a) ? Number(a) : NaN;
  return Number.isInteger(n) ? n : undefined;
}

let installed: IoPoints | undefined;

/** Wraps net.Socket once per process; ask(name) is the worker's point question (resolves on 'go'). */
export function installIoPoints(ask: (name: string, command?: string) => Promise<unknown>): IoPoints {
  if (installed) return installed;
  installLateTimers();
  const proto = net.Socket.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
  const connect = proto.connect!;
  const write = proto.write!;
  const end = proto.end!;
  const emit = proto.emit!;
  let ports = new Set<number>();
  let wanted = new Set<string>();
  let armed = false;
  let op: IoPointOp | undefined;
  let sends = 0;
  let replies = 0;
  let most: Partial<Record<IoPointOp, IoCounts>> = {};
  // Event-loop turns: a write in a turn after its socket's last counted one is a new send.
  let turn = 0;
  let turnEnds = false;
  const nextTurn = () => { turn++; turnEnds = false; thisTurnTimers = []; };
  // Timers a client library set in this turn, just before the write it is held at: its command
  // timeout for that command. A pause "just before the command" must not count against it (a
  // process paused before issuing a command starts its timer after waking), so when a held write
  // goes out they are restarted (Timeout.refresh(); a cleared one stays cleared).
  let thisTurnTimers: NodeJS.Timeout[] = [];
  const realSetTimeout = globalThis.setTimeout;
  globalThis.setTimeout = function (this: unknown, ...a: Parameters<typeof setTimeout>) {
    const t = realSetTimeout.apply(this, a);
    if (armed && op !== undefined) {
      thisTurnTimers.push(t);
      if (!turnEnds) { turnEnds = true; setImmediate(nextTurn); }
    }
    return t;
  } as typeof setTimeout;
  const reach = () => {
    const m = (most[op!] ??= { sends: 0, replies: 0 });
    m.sends = Math.max(m.sends, sends);
    m.replies = Math.max(m.replies, replies);
  };
  const countSend = (): string => {
    sends++;
    reach();
    return ioPointName('send', op!, sends);
  };
  /** The point a write is (a new send: its name), or undefined when it continues this turn's send. */
  const sendPoint = (s: Tagged): string | undefined => {
    if (s[TURN] === turn) return undefined;
    s[TURN] = turn;
    if (!turnEnds) { turnEnds = true; setImmediate(nextTurn); }
    return countSend();
  };
  const replyPoint = (): string => {
    replies++;
    reach();
    return ioPointName('reply', op!, replies);
  };
  const tracks = (port: number | undefined) => armed && op !== undefined && port !== undefined && ports.has(port);
  const tracked = (s: Tagged) => tracks(s[PORT]);

  /** Node's own answer to a write on a destroyed socket: its callback gets an error. */
  const dropOut = (items: Item[]) => {
    for (const it of items) {
      const cb = it.args.at(-1);
      if (typeof cb === 'function') process.nextTick(cb, Object.assign(new Error('Cannot call write after a stream was destroyed'), { code: 'ERR_STREAM_DESTROYED' }));
    }
  };

  async function drainOut(s: Tagged): Promise<void> {
    const q = s[OUT]!;
    while (q.length) {
      const it = q[0]!;
      const release = it.point ? holdTimers() : undefined;
      try {
        // The held bytes name the command for the report ("paused just before its DEL").
        if (it.point) await ask(it.point, commandWord(it.args[0]));
        q.shift();
        if (s.destroyed) { dropOut(q.splice(0)); dropOut([it]); break; }
        for (const t of it.timers ?? []) restartTimer(t);
        (it.op === 'end' ? end : write).apply(s, it.args);
      } finally { release?.(); }
    }
    s[OUT] = undefined;
  }

  async function drainIn(s: Tagged): Promise<void> {
    const q = s[IN]!;
    while (q.length) {
      const it = q[0]!;
      // Timers that come due while the reply is held fire after it is read (late-timers.ts).
      const release = it.point && !s.destroyed ? holdTimers() : undefined;
      try {
        if (release) await ask(it.point!);
        q.shift();
        // Destroyed meanwhile (by the client, or a reset): Node would give it no more data.
        if (s.destroyed && (it.op === 'data' || it.op === 'end')) continue;
        emit.apply(s, [it.op, ...it.args]);
      } finally { release?.(); }
    }
    s[IN] = undefined;
  }

  // HTTP/2 sessions (gRPC) write their frames natively: a request is counted there instead.
  hookHttp2({
    tracks, send: countSend, reply: replyPoint, wants: (name) => wanted.has(name), turnTimers: () => thisTurnTimers, ask, dropOut,
    forget: (socket) => { if (socket && typeof socket === 'object') (socket as Tagged)[PORT] = undefined; },
  });

  proto.connect = function (this: Tagged, ...args: unknown[]) {
    const p = portOf(args);
    if (p !== undefined) this[PORT] = p;
    return connect.apply(this, args);
  };

  proto.write = function (this: Tagged, ...args: unknown[]) {
    if (!tracked(this) && !this[OUT]) return write.apply(this, args);
    const name = tracked(this) ? sendPoint(this) : undefined;
    const point = name !== undefined && wanted.has(name) ? name : undefined;
    if (this[OUT]) { this[OUT].push({ op: 'write', args, point }); return true; }
    if (!point) return write.apply(this, args);
    this[OUT] = [{ op: 'write', args, point, timers: thisTurnTimers }];
    void drainOut(this);
    return true;   // as if buffered: it is, here
  };

  proto.end = function (this: Tagged, ...args: unknown[]) {
    // An end behind held writes must not overtake them.
    if (this[OUT]) { this[OUT].push({ op: 'end', args }); return this; }
    return end.apply(this, args);
  };

  proto.emit = function (this: Tagged, event: unknown, ...args: unknown[]) {
    const q = this[IN];
    if (q && (event === 'data' || event === 'end' || event === 'close' || event === 'error')) {
      const name = event === 'data' && tracked(this) ? replyPoint() : undefined;
      q.push({ op: event, args, point: name !== undefined && wanted.has(name) ? name : undefined });
      return true;
    }
    if (event === 'data' && tracked(this)) {
      const name = replyPoint();
      if (wanted.has(name)) {
        this[IN] = [{ op: 'data', args, point: name }];
        void drainIn(this);
        return true;
      }
    }
    if (event === 'close' && this[OUT]) {
      // Closed with writes held: nothing will take them any more.
      // (q[0] is the held write whose pause is under way: drainOut drops it when answered.)
      dropOut(this[OUT].splice(1));
    }
    return emit.call(this, event, ...args);
  };

  installed = {
    arm(p, points) {
      ports = new Set(p);
      wanted = new Set(points);
      op = undefined;
      armed = true;
      most = {};
    },
    operation(o) {
      op = o;
      sends = 0;
      replies = 0;
      nextTurn();   // a new operation's first write is its 1st send, whatever the turn
    },
    granted() {
      if (!armed || op === undefined) return;
      const m = (most[op] ??= { sends, replies });
      m.grantedSends = Math.min(m.grantedSends ?? Infinity, sends);
      m.grantedReplies = Math.min(m.grantedReplies ?? Infinity, replies);
    },
    disarm() { armed = false; },
    counts: () => ({ sends, replies }),
    takeReached() {
      const r = most;
      most = {};
      return r;
    },
  };
  return installed;
}
