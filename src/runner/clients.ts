// The client workers, as the runner and the nemesis see them: one forked child
// process per client id, reused from run to run. Turns the workers' messages
// into history events (the parent is the single recorder), assigns logical
// process ids (a fresh one after every `info`, as in Jepsen), and asks a fault's
// kind to act when its client reaches the point the fault is anchored at.
import { restamp } from './restamp.ts';
import { monotonicMs } from '../monotonic.ts';
import { addCounts } from '../own-key.ts';
import { fork, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync } from 'node:fs';
import { clientLogDir } from './client-logs.ts';
import { fileURLToPath } from 'node:url';
import { basename, extname, join } from 'node:path';
import { pidsWithEnv } from '../env/procfs.ts';
import { newCgroup, type Cgroup } from '../env/cgroup.ts';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { forgetProcess, recordProcess } from '../env/lifecycle.ts';
import type { ClientControl, FaultSpec, NemesisContext } from '../../nemesis/types.ts';
import { createFault, kindDef } from '../../nemesis/kinds.ts';
import { anchoredClient, anchorPoint, isAnchoredPause } from '../workload/plan.ts';
import { OrderBook } from './order-book.ts';
import { ordinal } from '../../nemesis/order.ts';
import type { FromWorker, RunJob, ToWorker } from './protocol.ts';
import type { Recorder } from './recorder.ts';
import { emptyReached, mergeReached, type ReachedPoints } from '../workload/points.ts';
import { stackHead, type CrashOrigin } from './crash-origin.ts';
import { parseIoPoint, type IoPointOp } from '../workload/plan.ts';
import type { ProxyPointsControl } from './proxy-points.ts';
import { execClockFile } from '../locks/exec-lock.ts';

// worker.ts under tsx; worker.js beside this file in the built package (dist/), under plain
// node (a user's .ts lock module registers tsx's hooks itself: src/locks/user-lock.ts).
const WORKER = fileURLToPath(new URL(`./worker${extname(import.meta.url)}`, import.meta.url));
const WORKER_ARGS = extname(WORKER) === '.ts' ? ['--import', import.meta.resolve('tsx')] : [];
/** Workers forked at once: a big --clients starts in batches, not all at once. */
const SPAWN_BATCH = 8;
/** Set on every worker (and so on everything its lock module starts): how its leftovers are found. */
const TAG_VAR = 'LOCKPICK_CLIENT_TAG';
let tags = 0;

interface Worker {
  id: string;
  child: ChildProcess;
  tag: string;                // TAG_VAR's value in its environment
  cgroup?: Cgroup;            // its own cgroup where one can be made (src/env/cgroup.ts): nothing under it escapes
  process: number | null;     // logical process of the current operation chain
  fresh: boolean;             // the next invoke starts a new logical process
  done?: (error?: string) => void;
  prepared?: () => void;      // the current job's lock is built and the client waits for 'start'
  stopped: boolean;           // SIGSTOPped by us
  dead: boolean;
  killedByUs?: boolean;       // we sent SIGKILL (a client past its deadline, or closing)
  killedByNemesis?: boolean;  // a client-kill fault: an intended death, not a crash of the run
  crashed?: CrashOrigin;      // it told us it crashed (t: 'crash'), and whose code threw
  open: boolean;              // an operation of `process` is invoked and not yet complete
  openOp?: { f: string; key: string; at: number }; // that operation and when it was invoked (performance.now())
  believes: Map<string, number>; // keys `process` believes it holds (acquire ok … release invoke), re-entry depth
  /** Its I/O points are the fault proxy's this run (proxy-points.ts): the chain of operation calls to the proxy, in order. */
  proxy?: Promise<void>;
}

/** The clients of a run whose I/O points the fault proxy makes, and each one's links (proxy names). */
export interface ProxiedClients { control: ProxyPointsControl; links: Map<string, string[]> }

export interface RunReport {
  errors: string[]; killed: string[]; logs: string[];
  /** The first Lock contract violation a client saw (the run then stops lockpick with exit 2). */
  contract?: string;
  /**
   * Crashes that are a failure of the run, not the lock's finding (t: 'crash'): in lockpick's own
   * worker code, or between runs (no run's history to record them in); this run's and any since the last report.
   */
  crashes: string[];
  /** The locks' counters (Lock.stats: watch notifications, creates, ...), summed over this run's clients. */
  lockStats: Record<string, number>;
  /** The points this run's clients reached, together (what the search learns its points from). */
  points: ReachedPoints;
  /** Errors of anchored faults' heals (their stop), for the session to judge. */
  healErrors: unknown[];
  /** The order anchors this run missed, in words (OrderBook.missed): why a stored schedule's order did not hold. */
  orderMissed: string[];
}

/** A fault the pool fires (not the nemesis by time): anchored at a point, ordered after an event, or awaited by a client step; `index` is its place in plan.faults. */
export type PoolFault = FaultSpec & { index: number };

export class ClientPool implements ClientControl {
  private readonly workers = new Map<string, Worker>();
  private nextProcess = 0;
  /**
   * Faults begun and not yet healed that silenced or cut off clients (by kind|id): a client that
   * starts a new process meanwhile (its first invoke of a run, its next after an info) joins them
   * (a `joined-fault` record), so the checker's spans name that process too.
   */
  private readonly silencing = new Map<string, { kind: string; id: string; silenced: readonly string[]; cutOff: readonly string[] }>();
  private active: string[] = [];
  private anchored: (PoolFault & { fired?: boolean })[] = [];
  /** Faults fired by time and an order event, not at a point (FaultSpec.after, or awaited by an attempt): not yet begun. */
  private evented: (PoolFault & { fired?: boolean })[] = [];
  /** The current run's order (nemesis/order.ts): every client event and fault start goes in. */
  private book = new OrderBook(() => {}, () => undefined, []);
  private runEnded = false;
  /** Aborted when the clients are done: an ordered fault still waiting for its time never begins. */
  private runAbort = new AbortController();
  /** The session's nemesis context: anchored partitions cut links through it (set by Session). */
  nemesis?: NemesisContext;
  private runStartMs = 0;
  private logs: string[] = [];
  /** What workers told about contract violations and crashes since the last report (run() hands it over). */
  private found: Pick<RunReport, 'contract' | 'crashes' | 'lockStats' | 'points' | 'healErrors'> = { crashes: [], lockStats: {}, points: emptyReached(), healErrors: [] };
  /** Anchored pauses in progress (so the run waits for them). */
  private pausing = new Set<Promise<void>>();
  /** Resolves when every client of the current run is done (AnchorContext.ended). */
  private ended: Promise<void> = Promise.resolve();
  /** Workers that died on their own between runs: the next run reports them (never respawned silently). */
  private diedBetweenRuns: string[] = [];
  ops = 0;

  /** `fork` is node's, or a test's wrapper around it (how many forks are in flight is seen there). */
  constructor(private readonly recorder: Recorder, private readonly forkWorker: typeof fork = fork) {}

  /** The run's live clients: a dead one can be neither faulted nor healed. */
  ids(): string[] {
    return this.active.filter((id) => this.workers.get(id)?.dead === false);
  }

  /**
   * A nemesis record: a fault that says which clients it kept from every server (`silenced`) gets
   * their processes of the moment too (`silenced_processes`), which the checker reads
   * (checkers/silences.ts): the history names processes, not clients.
   */
  recordFault(f: string, v: unknown): void {
    const rec = (v ?? {}) as Record<string, unknown>;
    const phase = /^(.+)-(start|stop)$/.exec(f);
    if (phase && typeof rec.id === 'string') {
      const key = `${phase[1]}|${rec.id}`;
      const clients = (x: unknown) => (Array.isArray(x) ? x.filter((c): c is string => typeof c === 'string') : []);
      if (phase[2] === 'stop') this.silencing.delete(key);
      else if (clients(rec.silenced).length || clients(rec.cut_off).length) this.silencing.set(key, { kind: phase[1]!, id: rec.id, silenced: clients(rec.silenced), cutOff: clients(rec.cut_off) });
    }
    // The clients a fault silenced, and those it cut off from every server (`cut_off`: checkers/phantom-grant.ts), as processes too.
    for (const [field, as] of [['silenced', 'silenced_processes'], ['cut_off', 'cut_off_processes']] as const) {
      const clients = (v as Record<string, unknown> | null)?.[field];
      if (!Array.isArray(clients)) continue;
      const processes = clients.map((c) => (typeof c === 'string' ? this.workers.get(c)?.process : undefined)).filter((p): p is number => typeof p === 'number');
      if (processes.length) v = { ...(v as object), [as]: processes };
    }
    this.recorder.nemesis(f, v);
  }

  private worker(id: string): Worker {
    const w = this.workers.get(id);
    if (!w || w.dead) throw new Error(`no client '${id}' in this run (clients: ${this.active.join(', ') || 'none'})`);
    return w;
  }

  async pause(id: string): Promise<void> {
    const w = this.worker(id);
    signalGroup(w, 'SIGSTOP');
    w.stopped = true;
  }

  async resume(id: string): Promise<void> {
    const w = this.worker(id);
    signalGroup(w, 'SIGCONT');
    w.stopped = false;
  }

  /** SIGKILL (a client-kill fault): the holder dies; its run ends there, not as a crash. */
  async kill(id: string): Promise<void> {
    const w = this.worker(id);
    w.killedByNemesis = true;
    // Its beliefs end at the kill, recorded before the signal: the server may free its lock the moment
    // the process dies (a MariaDB session lock), before the pool sees the exit.
    this.lapseOnDeath(w);
    this.sigkill(w);
    // Its beliefs end (lapseOnDeath) before anything later is recorded: wait for the exit.
    if (!w.dead) await new Promise<void>((resolve) => w.child.once('exit', () => resolve()));
  }

  async setClockOffsetMs(id: string, ms: number): Promise<void> {
    this.send(this.worker(id), { t: 'clock', offsetMs: ms });
  }

  private send(w: Worker, m: ToWorker): void {
    if (!w.dead && w.child.connected) w.child.send(m);
  }

  /** Set by close(): an interrupted run in flight must not start workers nobody will stop. */
  private closed = false;

  private async spawn(id: string): Promise<Worker> {
    if (this.closed) throw new Error(`the client pool is closed; client ${id} is not started`);
    // detached: its own process group, so a Ctrl-C in the terminal reaches lockpick only,
    // which stores what it found and then stops the workers (they exit on 'disconnect' too);
    // and the group (with TAG_VAR for what leaves it) is killed when the client ends.
    // Its stdout and stderr go to its log file: a lock module's prints never reach lockpick's
    // output (a reader that closes it early would kill the client with EPIPE).
    const tag = `${process.pid}-${++tags}`;
    const log = this.openLog(id);
    let child: ChildProcess;
    try {
      child = this.forkWorker(WORKER, [id], { execArgv: WORKER_ARGS, stdio: ['ignore', log, log, 'ipc'], detached: true, env: { ...process.env, [TAG_VAR]: tag } });
    } finally {
      if (typeof log === 'number') closeSync(log);
    }
    const w: Worker = { id, child, tag, cgroup: newCgroup(child.pid, `client-${id}`), process: null, fresh: true, stopped: false, dead: false, open: false, believes: new Map() };
    if (child.pid) recordProcess({ pid: child.pid, name: `lockpick client ${id}`, kind: 'server', match: basename(WORKER) });
    this.workers.set(id, w);   // at once, so a close() while it starts stops it too
    // A send to a worker that just died fails with EPIPE: the exit handler says why.
    child.on('error', () => {});
    child.on('exit', (code, signal) => {
      w.dead = true;
      reap(w);   // what its lock module started dies with it
      if (child.pid) forgetProcess(child.pid);
      // Killed by us at the end of the run with an operation open: say which call hung, not only the signal.
      const how = w.killedByUs && w.open && w.openOp
        ? `client ${id}'s ${w.openOp.f} never returned within ${Math.round(performance.now() - w.openOp.at)} ms (killed at the end of the run)`
        : `client ${id} exited (${signal ? `signal ${signal}` : `code ${code}`})`;
      if (w.done) {
        this.lapseOnDeath(w);
        // A crash of the lock's code is the run's finding (its client-crash event), not a failure of the run.
        w.done(w.killedByNemesis || w.crashed === 'lock' ? undefined : how);
      }
      else if (!w.killedByUs) this.diedBetweenRuns.push(`${how} between runs`);
    });
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`client worker ${id} did not start within 20 s`)), 20_000);
      child.once('message', () => { clearTimeout(t); resolve(); });   // the first message is 'ready'
      child.once('exit', (code) => { clearTimeout(t); reject(new Error(`client worker ${id} exited (code ${code}) while starting`)); });
    });
    child.on('message', (m: FromWorker) => this.onMessage(w, m));
    return w;
  }

  /** Starts the workers for these ids (reusing live ones), SPAWN_BATCH at a time. */
  async ensure(ids: string[]): Promise<void> {
    const missing = ids.filter((id) => { const w = this.workers.get(id); return !w || w.dead; });
    for (let i = 0; i < missing.length; i += SPAWN_BATCH) {
      await Promise.all(missing.slice(i, i + SPAWN_BATCH).map((id) => this.spawn(id)));
    }
  }

  /** The worker's log file, opened for appending (a restarted worker goes on in the same file); 'ignore' when it cannot be. */
  private openLog(id: string): number | 'ignore' {
    const dir = clientLogDir(this.recorder.path);
    // Lane i's history is history.lane<i>.jsonl: its clients' logs are lane<i>-c1.log.
    const lane = /^history\.(.+)\.jsonl$/.exec(basename(this.recorder.path))?.[1];
    try {
      mkdirSync(dir, { recursive: true });
      return openSync(join(dir, `${lane ? `${lane}-` : ''}${id}.log`), 'a');
    } catch {
      return 'ignore';
    }
  }

  private onMessage(w: Worker, m: FromWorker): void {
    switch (m.t) {
      case 'invoke': {
        if (w.fresh || w.process === null) {
          w.process = this.nextProcess++;
          w.fresh = false;
          w.believes.clear();
          for (const s of this.silencing.values()) {
            const silenced = s.silenced.includes(w.id), cutOff = s.cutOff.includes(w.id);
            if (silenced || cutOff) {
              this.recorder.nemesis('joined-fault', { kind: s.kind, id: s.id, client: w.id, process: w.process,
                ...(silenced ? { silenced_processes: [w.process] } : {}), ...(cutOff ? { cut_off_processes: [w.process] } : {}) });
            }
          }
        }
        this.recorder.append({ type: 'invoke', f: m.f, process: w.process, key: m.key, value: m.value, client: w.id, ...m.extra });
        this.book.note(w.id, m.f, 'invoke');
        w.open = true;
        w.openOp = { f: m.f, key: m.key, at: performance.now() };
        const depth = w.believes.get(m.key) ?? 0;
        if (m.f === 'release' && depth > 0) {
          if (depth === 1) w.believes.delete(m.key); else w.believes.set(m.key, depth - 1);
        }
        const ack = { t: 'ack' as const, seq: m.seq, process: w.process };
        // The proxy counts this operation's requests from 0 before the client may send one.
        if (w.proxy) void this.proxyOp(w, m.f as IoPointOp).then(() => this.send(w, ack));
        else this.send(w, ack);
        break;
      }
      case 'complete': {
        if (w.process === null) break;
        // Its durations moved from the worker's instant to the stamp the recorder gives it now (restamp.ts).
        const extra = restamp(m.extra, m.at === undefined ? 0 : monotonicMs() - m.at);
        this.recorder.append({ type: m.type, f: m.f, process: w.process, key: m.key, value: m.value, ...(m.error ? { error: m.error } : {}), ...extra });
        if (m.type !== 'info') this.book.note(w.id, m.f, m.type);
        w.open = false;
        if (m.f === 'acquire' && m.type === 'ok') w.believes.set(m.key, (w.believes.get(m.key) ?? 0) + 1);
        this.ops++;
        if (m.type === 'info') w.fresh = true;
        if (w.proxy) void this.proxyOp(w, undefined, m.f === 'acquire' && m.type === 'ok');
        break;
      }
      case 'point': {
        const seq = m.seq;
        const p = this.atPoint(w, m.name, (holdMs) => this.send(w, holdMs === undefined ? { t: 'go', seq } : { t: 'go', seq, holdMs }), m.command);
        this.pausing.add(p);
        void p.finally(() => this.pausing.delete(p));
        break;
      }
      case 'wait': {
        const seq = m.seq;
        const gap = m.after.gap_ms ?? 0;
        void this.book.wait(m.after, `${w.id}'s ${ordinal(m.attempt + 1)} attempt`, w.id)
          .then((at) => (at === undefined ? undefined : this.untilRunEnds(at + gap - performance.now())))
          .then(() => this.send(w, { t: 'go', seq }));
        break;
      }
      case 'log': this.logs.push(`${w.id}: ${m.message}`); break;
      case 'unreached': this.recorder.nemesis(`${m.kind}-unreached`, { client: w.id, reason: m.reason, ...(m.always ? { always: true } : {}) }); break;
      case 'contract': this.found.contract ??= m.message; break;
      case 'crash': this.onCrash(w, m.error, m.origin, m.processExit === true); break;
      case 'lock-stats':
        addCounts(this.found.lockStats, m.stats); // names are the lock module's
        break;
      // A client whose I/O points are the proxy's: its worker's hooks saw none of its I/O (the proxy's counts come at the run's end).
      case 'points': this.found.points = mergeReached(this.found.points, w.proxy ? { ...m.reached, io: {} } : m.reached); break;
      case 'done': w.done?.(m.error); break;
      case 'prepared': w.prepared?.(); w.prepared = undefined; break;
      case 'ready': break;
    }
  }

  /**
   * The worker's last act: it tells of the error that ends it (or of its lock's process.exit)
   * before it exits. Its beliefs end here, on that message, not on the exit notice 26-297 ms
   * later (a lock's crash under a fault: the next client was granted the lock meanwhile, and the
   * dead process was taken for a holder). Why nothing that depends on the crash can be recorded
   * before it: the message is written before the process exits; its sockets close only when it
   * has exited, and only then can the server free a session lock (a lease lock runs out later
   * still); another client's grant comes after that and its ok after that again, written to the
   * pool's other pipe, which became readable after this one (epoll hands ready pipes to the
   * event loop in the order they became ready). The parent's exit notice stays the fallback (lapseOnDeath finds
   * nothing left to end). During a run the crash is recorded as a nemesis event `client-crash`
   * (docs/history-format.md allows nemesis events with fields of their own): the checker makes a lock's
   * crash its `client-crash` anomaly (checkers/crash.ts); lockpick's own is a problem of the run.
   */
  private onCrash(w: Worker, error: string, origin: CrashOrigin, processExit = false): void {
    if (w.crashed) return;
    w.crashed = origin;
    if (origin === 'lockpick' || !w.done) this.found.crashes.push(`client ${w.id} crashed${origin === 'lockpick' ? ' (in lockpick\'s own worker code)' : ''}: ${error}`);
    if (!w.done) return;   // between runs: no run's history to put it in (the next run reports it)
    const holding = [...w.believes.keys()];
    const during = w.open && w.openOp ? w.openOp.f : holding.length ? 'holding' : 'between';
    const key = w.open && w.openOp ? w.openOp.key : holding[0];
    this.recorder.nemesis('client-crash', {
      client: w.id, ...(w.process !== null ? { process: w.process } : {}), during, ...(key !== undefined ? { key } : {}),
      origin, error: error.split('\n')[0], ...(processExit ? { source: 'process', log: `clients/${w.id}.log` } : { stack: stackHead(error) }),
    });
    this.lapseOnDeath(w);
  }

  /**
   * A client process that died inside its critical section believes nothing any
   * more: record the end of its beliefs as lapses (docs/history-format.md), so a later holder
   * is not taken for a double holder. With an operation still open the process
   * cannot invoke again; that operation stays unanswered (unknown).
   */
  private lapseOnDeath(w: Worker): void {
    if (w.process === null || w.open) return;
    for (const [key, depth] of w.believes) {
      for (let i = 0; i < depth; i++) {
        this.recorder.append({ type: 'invoke', f: 'release', process: w.process, key, client: w.id });
        this.recorder.append({ type: 'ok', f: 'release', process: w.process, key, value: { lapse: true }, error: 'the client process died' });
        this.book.note(w.id, 'release', 'invoke');
        this.book.note(w.id, 'release', 'ok');
      }
    }
    w.believes.clear();
    w.fresh = true;
  }

  /**
   * A point question: if an anchored fault of the plan is due here, its kind acts on the waiting
   * client (KindDef.anchored: pause it, kill it, cut it off) and says when it goes on; a
   * server-side spec with an anchor starts through the nemesis. Otherwise it goes on at once.
   */
  private async atPoint(w: Worker, point: string, go: (holdMs?: number) => void, command?: string): Promise<void> {
    const now = performance.now() - this.runStartMs;
    const f = this.anchored.find((x) => !x.fired && anchoredClient(x) === w.id && anchorPoint(x) === point && x.at_ms <= now && (!x.after || this.book.ready(x.after)));
    if (!f) { go(); return; }
    f.fired = true;
    if (f.anchor) { await this.faultAt(w, f, go); return; }
    const { fired: _fired, ...spec } = f;
    const hook = kindDef(f.kind)?.anchored;
    if (!hook) { go(); return; }
    await hook.fire(spec, {
      client: w.id, point, command,
      pause: () => { signalGroup(w, 'SIGSTOP'); w.stopped = true; },
      resume: () => { signalGroup(w, 'SIGCONT'); w.stopped = false; },
      // Sent before 'go' down the same pipe: the client reads the new clock before it goes on.
      setClockOffsetMs: (ms) => this.send(w, { t: 'clock', offsetMs: ms }),
      kill: () => this.kill(w.id),
      record: (type, details) => {
        this.recordFault(type, details);
        if (type === `${f.kind}-start`) this.book.noteFault(f.index);   // every kind records <kind>-start (nemesis/fault.ts)
      },
      go,
      startThenGo: (s, holdMs) => this.startAt(w, { ...s, index: f.index }, go, holdMs),
      ended: this.ended,
    });
  }

  /** Tells the proxy the operation a proxied client is in (none: `op` undefined), after its earlier calls. */
  private proxyOp(w: Worker, op: IoPointOp | undefined, granted = false): Promise<void> {
    const control = this.proxied?.control;
    const next = (w.proxy ?? Promise.resolve()).then(() => control?.operation(w.id, op, granted))
      .catch((e: unknown) => { this.logs.push(`${w.id}: fault proxy points: ${(e as Error).message}`); });
    w.proxy = next;
    return next;
  }

  /** The proxy's held requests of a proxied client, each a point question as a worker's (the long poll ends with the run). */
  private async watchHeld(w: Worker, control: ProxyPointsControl, signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      let h;
      try {
        h = await control.next(w.id, 1000, signal);
      } catch (e) {
        if (signal.aborted) return;
        this.logs.push(`${w.id}: fault proxy points: ${(e as Error).message}`);
        await sleep(200);
        continue;
      }
      if (!h) continue;
      const id = h.id;
      const p = this.atPoint(w, h.point, () => { void control.go(w.id, id).catch(() => {}); }, h.command);
      this.pausing.add(p);
      void p.finally(() => this.pausing.delete(p));
    }
  }

  /**
   * A server-side fault anchored at this client's point (FaultSpec.anchor): it starts now (the
   * client waits until it has taken effect, so it is in place at that very moment), the client
   * goes on, and it heals duration_ms later.
   */
  private faultAt(w: Worker, f: PoolFault & { fired?: boolean }, go: (holdMs?: number) => void): Promise<void> {
    this.recorder.nemesis('anchor-reached', { client: w.id, point: f.anchor!.point, kind: f.kind });
    return this.startAt(w, f, go);
  }

  /** Starts `f` through the nemesis (recorded as its kind's own start/stop), lets the client go on, heals it duration_ms later. */
  private async startAt(w: Worker | undefined, f: PoolFault & { fired?: boolean }, go: (holdMs?: number) => void, holdMs?: number): Promise<void> {
    if (!this.nemesis) throw new Error(`clients.ts: an anchored ${f.kind} needs the nemesis context (Session.nemesisContext sets pool.nemesis)`);
    const { fired: _fired, anchor: _anchor, after: _after, index, ...spec } = f;
    let fault;
    try {
      fault = createFault(spec, this.nemesis);
      await fault.start();
    } catch {
      // Recorded as <kind>-start-failed (fault-effects reports it); the client goes on without it.
      go();
      return;
    }
    this.book.noteFault(index);
    go(holdMs);
    // Ordered by an event alone and open-ended: it lasts to the end of the run (the session heals it, as the nemesis' own).
    if (!w && f.duration_ms === undefined) return;
    await sleep(f.duration_ms ?? 0);
    // A heal that failed (a node that cannot restart: PortTaken) goes to the run's report, never an unhandled rejection.
    await fault.stop().catch((e: unknown) => { this.found.healErrors.push(e); });
  }

  /**
   * Runs one job per client and waits until all are done. Every client first
   * builds its lock; then `onStart` runs and all clients are told to start, so
   * the plan's client delays and the nemesis' fault times share one time 0.
   * Past `deadlineMs` (from the start) clients are asked to stop; those still
   * busy a grace period later are killed (their open operations stay
   * unanswered: indeterminate).
   */
  /** This run's clients whose I/O points the fault proxy makes (set by run()). */
  private proxied?: ProxiedClients;

  /**
   * A fault ordered after an event (FaultSpec.after) or awaited by a client step, not anchored at
   * a point: it begins at at_ms once its event has happened; one whose event never comes never begins.
   */
  private async fireEvented(f: PoolFault & { fired?: boolean }): Promise<void> {
    await this.untilRunEnds(f.at_ms);
    if (this.runEnded) { f.fired = true; return; }   // the run ended before its time
    if (f.after) {
      const at = await this.book.wait(f.after, `fault #${f.index + 1} (${f.kind})`);
      if (at !== undefined) await this.untilRunEnds(at + (f.after.gap_ms ?? 0) - performance.now());
    }
    if (this.runEnded || (f.after && !this.book.seen(f.after))) { f.fired = true; return; }
    f.fired = true;
    await this.startAt(undefined, f, () => {});
  }

  /** Sleeps ms, or less when the run ends first. */
  private async untilRunEnds(ms: number): Promise<void> {
    if (ms <= 0) return;
    await sleep(ms, undefined, { ref: false, signal: this.runAbort.signal }).catch(() => {});
  }

  async run(jobs: RunJob[], poolFaults: PoolFault[], deadlineMs: number, graceMs: number, onStart: () => void = () => {}, proxied?: ProxiedClients): Promise<RunReport> {
    // A worker of the last run may die just after ensure() saw it (a crash from a timer): start it again.
    for (let i = 0; i < 3; i++) {
      await this.ensure(jobs.map((j) => j.clientId));
      if (jobs.every((j) => this.workers.get(j.clientId)?.dead === false)) break;
    }
    this.active = jobs.map((j) => j.clientId);
    this.anchored = poolFaults.filter(isAnchoredPause).map((f) => ({ ...f }));
    this.evented = poolFaults.filter((f) => !isAnchoredPause(f)).map((f) => ({ ...f }));
    this.runEnded = false;
    this.silencing.clear();   // a fault of an earlier run is healed (or its run is over)
    this.runAbort = new AbortController();
    const kinds = new Map(poolFaults.map((f) => [f.index, f.kind]));
    // Not stuck while an ordered fault whose event came still waits for its time: it may yet begin.
    this.book = new OrderBook((f, v) => this.recordFault(f, v), (i) => kinds.get(i), this.active,
      () => this.evented.filter((f) => !f.fired && (!f.after || this.book.seen(f.after))).length);
    this.logs = [];
    const errors: string[] = this.diedBetweenRuns.splice(0);
    const killed: string[] = [];
    const watch = new AbortController();
    const bound = await this.bindProxied(jobs, proxied, watch.signal);
    jobs = bound.jobs;
    const prepared: Promise<void>[] = [];
    const finished = jobs.map((job) => {
      const w = this.worker(job.clientId);
      w.process = null;
      w.fresh = true;
      prepared.push(new Promise<void>((resolve) => { w.prepared = resolve; }));
      return new Promise<void>((resolve) => {
        w.done = (error) => {
          w.done = undefined;
          w.prepared?.();   // a client that failed while building its lock is not waited for
          w.prepared = undefined;
          if (error) errors.push(`${w.id}: ${error}`);
          this.book.finished(w.id);
          resolve();
        };
        this.send(w, job);
      });
    });
    // Unref'd: a deadline that did not fire must not keep lockpick alive after the run (it did, for 20 s).
    const timer = (ms: number) => sleep(ms, undefined, { ref: false }).then(() => 'late' as const);
    if ((await Promise.race([Promise.all(prepared), timer(20_000)])) === 'late') {
      errors.push('some clients did not connect within 20 s; the run started without waiting for them');
    }
    let endRun!: () => void;
    this.ended = new Promise<void>((resolve) => { endRun = resolve; });
    this.runStartMs = performance.now();
    onStart();
    for (const f of this.evented) {
      const p = this.fireEvented(f);
      this.pausing.add(p);
      void p.finally(() => this.pausing.delete(p));
    }
    for (const id of this.active) this.send(this.workers.get(id)!, { t: 'start' });
    const all = Promise.all(finished);
    if ((await Promise.race([all, timer(deadlineMs)])) === 'late') {
      for (const id of this.active) this.send(this.workers.get(id)!, { t: 'stop' });
      if ((await Promise.race([all, timer(graceMs)])) === 'late') {
        for (const id of this.active) {
          const w = this.workers.get(id)!;
          if (w.done) {
            killed.push(id);
            this.sigkill(w);
          }
        }
        await all;
      }
    }
    endRun();
    this.runEnded = true;
    this.runAbort.abort();
    this.book.end();
    await Promise.all([...this.pausing]);
    watch.abort();
    await Promise.all(bound.watchers);
    await this.unbindProxied(jobs);
    const found = this.found;
    this.found = { crashes: [], lockStats: {}, points: emptyReached(), healErrors: [] };
    return { errors, killed, logs: this.logs, ...found, orderMissed: [...this.book.missed] };
  }

  /**
   * Binds each proxied client's links at the proxy (their connections, made once the job is sent,
   * are framed) with the send points its plan holds there; its job then holds no I/O point in the
   * worker. A client the proxy cannot bind (a proxy without lockpick's points: toxiproxy-server)
   * reaches no I/O point: a fault anchored at one is not applied, and the run says so.
   */
  private async bindProxied(jobs: RunJob[], proxied: ProxiedClients | undefined, signal: AbortSignal): Promise<{ jobs: RunJob[]; watchers: Promise<void>[] }> {
    this.proxied = proxied;
    const watchers: Promise<void>[] = [];
    const out = await Promise.all(jobs.map(async (job) => {
      const w = this.worker(job.clientId);
      w.proxy = undefined;
      const links = proxied?.links.get(job.clientId);
      if (!proxied || !links?.length) return job;
      const hold = job.pausePoints.filter((p) => parseIoPoint(p)?.kind === 'send');
      const rest = { ...job, pausePoints: job.pausePoints.filter((p) => !parseIoPoint(p)) };
      try {
        await proxied.control.bind(job.clientId, links, hold);
      } catch (e) {
        this.logs.push(`${job.clientId}: fault proxy points: ${(e as Error).message}`);
        return rest;
      }
      w.proxy = Promise.resolve();
      watchers.push(this.watchHeld(w, proxied.control, signal));
      // Its sends are seen where its bytes reach the proxy: the validity it reports is checked against them.
      return job.sendsSeen ? rest : { ...rest, proxySends: { url: proxied.control.url, client: job.clientId } };
    }));
    return { jobs: out, watchers };
  }

  /** What the proxied clients reached (the proxy's counts) joins the run's points; their links are unbound. */
  private async unbindProxied(jobs: RunJob[]): Promise<void> {
    const control = this.proxied?.control;
    if (!control) return;
    for (const job of jobs) {
      const w = this.workers.get(job.clientId);
      if (!w?.proxy) continue;
      await w.proxy;
      w.proxy = undefined;
      try {
        const io = await control.reached(job.clientId);
        this.found.points = mergeReached(this.found.points, { io, named: [] });
        await control.unbind(job.clientId);
      } catch (e) {
        this.logs.push(`${job.clientId}: fault proxy points: ${(e as Error).message}`);
      }
    }
    this.proxied = undefined;
  }

  /** SIGCONT every client we or the nemesis stopped (healing). */
  resumeAll(): void {
    for (const w of this.workers.values()) {
      if (!w.dead) signalGroup(w, 'SIGCONT');
      w.stopped = false;
    }
  }

  private sigkill(w: Worker): void {
    if (w.dead) return;
    w.killedByUs = true;
    // The whole group at once (the worker and what its lock module started in it); the exit handler reaps the rest.
    try { process.kill(-w.child.pid!, 'SIGKILL'); } catch { w.child.kill('SIGKILL'); }
    w.child.kill('SIGCONT');
  }

  async close(): Promise<void> {
    this.closed = true;
    const exits = [...this.workers.values()].filter((w) => !w.dead).map((w) => new Promise<void>((resolve) => {
      w.child.once('exit', () => resolve());
      this.sigkill(w);
    }));
    await Promise.race([Promise.all(exits), sleep(3000, undefined, { ref: false })]);
    this.workers.clear();
  }
}

/**
 * A pause or a resume reaches the worker's whole process group (it leads one, being detached): the
 * worker and what its lock started in it, such as a process client's child (src/locks/exec-lock.ts).
 */
function signalGroup(w: Worker, signal: 'SIGSTOP' | 'SIGCONT'): void {
  try { process.kill(-w.child.pid!, signal); } catch { w.child.kill(signal); }
}

/**
 * Kills what a worker's lock module started: its cgroup where it has one, its process group (the worker leads one, being
 * detached) and any process carrying its TAG_VAR (a detached or double-forked child left the
 * group but kept the environment). The worker itself is SIGKILLed by the caller.
 */
function reap(w: Worker): void {
  w.cgroup?.kill();   // everything started under it, whatever its session or environment
  if (w.child.pid) rmSync(execClockFile(w.child.pid, w.id), { force: true });   // what a process client left
  const pid = w.child.pid;
  if (pid) {
    try { process.kill(-pid, 'SIGKILL'); } catch { /* the group is gone */ }
  }
  for (const p of pidsWithEnv(TAG_VAR, w.tag)) {
    if (p === pid || p === process.pid) continue;
    try { process.kill(p, 'SIGKILL'); } catch { /* gone */ }
  }
}
