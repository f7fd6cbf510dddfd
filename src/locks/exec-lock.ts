// A lock client in any language: a child process that speaks the process client protocol
// (docs/process-clients.md), JSON Lines over its stdin and stdout. This Lock runs in the client
// worker like any other: it spawns the child in the worker's own process group (so a client
// pause's SIGSTOP and a client kill reach it), turns requests into lines and replies into the
// Lock contract's outcomes, and hands the child's named points to ctx.point. The child's
// stderr goes on to the worker's, which is the client's log in the run dir.
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { DefiniteFailure, LockContractError, type AcquireOptions, type Held, type Lock, type LockContext } from './lock.ts';
import { describeValue } from './contract.ts';
import { goProcesses } from '../env/go-binary.ts';
import type { RealLease } from './real-lease.ts';
import { monotonicMs } from '../monotonic.ts';   // the protocol's clock for validUntilMs
import { stalledSince, watchStalls } from './stall-clock.ts';

export const PROTOCOL_VERSION = 1;

/** How the child is started and what its runtime can take. */
export interface ExecConfig {
  command: string;
  cwd: string;
  /** 'libc': the runtime reads the wall clock through libc, so the clock shim (LD_PRELOAD) moves it. */
  clock: 'libc' | 'none';
  renews: boolean;
  /** How long the child has to answer start with ready (default START_MS); a slow runtime's recipe raises it (a JVM under load). */
  startMs?: number;
  /** The lock's real lease as its recipe declares it, told to the child in `start`. */
  realLease?: RealLease;
  /** The clock shim's path, when the runtime can take it (resolved by the caller: it may be built on first use). */
  shim?: () => string;
}

type Op = 'acquire' | 'release' | 'renew' | 'close';
/** The replies each request may have (docs/process-clients.md's table). */
const REPLIES: Record<Op, readonly string[]> = {
  acquire: ['held', 'busy', 'failed', 'error'],
  release: ['released', 'lost', 'failed', 'error'],
  renew: ['renewed', 'lost', 'failed', 'error'],
  close: ['closed'],
};
/** How long a child has to answer the start line with ready (a runtime and its client library loading on a busy machine). */
const START_MS = 10_000;
/** A validUntilMs further ahead than this is no lease's end: a wall-clock reading (refused). */
const FAR_AHEAD_MS = 30 * 86_400_000;
/** How long close waits for the child's `closed` (or its exit) before killing it. */
const CLOSE_MS = 2000;

interface Pending {
  op: Op;
  key: string;
  line: string;
  ms: number;
  timer?: NodeJS.Timeout;
  resolve(reply: Record<string, unknown>): void;
  reject(e: Error): void;
}


/**
 * Children alive in this process. The worker may end without closing its lock (its parent was
 * killed: it exits on 'disconnect'); a child that ignores its closed stdin must not outlive it.
 */
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const c of live) { try { c.kill('SIGKILL'); } catch { /* gone */ } }
});

/** Where a client worker's process client reads its clock offset (the pool removes it when the worker ends: a SIGKILL skips close). */
export function execClockFile(workerPid: number, clientId: string): string {
  return join(tmpdir(), `lockpick-clock-${workerPid}-${clientId}`);
}

/** The last bytes a child wrote to stderr, so a death before ready is said with its own words (a missing module). */
export class StderrTail {
  private buf = Buffer.alloc(0);
  constructor(private readonly keep = 4096, private readonly lines = 8) {}
  push(d: Buffer): void {
    this.buf = Buffer.concat([this.buf, d]);
    if (this.buf.length > this.keep) this.buf = this.buf.subarray(this.buf.length - this.keep);
  }
  /** '; the last lines of its stderr:' and them, indented; '' when it wrote nothing. */
  said(): string {
    const last = this.buf.toString('utf8').split('\n').map((l) => l.trimEnd()).filter((l) => l !== '').slice(-this.lines);
    return last.length ? `; the last lines of its stderr:\n    ${last.map((l) => clip(l)).join('\n    ')}` : '; it wrote nothing to stderr';
  }
  /** ': ' and its last non-blank stderr line (an exception's name and message, as a rule), or ''. */
  lastLine(): string {
    const l = this.buf.toString('utf8').split('\n').map((x) => x.trim()).filter((x) => x !== '').at(-1);
    return l === undefined ? '' : `: ${clip(l)}`;
  }
}

/**
 * The shell line that runs `command` as the shell itself (`exec`), so the child's pid is the
 * command's; variable assignments before it (`UNLOCK=lua perl lock.pl`) stay before the `exec`,
 * where they set the command's environment (after it, `exec` would take them for the command).
 */
export function shellCommand(command: string): string {
  const assigns = /^\s*(?:[A-Za-z_][A-Za-z0-9_]*=(?:'[^']*'|"(?:[^"\\]|\\.)*"|\\.|[^\s'"\\;&|<>()`$])*\s+)*/.exec(command)![0];
  return `${assigns}exec ${command.slice(assigns.length)}`;
}

function clip(s: string, n = 200): string {
  return s.length > n ? `${s.slice(0, n - 3)}...` : s;
}

/** Holds looked at for a Go executable in a process client's tree, before any clock step. */
const GO_LOOKS = 3;
/**
 * Looks at the tree while a request is in flight (every GO_LOOK_MS, at most GO_FLIGHT_LOOKS in
 * all): a lock run as a Go binary that never got the lock (every acquire busy) shows only then.
 */
const GO_FLIGHT_LOOKS = 12;
const GO_LOOK_MS = 100;
/** The first look of a request, early: a short request (a busy acquire, a quick grant) may be over by GO_LOOK_MS. */
const GO_FIRST_LOOK_MS = 20;

/**
 * A Go executable seen in any client of a recipe (its config), in this thread: every client of a
 * recipe runs the same program, so a later client, or one in a later run, whose own short
 * requests were never looked at in flight, is known from the start (a clock step then never
 * counts as applied to it).
 */
const goSeenByRecipe = new WeakMap<ExecConfig, { pid: number; exe: string }>();

export class ExecLock implements Lock {
  readonly name: string;
  private child?: ChildProcess;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  /** Ids answered already: a second answer is told apart from an id never asked. */
  private readonly answered = new Set<number>();
  /** A protocol violation seen: every later call throws it (the worker stops the run with exit 2). */
  private broken?: LockContractError;
  /** A child of this client answered ready once: a later child that cannot start (a fault keeps it from its servers) fails its request, not the run. */
  private readyOnce = false;
  private killedByUs = new WeakSet<ChildProcess>();
  private closing = false;
  private clockFile?: string;
  private clockWritten = 0;
  private clockTimer?: NodeJS.Timeout;
  /** This clock step was found unfelt by a Go process of the client (told once per step). */
  private clockUnreached = false;
  /** The clock was moved at least once: from then on the client's process tree is looked at for Go executables. */
  private clockMoved = false;
  /** A Go executable seen in this client's process tree (it never feels a step: told for every step), else in another client of its recipe. */
  private ownGoSeen?: { pid: number; exe: string };
  private get goSeen(): { pid: number; exe: string } | undefined {
    return this.ownGoSeen ?? goSeenByRecipe.get(this.cfg);
  }
  private set goSeen(go: { pid: number; exe: string } | undefined) {
    this.ownGoSeen = go;
    if (go) goSeenByRecipe.set(this.cfg, go);
  }
  /** Holds looked at for a Go executable in the client's tree (the first few: a lock run as a Go binary shows there). */
  private goLooks = 0;
  /** Looks at the tree while requests were in flight. */
  private goFlightLooks = 0;
  renew?: (h: Held, ttlMs: number) => Promise<'renewed' | 'lost'>;

  constructor(private readonly cfg: ExecConfig, private readonly ctx: LockContext) {
    this.name = `exec:${cfg.command}`;
    if (cfg.renews) {
      this.renew = async (h, ttlMs) => {
        const r = await this.request('renew', h.key, { ttlMs, ...(h.state === undefined ? {} : { state: h.state }) });
        if (r.t !== 'renewed') return 'lost';
        // A renewed validity moves the hold's (the worker records it as the renew's valid_ms); none leaves the last one.
        const v = this.validUntil(r);
        if (v !== undefined) h.validUntilMs = v;
        return 'renewed';
      };
    }
  }

  private violation(what: string, line?: string): LockContractError {
    const e = new LockContractError(`process client '${this.cfg.command}' broke the protocol (docs/process-clients.md): ${what}${line === undefined ? '' : `; the line it wrote: ${clip(line)}`}`);
    if (!this.broken) {
      this.broken = e;
      for (const p of this.pending.values()) { clearTimeout(p.timer); p.reject(e); }
      this.pending.clear();
      this.kill();
    }
    return this.broken;
  }

  /** Starts the child and waits for its ready (once, and again after a child ended mid-operation). */
  async start(): Promise<void> {
    if (this.broken) throw this.broken;
    if (this.child) return;
    const env = { ...process.env };
    if (this.cfg.clock === 'libc' && this.cfg.shim) {
      try {
        const shim = this.cfg.shim();
        this.clockFile = execClockFile(process.pid, this.ctx.clientId);
        this.syncClock(true);
        env.LD_PRELOAD = [shim, env.LD_PRELOAD].filter(Boolean).join(':');
        env.LOCKPICK_CLOCK_FILE = this.clockFile;
        // A timed client-clock fault arrives at any moment: follow it (an anchored one is synced before `go`).
        this.clockTimer ??= setInterval(() => this.syncClock(), 20).unref();
      } catch (e) {
        process.stderr.write(`lockpick: the client's clock cannot be moved (${(e as Error).message})\n`);
      }
    }
    // `exec`: the shell becomes the command, so the child's pid is the command's (a kill reaches it).
    // Not detached: it stays in the worker's process group, which client pauses and kills signal.
    const child = spawn('/bin/sh', ['-c', shellCommand(this.cfg.command)], { cwd: this.cfg.cwd, stdio: ['pipe', 'pipe', 'pipe'], env });
    this.child = child;
    // Its stderr goes on to the worker's (the client's log); its tail is kept for a death before ready.
    const stderrTail = new StderrTail();
    child.stderr!.on('data', (d: Buffer) => { process.stderr.write(d); stderrTail.push(d); });
    live.add(child);
    child.on('exit', () => live.delete(child));
    child.stdin!.on('error', () => { /* the child closed its stdin or ended: its exit says what happened */ });
    let ready: { resolve(): void; reject(e: Error): void } | undefined;
    const started = new Promise<void>((resolve, reject) => { ready = { resolve, reject }; });
    const startMs = this.cfg.startMs ?? START_MS;
    // A restart (a new child after one was killed or died mid-request) meets the faults of the run:
    // a cut link refuses or swallows its connect. Its request certainly was not sent: it fails
    // (`fail`, the child's words as its error) and the next request starts another child. The
    // first start has no fault to blame: there, not starting breaks the protocol (exit 2).
    const restart = this.readyOnce;
    const notStarted = (what: string) => {
      if (!ready) return;
      if (!restart) { ready.reject(this.violation(`${what}${stderrTail.said()}`)); return; }
      this.kill();
      ready.reject(new DefiniteFailure(`a new client process did not start: ${what}${stderrTail.lastLine()}`));
    };
    const readyTimer = setTimeout(() => notStarted(`no {"t":"ready"} within ${startMs / 1000} s of {"t":"start"} (a client slow to start, a JVM or one connecting under load: raise its recipe's startMs)`), startMs);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (this.child !== child || this.broken) return;
      if (ready) {
        const m = this.parse(line);
        if (m?.t !== 'ready') { ready.reject(this.violation(`its first line must be {"t":"ready"}`, line)); return; }
        clearTimeout(readyTimer);
        this.readyOnce = true;
        ready.resolve();
        ready = undefined;
        return;
      }
      void this.onLine(line);
    });
    child.on('error', (e) => ready?.reject(this.violation(`it could not be started: ${e.message}`)));
    child.on('close', (code, signal) => {
      clearTimeout(readyTimer);
      if (this.child === child) this.child = undefined;
      if (this.killedByUs.has(child) || this.closing || this.broken) return;
      const how = signal ? `by ${signal}` : `with code ${code}${code === 127 ? ' (command not found)' : code === 126 ? ' (not executable)' : ''}`;
      if (ready) { notStarted(`it exited ${how} before answering {"t":"start"} with {"t":"ready"}`); return; }
      if (this.pending.size > 0) {
        // Mid-operation: an unknown outcome for what it was doing; the next request starts a new child.
        for (const p of this.pending.values()) { clearTimeout(p.timer); p.reject(new Error(`the client process exited ${how} during ${p.op}('${p.key}'): unknown outcome`)); }
        this.pending.clear();
        return;
      }
      // Between operations, by itself: the lock client crashed (the worker's crash rules: checkers/crash.ts).
      // Branded: the worker tells the crash as the lock process's own end (its words are in its stderr, the client's log), not a throw with a stack of lockpick's.
      throw Object.assign(new Error(`the client process '${this.cfg.command}' exited ${how} by itself, between operations${stderrTail.lastLine()}`), { lockpickProcessExit: true });
    });
    this.write({
      t: 'start', protocol: PROTOCOL_VERSION, client: this.ctx.clientId, keyPrefix: this.ctx.keyPrefix ?? '',
      endpoints: this.ctx.endpoints, roles: this.ctx.roles ?? {}, settings: this.ctx.settings ?? {},
      addressMap: this.ctx.addressMap ?? {}, channels: this.ctx.channels ?? {},
      commandTimeoutMs: this.ctx.commandTimeoutMs, ttlMs: this.ctx.ttlMs, waitMs: this.ctx.waitMs,
      ...(this.cfg.realLease ? { realLease: this.cfg.realLease } : {}), options: this.ctx.options ?? {}, monotonicMs: monotonicMs(),
    });
    await started;
  }

  private parse(line: string): Record<string, unknown> | undefined {
    try {
      const m: unknown = JSON.parse(line);
      if (typeof m === 'object' && m !== null && !Array.isArray(m) && typeof (m as { t?: unknown }).t === 'string') return m as Record<string, unknown>;
    } catch { /* below */ }
    return undefined;
  }

  private async onLine(line: string): Promise<void> {
    const m = this.parse(line);
    if (!m) { this.violation('a line that is not a protocol message (one JSON object with a string "t" per line)', line); return; }
    if (m.t === 'point') {
      if (typeof m.name !== 'string' || !/^[a-z][a-z0-9-]*$/.test(m.name)) { this.violation('a point needs a "name" of lower-case words (e.g. "after-compare")', line); return; }
      if (this.pending.size === 0) { this.violation('a point outside any request', line); return; }
      // The deadline does not run while the client waits at a point (a pause may hold it there).
      for (const p of this.pending.values()) clearTimeout(p.timer);
      await this.ctx.point?.(m.name);
      this.syncClock();   // an anchored clock step lands before the client goes on
      for (const p of this.pending.values()) this.arm(p);
      this.write({ t: 'go', name: m.name });
      return;
    }
    const id = m.id;
    if (typeof id !== 'number' || !Number.isInteger(id)) { this.violation(`a reply "${String(m.t)}" without an integer "id"`, line); return; }
    const p = this.pending.get(id);
    if (!p) { this.violation(this.answered.has(id) ? `a second answer to request ${id}` : `an answer to request ${id}, which it was not asked`, line); return; }
    if (!REPLIES[p.op].includes(m.t as string)) {
      this.violation(`answered ${p.op} with "${String(m.t)}"; a ${p.op} is answered with one of ${REPLIES[p.op].join(', ')}`, line);
      return;
    }
    clearTimeout(p.timer);
    this.pending.delete(id);
    this.answered.add(id);
    p.resolve(m);
  }

  /** The reply's deadline: a request past it is an unknown outcome, and its child is killed (a new one starts on the next request). */
  private arm(p: Pending): void {
    watchStalls();
    const at = performance.now();
    const fire = () => {
      // Time this process was stopped (a client pause stops the child too) or starved is not waiting: what is
      // left of the deadline after it runs on, with a moment for an answer already in the pipe.
      const left = p.ms - (performance.now() - at - stalledSince(at));
      if (left > 0) { p.timer = setTimeout(fire, left + 50); return; }
      this.pending.delete([...this.pending].find(([, x]) => x === p)?.[0] ?? -1);
      p.reject(new Error(`no answer to ${p.op}('${p.key}') in time: unknown outcome (the client process was killed; a new one starts on the next request)`));
      this.kill();
    };
    p.timer = setTimeout(fire, p.ms);
  }

  /**
   * The child gives up on its own after commandTimeoutMs (plus the acquire's waitMs) and answers `error`;
   * lockpick waits twice the command timeout, so that answer arrives before the deadline does.
   */
  private async request(op: Op, key: string, fields: Record<string, unknown>, waitMs = 0): Promise<Record<string, unknown>> {
    const ms = 2 * this.ctx.commandTimeoutMs + waitMs;
    await this.start();
    const id = this.nextId++;
    const line = JSON.stringify({ t: op, id, key, ...fields });
    const reply = new Promise<Record<string, unknown>>((resolve, reject) => {
      const p: Pending = { op, key, line, ms, resolve, reject };
      this.pending.set(id, p);
      this.arm(p);
    });
    this.syncClock();
    // monotonicMs as the line goes out: a child without CLOCK_MONOTONIC of its own maps its clock from the request it
    // answers (start's reading is as old as the child's start-up when it reads it: every validity would be that short).
    this.write({ ...(JSON.parse(line) as Record<string, unknown>), monotonicMs: monotonicMs() });
    const stopLooking = this.lookWhileInFlight();
    const r = await reply.finally(() => stopLooking?.());
    // While held, a lock that is a Go binary runs in the client's tree: seen once, no clock step counts for this client.
    if (op === 'acquire' && r.t !== 'busy' && this.clockFile && !this.goSeen && this.goLooks < GO_LOOKS && this.child?.pid !== undefined) {
      this.goLooks++;
      this.goSeen = goProcesses(this.child.pid)[0];
    }
    this.checkClockReach();   // a process the request started (a Go binary) while the clock is moved
    if (r.t === 'failed') throw new DefiniteFailure(`${op} certainly failed: ${typeof r.error === 'string' ? r.error : 'no reason given'}`);
    if (r.t === 'error') throw new Error(`${op}: ${typeof r.error === 'string' ? r.error : 'an error of unknown outcome'}`);
    return r;
  }

  async acquire(key: string, o: AcquireOptions): Promise<Held | null> {
    // A semaphore's permits and limit, a read-write lock's mode: only where the recipe declares them.
    const shaped = { ...(o.mode ? { mode: o.mode } : {}), ...(o.permits !== undefined ? { permits: o.permits } : {}), ...(o.limit !== undefined ? { limit: o.limit } : {}) };
    const r = await this.request('acquire', key, { ttlMs: o.ttlMs, waitMs: o.waitMs, ...shaped }, o.waitMs);
    if (r.t === 'busy') return null;
    const held: Held = { key };
    if (r.token !== undefined) held.token = r.token as Held['token'];   // checked by the worker (contract.ts)
    if (r.state !== undefined) held.state = r.state;
    const v = this.validUntil(r);
    if (v !== undefined) held.validUntilMs = v;
    return held;
  }

  /** A `held` or `renewed` reply's validUntilMs (CLOCK_MONOTONIC ms) on this process's performance.now(), or undefined without one. */
  private validUntil(r: Record<string, unknown>): number | undefined {
    if (r.validUntilMs === undefined) return undefined;
    if (typeof r.validUntilMs !== 'number' || !Number.isFinite(r.validUntilMs)) throw this.violation(`validUntilMs must be a number (ms on CLOCK_MONOTONIC), got ${describeValue(r.validUntilMs)}`);
    // Epoch milliseconds (the wall clock, a common slip) lie decades past CLOCK_MONOTONIC, which counts from boot.
    const ahead = r.validUntilMs - monotonicMs();
    if (ahead > FAR_AHEAD_MS) throw this.violation(`validUntilMs ${r.validUntilMs} is ${Math.round(ahead / 86_400_000)} days ahead of CLOCK_MONOTONIC (now ${Math.round(monotonicMs())}): it looks like the wall clock (ms since 1970); report when the validity ends on CLOCK_MONOTONIC, e.g. the request's monotonicMs plus the time elapsed since you read it`);
    // The child's CLOCK_MONOTONIC ms onto this process's performance.now() (both monotonic: the offset is fixed).
    return r.validUntilMs - (monotonicMs() - performance.now());
  }

  async release(h: Held): Promise<'released' | 'lost'> {
    const r = await this.request('release', h.key, h.state === undefined ? {} : { state: h.state });
    return r.t === 'released' ? 'released' : 'lost';
  }

  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.clockTimer);
    const child = this.child;
    const gone = child && child.exitCode === null && child.signalCode === null
      ? new Promise<void>((resolve) => child.once('exit', () => resolve())) : Promise.resolve();
    if (child && !this.broken) {
      const id = this.nextId++;
      const answered = new Promise<void>((resolve) => this.pending.set(id, { op: 'close', key: '', line: '', ms: CLOSE_MS, resolve: () => resolve(), reject: () => resolve() }));
      this.write({ t: 'close', id });
      child.stdin?.end();
      await Promise.race([answered, gone, new Promise((r) => setTimeout(r, CLOSE_MS))]);
      this.pending.delete(id);
    }
    this.kill();
    // Gone before close returns: the worker may exit (or the next run start) right after.
    await Promise.race([gone, new Promise((r) => setTimeout(r, CLOSE_MS))]);
    if (this.clockFile) rmSync(this.clockFile, { force: true });
    if (this.broken) throw this.broken;
  }

  private write(m: Record<string, unknown>): void {
    const stdin = this.child?.stdin;
    if (stdin?.writable) stdin.write(`${JSON.stringify(m)}\n`);
  }

  private kill(): void {
    const c = this.child;
    if (!c) return;
    this.killedByUs.add(c);
    this.child = undefined;
    if (c.exitCode === null && c.signalCode === null) {
      try { c.kill('SIGKILL'); } catch { /* gone */ }
    }
  }

  /** The client-clock fault's offset, written where the child's clock shim reads it (only when it changed). */
  private syncClock(force = false): void {
    if (!this.clockFile) return;
    const ms = Math.round(this.ctx.clock.offsetMs?.() ?? 0);
    if (!force && ms === this.clockWritten) return;
    this.clockWritten = ms;
    try { writeFileSync(this.clockFile, String(ms)); } catch { /* the tmp dir went away: the fault-effects check will tell */ }
    // A new offset is a new step, told anew; after it ends, a Go process seen only then still tells it.
    if (ms !== 0) { this.clockUnreached = false; this.clockMoved = true; this.checkClockReach(); }
  }

  /** Looks for a Go executable in the client's tree while a request runs (see GO_FLIGHT_LOOKS): once early, then every GO_LOOK_MS; the function that stops it. */
  private lookWhileInFlight(): (() => void) | undefined {
    if (!this.clockFile || this.goSeen || this.goFlightLooks >= GO_FLIGHT_LOOKS) return undefined;
    let t: NodeJS.Timeout | undefined;
    let stopped = false;
    const look = () => {
      const pid = this.child?.pid;
      if (stopped || this.goSeen || this.goFlightLooks >= GO_FLIGHT_LOOKS || pid === undefined) return;
      this.goFlightLooks++;
      this.goSeen = goProcesses(pid)[0];
      if (this.goSeen) { this.checkClockReach(); return; }
      t = setTimeout(look, GO_LOOK_MS);
      t.unref();
    };
    t = setTimeout(look, GO_FIRST_LOOK_MS);
    t.unref();
    return () => { stopped = true; clearTimeout(t); };
  }

  /**
   * The clock shim moves the clock of whatever reads it through libc; a Go executable reads it
   * from the vDSO itself (src/env/go-binary.ts). A client that runs one (now, or seen running in
   * one of its first holds or since the clock was first moved) has its lock outside every step: a
   * step that lands between two of its Go processes reaches only the wrapper around them. The
   * runner is told, once per step, that it never can (`always`): the run does not count the fault,
   * and the search is not SAFE on it, though a run whose Go process went unseen counted it.
   */
  private checkClockReach(): void {
    const pid = this.child?.pid;
    if (!this.clockFile || !this.clockMoved || this.clockUnreached) return;
    if (!this.goSeen && pid !== undefined) this.goSeen = goProcesses(pid)[0];
    const go = this.goSeen;
    if (!go) return;
    this.clockUnreached = true;
    const whose = this.ownGoSeen ? `its process ${go.pid}` : `its recipe's program (process ${go.pid} of another client)`;
    this.ctx.unreached?.('client-clock', `${whose} (${go.exe}) is a Go executable, which reads the clock without libc, so the clock shim cannot move it (a recipe file with "clock": "none" has client-clock refused up front)`, true);
  }
}
