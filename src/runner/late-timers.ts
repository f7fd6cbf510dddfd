// A stopped client process (SIGSTOP, a client pause) that wakes must find what arrived while it
// was stopped (a reply, the parent's 'go') before its timers that ran out meanwhile fire, as a
// process resumed from a stop would read its sockets before it noticed the time. libuv does the
// opposite on its first turn after SIGCONT: epoll_wait returns EINTR, uv__io_poll sees its
// timeout spent and returns without polling, and the loop runs the expired timers. So a client
// library's command timeout fired on a reply already in its socket (and destroyed the socket the
// reply was then delivered to: io-points.ts).
//
// Installed once in the worker (with the I/O points): a timer callback that runs more than
// LATE_MS after it was due (the loop was away: stopped, or blocked) is put off by one
// setImmediate. A pending immediate makes the next poll non-blocking, so that poll reads what is
// in the sockets (and the IPC pipe) first; then the callback runs, unless the timer was cleared
// or restarted (refresh()) meanwhile, as a library does on the data it just read. A timer that is
// on time runs as before.
const LATE_MS = 10;

const DUE = Symbol('lockpick.due');          // when the callback is next due (performance.now())
const PENDING = Symbol('lockpick.pending');  // the immediate a late callback waits for
const RAN = Symbol('lockpick.ran');          // a one-shot timer whose callback ran
const EPOCH = Symbol('lockpick.epoch');      // refresh() count: a callback held before a refresh is dropped
const HELD = Symbol('lockpick.held');        // a callback waits for the hold's release (holdTimers)

/** Node's Timeout, with the fields read here (_onTimeout: the callback; clearTimeout nulls it). */
type Timer = NodeJS.Timeout & { [DUE]?: number; [PENDING]?: NodeJS.Immediate; [RAN]?: boolean; [EPOCH]?: number; [HELD]?: boolean; _onTimeout?: unknown; _idleTimeout?: number };

let installed = false;

/**
 * While the worker holds a send or a reply at an I/O point and waits for the parent's answer
 * (io-points.ts), timers that come due are held too and put off until the held item has gone
 * out. Lateness alone misses the case where the pause ends about when the timer was due (a
 * 500 ms pause on a 500 ms command timeout: due during the stop, but only ms late on waking):
 * the command timed out on the reply that was waiting in its socket.
 */
let holds = 0;
const heldCallbacks: (() => void)[] = [];

/** Holds timer callbacks from now until the returned release is called (nested holds: the last release). */
export function holdTimers(): () => void {
  holds++;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (--holds === 0) for (const f of heldCallbacks.splice(0)) f();
  };
}

export function installLateTimers(): void {
  if (installed) return;
  installed = true;
  const wrap = (real: typeof setTimeout, repeat: boolean) => function (this: unknown, cb: unknown, ms?: number, ...args: unknown[]) {
    // Not a function: Node's own error.
    if (typeof cb !== 'function') return real.call(this, cb as () => void, ms);
    let t: Timer;
    const run = (self: unknown) => {
      if (!repeat) t[RAN] = true;
      return (cb as (...a: unknown[]) => unknown).apply(self, args);
    };
    const defer = (self: unknown) => {
      t[PENDING] = setImmediate(() => {
        t[PENDING] = undefined;
        if (t._onTimeout === fire) run(self);   // not cleared meanwhile
      });
    };
    const fire = function (this: unknown) {
      const now = performance.now();
      const late = now - (t[DUE] ?? now);
      if (repeat) t[DUE] = now + (t._idleTimeout ?? 1);
      if (holds > 0) {
        // Once released: after the held item went out (its data read first), unless cleared or
        // restarted meanwhile. An interval that ticks more than once in a hold runs once, as a
        // stopped process's interval does on waking.
        if (t[HELD]) return;
        const self = this, epoch = t[EPOCH];
        t[HELD] = true;
        heldCallbacks.push(() => { t[HELD] = false; if (t._onTimeout === fire && t[EPOCH] === epoch) defer(self); });
        return;
      }
      if (late <= LATE_MS) return run(this);
      defer(this);
    };
    t = real.call(this, fire, ms) as Timer;
    t[DUE] = performance.now() + (t._idleTimeout ?? 1);
    return t;
  };
  const timeout = globalThis.setTimeout;
  globalThis.setTimeout = wrap(timeout, false) as typeof setTimeout;
  globalThis.setInterval = wrap(globalThis.setInterval as unknown as typeof setTimeout, true) as unknown as typeof setInterval;
  // refresh() restarts a timer: a late callback still waiting is dropped (the timer runs again from now).
  const probe = timeout(() => {}, 1);
  clearTimeout(probe);
  const proto = Object.getPrototypeOf(probe) as { refresh(this: Timer): Timer };
  const refresh = proto.refresh;
  proto.refresh = function (this: Timer) {
    if (this[PENDING]) { clearImmediate(this[PENDING]); this[PENDING] = undefined; }
    const r = refresh.call(this);
    this[RAN] = false;
    this[EPOCH] = (this[EPOCH] ?? 0) + 1;
    this[DUE] = performance.now() + (this._idleTimeout ?? 1);
    return r;
  };
}

/**
 * Restarts a timer a client library set for a command that was held (a pause "just before the
 * command" must not count against it): unless its callback already ran, since refresh() would
 * run a fired timer a second time.
 */
export function restartTimer(t: NodeJS.Timeout): void {
  if (!(t as Timer)[RAN]) t.refresh();
}
