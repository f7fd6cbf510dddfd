// One client: a child process forked by the runner (so pausing a client is a
// real SIGSTOP that stops its timers, watchdogs and lease arithmetic too).
// It builds the lock, runs its attempts, and tells the parent about every
// operation: an invoke waits for the parent's ack (the event is on disk before
// the operation starts); completions are sent as they happen. Every answer of
// the lock is checked against the Lock contract (src/locks/contract.ts) before
// it becomes history; a client clock fault moves every wall clock of this
// process (skewed-clock.ts).
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { isDefiniteFailure, isLockContractError, LockContractError, readLockStats, type Held, type Lock, type LockContext } from '../locks/lock.ts';
import { acquireFields, shapedAcquire } from '../locks/shape.ts';
import type { AcquireOptions } from '../locks/lock.ts';
import { checkAcquired, checkCreated, checkReleased, checkRenewed, type ContractViolation } from '../locks/contract.ts';
import { installSkewedClock } from './skewed-clock.ts';
import { monotonicMs } from '../monotonic.ts';
import { installIoPoints } from './io-points.ts';
import { installSendClock } from './send-clock.ts';
import { proxySentMs } from './proxy-send-clock.ts';
import { ResourceClient } from './resource-store.ts';
import { resolveRecipe } from './lock-spec.ts';
import { crashOrigin, PACKAGE_ROOT, type CrashOrigin } from './crash-origin.ts';
import type { FromWorker, RunJob, ToWorker } from './protocol.ts';
import type { Attempt } from '../workload/plan.ts';
import type { OrderEvent } from '../../nemesis/order.ts';
// From nemesis/points.ts, not workload/plan.ts (which re-exports them): plan.ts loads every fault kind and topology, which a worker never needs.
import { BEFORE_RELEASE, BEFORE_WRITE, CRITICAL_SECTION } from '../../nemesis/points.ts';

// Deep enough that a crash's stack reaches the frame that tells who threw it (crash-origin.ts).
Error.stackTraceLimit = Math.max(Error.stackTraceLimit, 50);
// Date.now(), new Date(), performance.timeOrigin read true time + the client-clock fault's offset.
const clock = installSkewedClock();
let stopping = false;
let seq = 0;
let process_ = -1;   // the logical process the parent assigned to our current operation
const waiting = new Map<number, (process?: number) => void>();
// send:<op>:N / reply:<op>:N points on the client's server sockets, asked like the lock's named points.
const ioPoints = installIoPoints((name, command) => ask({ t: 'point', name, ...(command ? { command } : {}) }));
// After the I/O points: `sent_ms` on an acquire ok that reports its validity (send-clock.ts).
const sendClock = installSendClock();

function send(m: FromWorker): void {
  if (process.connected) process.send?.(m);
}

function ask(m: { t: 'invoke'; f: string; key: string; value?: unknown; extra?: Record<string, unknown> } | { t: 'point'; name: string; command?: string } | { t: 'wait'; after: OrderEvent; attempt: number }): Promise<number | undefined> {
  const s = ++seq;
  return new Promise((resolve) => {
    waiting.set(s, resolve);
    send({ ...m, seq: s } as FromWorker);
  });
}

async function invoke(f: 'acquire' | 'release' | 'renew', key: string, extra?: Record<string, unknown>): Promise<void> {
  process_ = (await ask({ t: 'invoke', f, key, ...(extra && Object.keys(extra).length ? { extra } : {}) })) ?? process_;
  ioPoints.operation(f);   // I/O points count within this operation
}

function complete(type: 'ok' | 'fail' | 'info', f: string, key: string, value?: unknown, err?: unknown, extra?: Record<string, unknown>, at = monotonicMs()): void {
  ioPoints.operation(undefined);
  const error = err === undefined ? undefined : err instanceof Error ? err.message : String(err);
  send({ t: 'complete', type, f, key, value, error, extra, at });
}

/** Held.validUntilMs when the lock reported a finite one (re-read after a renew: a lock may extend it). */
function validUntil(h: Held): number | undefined {
  return typeof h.validUntilMs === 'number' && Number.isFinite(h.validUntilMs) ? h.validUntilMs : undefined;
}

function tokenNumber(h: Held): number | undefined {
  if (h.token === undefined) return undefined;
  const n = Number(h.token);
  return Number.isFinite(n) ? n : undefined;
}

/** The lock broke its contract: the operation is recorded as info (the history stays valid), the parent told, attempts stop. */
function violated(f: string, key: string, v: ContractViolation): never {
  complete('info', f, key, undefined, `contract violation: ${v.message}`);
  send({ t: 'contract', method: v.method, message: v.message });
  throw new LockContractError(v.message);
}

class Client {
  /** When each hold's lease last started (acquire or renew ok), on the monotonic clock: a lapse waits for its end. */
  private readonly leaseFrom = new WeakMap<Held, number>();
  /** When the current acquire or renew began (CLOCK_MONOTONIC): a proxied client's sends before it are not its. */
  private opStartMs = 0;
  /** Holds whose last renew certainly failed: the client holds on only to the end of its last lease. */
  private readonly renewFailed = new WeakSet<Held>();

  constructor(private readonly job: RunJob, private readonly lock: Lock, private readonly res: ResourceClient) {}

  /**
   * This client's process ended (an unknown outcome) while the server may still count it as the
   * owner of a reentrant hold. A reentrant lock knows its owner by the client's identity, which the
   * next process of this client shares: its next acquire would re-enter the hold the ended process
   * left, two processes of one client taken for two holders. Like a crashed thread, it stops.
   */
  private retired = false;

  async runAll(): Promise<void> {
    for (const [i, a] of this.job.attempts.entries()) {
      if (stopping || this.retired) break;
      await this.attempt(a, i);
    }
  }

  /** An unknown outcome while holding: a reentrant lock's client makes no more attempts (see `retired`). */
  private endedHolding(): void {
    if (this.job.reentrant) this.retired = true;
  }

  private async attempt(a: Attempt, index: number): Promise<void> {
    await sleep(a.delayMs);
    if (stopping) return;
    // A stored schedule's order: this acquire starts once the event it needs has happened.
    if (a.after) await ask({ t: 'wait', after: a.after, attempt: index });
    if (stopping) return;
    const key = this.job.keyPrefix + a.key;
    const held = await this.acquire(key, a.waitMs, shapedAcquire(this.job.shape, a));
    if (typeof held !== 'object') return;
    if (await this.criticalSection(held, key, a, tokenNumber(held))) await this.release(held, key);
  }

  /** One recorded acquire: the hold, or 'fail' (certainly not held), or 'info' (unknown: this process ended). */
  private async acquire(key: string, waitMs: number, shaped: Pick<AcquireOptions, 'mode' | 'permits' | 'limit'> = {}): Promise<Held | 'fail' | 'info'> {
    // A semaphore's permits and limit, a read-write lock's mode: on the invoke and repeated on its completion (docs/history-format.md).
    const fields = acquireFields(shaped);
    await invoke('acquire', key, fields);
    let held: unknown;
    sendClock.reset();
    this.opStartMs = monotonicMs();
    try {
      held = await this.lock.acquire(key, { ttlMs: this.job.ttlMs, waitMs, ...shaped });
    } catch (e) {
      if (isLockContractError(e)) violated('acquire', key, { method: 'acquire', message: e.message });
      const outcome = isDefiniteFailure(e) ? 'fail' : 'info';
      complete(outcome, 'acquire', key, undefined, e, fields);
      return outcome;
    }
    const bad = checkAcquired(key, held, this.job.fenced);
    if (bad) violated('acquire', key, bad);
    if (held === null) {
      complete('fail', 'acquire', key, undefined, undefined, fields);
      return 'fail';
    }
    const h = held as Held;
    ioPoints.granted();
    const now = performance.now();
    const at = monotonicMs();   // the same instant on the clock the parent stamps by (valid_ms and sent_ms are moved to its stamp)
    this.leaseFrom.set(h, now);
    // The validity the lock itself reported (Redlock: TTL − elapsed − drift), as `valid_ms` (docs/history-format.md):
    // rounded up, so the checker's bound on the belief is never shorter than the client's.
    const validity = await this.reportedValidity(h, now, at);
    const validMs = validity.valid_ms;
    const extra = { ...fields, ...(this.job.leased ? { lease_ms: this.job.leaseMs ?? this.job.ttlMs } : {}), ...validity };
    // kept_alive: the lease is renewed out of sight, so the checker does not end the hold at its length (docs/history-format.md).
    // session_ms: the hold lives in a server session that ends that long after its client falls silent.
    const value = { ...(h.token !== undefined ? { token: h.token } : {}), ...(this.job.keptAlive && this.job.leased ? { kept_alive: true } : {}), ...(this.job.sessionMs !== undefined ? { session_ms: this.job.sessionMs } : {}) };
    complete('ok', 'acquire', key, Object.keys(value).length ? value : undefined, undefined, Object.keys(extra).length ? extra : undefined, at);
    if (validMs !== undefined && validMs <= 0) {
      // Handed out already over: a careful client does not use it (the checker reports the expired grant).
      await this.recordLapse(key);
      return 'fail';
    }
    return h;
  }

  /**
   * The validity the lock reported for the hold as it stands at `now` (an acquire's, or a renew's that
   * moved it), as `valid_ms`, rounded up so the checker's bound on the belief is never shorter than
   * the client's; with `sent_ms` where the lock's sends are seen here. Empty when it reports none.
   */
  private async reportedValidity(h: Held, now: number, at: number): Promise<{ valid_ms?: number; sent_ms?: number }> {
    const v = validUntil(h);
    if (v === undefined) return {};
    const validMs = Math.ceil(v - now);
    const sent = this.job.sendsSeen ? sendClock.sinceLastWrite(now)
      : this.job.proxySends ? await proxySentMs(this.job.proxySends, this.opStartMs, at) : undefined;
    return sent === undefined ? { valid_ms: validMs } : { valid_ms: validMs, sent_ms: sent };
  }

  /**
   * Until when the client may use the hold: the validity its lock reported, and after a renew
   * that certainly failed, the end of its last lease by its own clock (it cannot count on more).
   */
  private until(held: Held): number | undefined {
    const v = validUntil(held);
    const lease = this.renewFailed.has(held) ? (this.leaseFrom.get(held) ?? 0) + this.job.ttlMs : undefined;
    return v === undefined ? lease : lease === undefined ? v : Math.min(v, lease);
  }

  /**
   * A careful client's look at the validity its lock reported: false when it has run out (the
   * client then stops using the lock and records a lapse, docs/history-format.md). A lock that reports none
   * is believed held until its release.
   */
  private async stillValid(held: Held, key: string): Promise<boolean> {
    const until = this.until(held);
    if (until === undefined || performance.now() < until) return true;
    await this.recordLapse(key);
    return false;
  }

  /** Sleeps ms, or less when the reported validity runs out first; false then (nothing recorded yet). */
  private async holdWithin(held: Held, ms: number): Promise<boolean> {
    const until = this.until(held);
    if (until === undefined || performance.now() + ms < until) { await sleep(ms); return true; }
    await sleep(Math.max(0, until - performance.now()));
    return false;
  }

  /** Read, (pause point), hold, write; false when the hold already ended (renew lost or unknown). */
  private async criticalSection(held: Held, key: string, a: Attempt, token: number | undefined): Promise<boolean> {
    const fence = this.job.fenced ? token : undefined;
    let read: { accepted: boolean; prev: number } | undefined;
    // A semaphore's or read-write lock's holders share the resource: each enters and leaves it
    // (its mode, its permits), and the resource check counts who is inside at once.
    const occupancy = this.job.shape ? acquireFields(shapedAcquire(this.job.shape, a)) : undefined;
    try {
      if (occupancy) read = await this.res.occupy('enter', key, this.job.clientId, process_, occupancy);
      else read = await this.res.read(key, fence, this.job.clientId, process_);
    } catch (e) {
      send({ t: 'log', message: `resource ${occupancy ? 'enter' : 'read'} failed: ${(e as Error).message}` });
    }
    const cutMs = await point(CRITICAL_SECTION);
    if (a.reenter && this.job.reentrant && !(await this.reenter(held, key))) return false;
    // Cut off here (an anchored partition), the client does not know it and works on: without a
    // lease it holds through the cut (a session lock then outlives its session at the server).
    // A leased lock keeps its planned hold, so no hold outlives its lease by design.
    const holdMs = cutMs !== undefined && !this.job.leased ? Math.max(a.holdMs, cutMs) : a.holdMs;
    if (a.renew && this.lock.renew) {
      if (!(await this.holdRenewing(held, key, holdMs))) return false;
    } else if (!(await this.holdWithin(held, holdMs))) {
      await this.recordLapse(key);   // the validity ran out while it worked: it stops, unwritten
      return false;
    }
    // The careful client's last look before the write; a pause after it (Kleppmann's GC pause
    // between the check and the write) is what no client-side check can cover: only fencing does.
    if (!(await this.stillValid(held, key))) return false;
    await point(BEFORE_WRITE);
    if (read?.accepted && occupancy) {
      try {
        await this.res.occupy('leave', key, this.job.clientId, process_, occupancy);
      } catch (e) {
        send({ t: 'log', message: `resource leave failed: ${(e as Error).message}` });
      }
    } else if (read?.accepted) {
      try {
        await this.res.write(key, fence, read.prev + 1, read.prev, this.job.clientId, process_);
      } catch (e) {
        send({ t: 'log', message: `resource write failed: ${(e as Error).message}` });
      }
    }
    return true;
  }

  /** Locks the held key again and unlocks it once (a reentrant hold); false when the hold ended (an info, or a lapse). */
  private async reenter(outer: Held, key: string): Promise<boolean> {
    const inner = await this.acquire(key, 0);
    // Not re-entered ('fail': the hold was lost meanwhile): the outer hold goes on as the client believes it.
    if (inner === 'info') this.endedHolding();
    if (typeof inner !== 'object') return inner === 'fail';
    const r = await this.release(inner, key, false);
    if (r === 'info') this.endedHolding();
    if (r !== 'lapsed') return r === 'done';
    // The inner release never got through and the lease has run out since: the outer hold is over too.
    await this.lapse(outer, key);
    return false;
  }

  /**
   * Holds for holdMs, renewing once half way, and every TTL/3 in a longer hold (as a
   * watchdog does, and as a careful session client checks its session): false when the hold
   * ended (renew lost or unknown).
   */
  private async holdRenewing(held: Held, key: string, holdMs: number): Promise<boolean> {
    const every = Math.max(50, Math.floor(this.job.ttlMs / 3));
    const step = holdMs > 2 * every ? every : holdMs / 2;
    let left = holdMs;
    do {
      const slice = Math.min(step, left);
      left -= slice;
      if (!(await this.holdWithin(held, slice))) { await this.recordLapse(key); return false; }
      if (!(await this.renew(held, key))) return false;
    } while (left > step);
    if (!(await this.holdWithin(held, left))) { await this.recordLapse(key); return false; }
    return true;
  }

  private async renew(held: Held, key: string): Promise<boolean> {
    await invoke('renew', key);
    const renewedAt = performance.now();
    let r: unknown;
    sendClock.reset();
    this.opStartMs = monotonicMs();
    try {
      r = await this.lock.renew!(held, this.job.ttlMs);
    } catch (e) {
      if (isLockContractError(e)) violated('renew', key, { method: 'renew', message: e.message });
      if (isDefiniteFailure(e)) {
        // Not extended: the hold goes on, but no longer than the lease it has (Client.until).
        complete('fail', 'renew', key, undefined, e);
        this.renewFailed.add(held);
        return true;
      }
      // Unknown: the process ends here (a fresh one goes on); the lease runs out on its own.
      complete('info', 'renew', key, undefined, e);
      this.endedHolding();
      return false;
    }
    const bad = checkRenewed(key, r);
    if (bad) violated('renew', key, bad);
    if (r === 'renewed') {
      this.leaseFrom.set(held, renewedAt);
      this.renewFailed.delete(held);
      // The validity the renew reported (the lock moved Held.validUntilMs), as on an acquire ok:
      // the checker's belief then ends there, not at the acquire's (docs/history-format.md `valid_ms`).
      const now = performance.now();
      const at = monotonicMs();
      const extra = await this.reportedValidity(held, now, at);
      complete('ok', 'renew', key, undefined, undefined, Object.keys(extra).length ? extra : undefined, at);
      return true;
    }
    // Told it no longer holds: a failed renew, then the client stops believing (a lapse, at once:
    // the server said the lock is gone, so nothing is left to wait for).
    complete('fail', 'renew', key, { lost: true });
    await this.recordLapse(key);
    return false;
  }

  /**
   * 'done' when answered (ok), 'info' when the outcome is unknown (this process ended),
   * 'lapsed' when every attempt certainly failed and the client gave up (a lapse is recorded).
   */
  private async release(held: Held, key: string, outermost = true): Promise<'done' | 'info' | 'lapsed'> {
    for (let tries = 0; tries < 3; tries++) {
      await invoke('release', key);
      // Only where the client stops believing it holds: an inner (reentrant) release is still inside the hold.
      if (tries === 0 && outermost) await point(BEFORE_RELEASE);
      let r: unknown;
      try {
        r = await this.lock.release(held);
      } catch (e) {
        if (isLockContractError(e)) violated('release', key, { method: 'release', message: e.message });
        if (!isDefiniteFailure(e)) {
          complete('info', 'release', key, undefined, e);
          return 'info';
        }
        complete('fail', 'release', key, undefined, e);
        await sleep(50);
        continue;
      }
      const bad = checkReleased(key, r);
      if (bad) violated('release', key, bad);
      complete('ok', 'release', key, r === 'lost' ? { lost: true } : undefined);
      return 'done';
    }
    // Gave up: the server still holds the lock (every release certainly failed). The client left its
    // critical section at the first release invoke; the lapse ends the hold as the client sees it,
    // so this process may acquire again. The client goes on with its attempts (it used to stop here,
    // which left its hold open to the end of the history and silenced it for the rest of the run).
    await this.lapse(held, key);
    return 'lapsed';
  }

  /**
   * A lapse (docs/history-format.md): the client stops believing without telling the server because its lease
   * ran out by its own clock. So it is recorded once the lease has run out, counted on the monotonic
   * clock from the hold's last grant (acquire or renew ok, which is after the server started it):
   * recorded earlier, the model would free the lock before the server may, and a second grant
   * inside the lease (a real violation) would pass.
   */
  private async lapse(held: Held, key: string): Promise<void> {
    const left = (this.leaseFrom.get(held) ?? 0) + this.job.ttlMs - performance.now();
    if (left > 0) await sleep(left);
    await this.recordLapse(key);
  }

  private async recordLapse(key: string): Promise<void> {
    await invoke('release', key);
    complete('ok', 'release', key, { lapse: true });
  }
}

let pausePoints: string[] = [];
/** The named points this run reached (told to the parent at its end: points are learned from them). */
const reachedNamed = new Set<string>();
let started: (() => void) | undefined;

/** The server ports this client reaches (through the fault proxy): its endpoints, other roles, announced-address map; never the resource store. */
function serverPorts(job: RunJob): Set<number> {
  const eps = [...job.endpoints, ...Object.values(job.roles ?? {}).flat(), ...Object.values(job.channels ?? {}).flat(), ...Object.values(job.addressMap ?? {})];
  const ports = new Set(eps.map((e) => e.port));
  ports.delete(job.resource.port);
  return ports;
}

/**
 * The lock's named points: ask the parent only where the plan may pause this client.
 * Returns how long the client is cut off from here when an anchored partition fired.
 */
async function point(name: string): Promise<number | undefined> {
  reachedNamed.add(name);
  return pausePoints.includes(name) ? ask({ t: 'point', name }) : undefined;
}

async function runJob(job: RunJob): Promise<void> {
  stopping = false;
  clock.setOffsetMs(job.clockOffsetMs);
  pausePoints = job.pausePoints;
  reachedNamed.clear();
  let lock: Lock | undefined;
  const res = new ResourceClient(job.resource, Math.max(2000, job.commandTimeoutMs));
  let error: string | undefined;
  try {
    const recipe = await resolveRecipe(job.lock);
    const ctx: LockContext = {
      clientId: job.clientId,
      keyPrefix: job.keyPrefix,
      endpoints: job.endpoints,
      roles: job.roles,
      settings: job.settings,
      addressMap: job.addressMap,
      ...(job.channels ? { channels: job.channels } : {}),
      clock: { wallMs: clock.wallMs, monoMs: () => performance.now(), offsetMs: () => clock.offsetMs() },
      commandTimeoutMs: job.commandTimeoutMs,
      ttlMs: job.ttlMs,
      waitMs: Math.max(0, ...job.attempts.map((a) => a.waitMs)),
      options: job.options,
      point: async (name: string) => { await point(name); },
      unreached: (kind: string, reason: string, always?: boolean) => send({ t: 'unreached', kind, reason, ...(always ? { always: true as const } : {}) }),
    };
    let created: unknown;
    try {
      created = await recipe.create(ctx);
    } catch (e) {
      // A lock that says its own contract is broken (a process client that never became ready): exit 2.
      if (isLockContractError(e)) send({ t: 'contract', method: 'create', message: e.message });
      throw e;
    }
    const bad = checkCreated(created);
    if (bad) {
      send({ t: 'contract', method: bad.method, message: bad.message });
      throw new LockContractError(bad.message);
    }
    lock = created as Lock;
    // Connecting takes a variable time; the plan's times count from one
    // instant shared with the nemesis, so wait for the parent's 'start'.
    const go = new Promise<void>((resolve) => { started = resolve; });
    send({ t: 'prepared', run: job.run });
    await go;
    // From time 0 of the run: connecting (and its handshake commands) is not the run.
    ioPoints.arm(serverPorts(job), pausePoints);
    await new Client(job, lock, res).runAll();
  } catch (e) {
    // A contract violation was already told (t: 'contract'); its stack would say nothing more.
    error = isLockContractError(e) ? e.message : e instanceof Error ? e.stack ?? e.message : String(e);
  } finally {
    ioPoints.disarm();
    const stats = readLockStats(lock); // before close: the herd-effect counters of this run
    if (stats) send({ t: 'lock-stats', run: job.run, stats });
    send({ t: 'points', run: job.run, reached: { io: ioPoints.takeReached(), named: [...reachedNamed] } });
    // A close that reports a broken contract (a process client's stray line seen after its last operation) stops the run too.
    await lock?.close().catch((e: unknown) => { if (isLockContractError(e)) send({ t: 'contract', method: 'close', message: e.message }); });
    res.close();
    send({ t: 'done', run: job.run, error });
  }
}

process.on('message', (m: ToWorker) => {
  switch (m.t) {
    case 'run': void runJob(m); break;
    case 'ack': waiting.get(m.seq)?.(m.process); waiting.delete(m.seq); break;
    case 'go': waiting.get(m.seq)?.(m.holdMs); waiting.delete(m.seq); break;
    case 'clock': clock.setOffsetMs(m.offsetMs); break;
    case 'start': started?.(); started = undefined; break;
    case 'stop': stopping = true; started?.(); started = undefined; break;
  }
});
// The runner is gone (even kill -9): a client must not outlive it.
process.on('disconnect', () => exitNow(0));

// An error nobody caught (an uncaught exception, a rejection nobody handled) ends this worker. Most
// often a client library threw it (node-redis emits 'error' on its connection when the server
// ends the session or the link is cut, and with no listener that throws; node-zookeeper-client
// threw "Unknown code" under partitions): a robustness failure of the lock. Rarely lockpick's own
// code: crash-origin.ts tells them apart by the stack. Either way the parent is told first, in a
// 'crash' message, and it ends this client's beliefs on that message (clients.ts); then exit 70
// (EX_SOFTWARE) once the message is out.
let crashed = false;
/** Set by exitNow: this process ends by lockpick's own decision (no crash to tell). */
let exitingByUs = false;
const realExit = process.exit.bind(process);
function exitNow(code: number): never {
  exitingByUs = true;
  return realExit(code);
}
function tellCrash(error: string, origin: CrashOrigin, done?: () => void, processExit = false): void {
  const m = { t: 'crash', error, origin, ...(processExit ? { processExit } : {}) } satisfies FromWorker;
  process.send!(m, undefined, {}, done);
}
function crash(e: unknown): void {
  if (crashed) return;
  crashed = true;
  const exit = () => exitNow(70);
  if (!process.connected || !process.send) exit();
  // A process client's own end (src/locks/exec-lock.ts): the lock's, its message alone (the stack is lockpick's reading of the exit).
  const processExit = (e as { lockpickProcessExit?: unknown } | null)?.lockpickProcessExit === true;
  const error = processExit ? (e as Error).message : e instanceof Error ? e.stack ?? e.message : String(e);
  setTimeout(exit, 2000);   // the parent is not reading (stopped): do not hang
  try {
    tellCrash(error, processExit ? 'lock' : crashOrigin(e instanceof Error ? e.stack : undefined, PACKAGE_ROOT), exit, processExit);
  } catch {
    exit();
  }
}
// A lock module (or its library) that ends the process itself, process.exit(), takes the client
// down as a crash does: where it was called from is the stack of that call. Its 'exit' hook can
// only do synchronous work: a message sent there is written to the IPC pipe at once (libuv
// writes straight away to an idle pipe), so the parent still hears of it before it sees the
// exit; when that write does not get out, the parent's exit notice ends the beliefs instead.
let exitCall: string | undefined;
process.exit = function exit(code?: number | string | null): never {
  if (!exitingByUs && exitCall === undefined) {
    const at: { stack?: string } = {};
    Error.captureStackTrace(at, exit);
    exitCall = `Error: process.exit(${code ?? ''}) was called${at.stack?.replace(/^[^\n]*/, '') ?? ''}`;
  }
  return realExit(code as number);
} as typeof process.exit;
process.on('exit', () => {
  if (crashed || exitingByUs || !process.connected || !process.send) return;
  const error = exitCall ?? 'Error: the client process ended by itself (no uncaught error, no process.exit call seen)';
  try { tellCrash(error, crashOrigin(exitCall, PACKAGE_ROOT)); } catch { /* the parent's exit notice will do */ }
});
process.on('uncaughtException', crash);
process.on('unhandledRejection', crash);
send({ t: 'ready' });
