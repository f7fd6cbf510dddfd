// A session: one environment (the recipe's topology plus the fault-free resource
// node), one pool of client workers and one recorder, shared by every run of a
// `lockpick run`. Each run uses its own key names (r<run>-<key>) and fresh
// process ids, so the whole history.jsonl stays one valid history and every run
// can be checked on its own.
import { COMMAND_TIMEOUT_DEFAULT_MS } from '../locks/command-timeout.ts';
import { lockModel, shapeOf } from '../locks/shape.ts';
import { startEnv, type EnvSpec } from '../env/env-kinds.ts';
import { dataRoles, topologyDef } from '../env/topologies.ts';
import { declared, type Timescales } from '../env/topology.ts';
import type { Environment } from '../env/types.ts';
import { HistoryBuilder } from '../history/index.ts';
import type { HistoryEvent, ParsedHistory } from '../history/types.ts';
import { LockContractError, topologyOf, type LockRecipe } from '../locks/lock.ts';
import { wantsLiveness, type Property } from './run-options.ts';
import { checkHistory } from '../../checkers/index.ts';
import type { CheckResult, Verdict } from '../../checkers/types.ts';
import { checkResource, type ResourceEntry, type ResourceResult } from '../../checkers/resource.ts';
import { checkLiveness, defaultLivenessBoundMs, type LivenessResult } from '../../checkers/liveness.ts';
import type { FaultSpec, NemesisContext } from '../../nemesis/types.ts';
import { ClientPool, type ProxiedClients } from './clients.ts';
import { proxyFraming, ProxyPointsControl, sendsSeenInProcess } from './proxy-points.ts';
import { Recorder } from './recorder.ts';
import { ResourceClient } from './resource-store.ts';
import type { LockSpec, RunJob } from './protocol.ts';
import { anchoredClient, anchorPoint, clientId, isAnchoredPause, planHorizonMs, type RunPlan } from '../workload/plan.ts';
import { lockStats, type LockStats } from '../../checkers/stats.ts';
import { lostInsideLease, type LostInLease } from './lost-in-lease.ts';
import { faultEffects, type FaultEffects } from './fault-effects.ts';
import { runOutcomes, type Outcomes } from '../report/outcomes.ts';
import { lockLabel } from './lock-spec.ts';
import { InconclusiveError } from '../errors.ts';
import type { ReachedPoints } from '../workload/points.ts';
import { realLeaseMs, withRealLease } from '../locks/real-lease.ts';

export interface SessionOptions {
  recipe: LockRecipe;
  lock: LockSpec;
  historyPath: string;
  commandTimeoutMs?: number;
  lockOptions?: Record<string, unknown>;
  /** What must hold: see Property. */
  property?: Property;
  /** Liveness bound (ms); default defaultLivenessBoundMs(ttl, the recipe's session timeout). */
  livenessMs?: number;
  /** Check time limit per run (ms); past it the run's verdict is 'unknown'. */
  checkTimeMs?: number;
  /** The environment kind and its servers (default: local). */
  env?: EnvSpec;
  /** Put before every lock and resource key of the session (an external server's keys stay apart). */
  keyPrefix?: string;
}

export interface RunLiveness extends LivenessResult {
  bound_ms: number;
  /** Whether the property asked for it (its violations then count and are among check.anomalies). */
  checked: boolean;
}

export interface RunOutcome {
  run: number;
  plan: RunPlan;
  verdict: Verdict;                 // false = unsafe (under the session's property)
  lockVerdict: Verdict;             // the lock's history alone
  check: CheckResult;
  resource: ResourceResult;
  events: HistoryEvent[];
  /** The events as a history, built once: every property was checked on it, and the report and timeline draw from it. */
  history?: RunHistory;
  ops: number;                      // completed operations
  elapsedMs: number;
  problems: string[];               // worker errors, killed clients, nemesis errors
  /** Why this run says nothing either way (its verdict is 'unknown' unless it found a violation). */
  inconclusive: string[];
  faults: FaultEffects;             // what the nemesis actually did
  stats: LockStats;                 // ok acquires, releases, contention
  /** Releases that came back lost inside their lease with no server fault (lost-in-lease.ts): no SAFE on them. */
  lostInLease?: LostInLease;
  outcomes?: Outcomes;              // every operation by outcome, the errors by message, those no fault explains
  lockStats?: Record<string, number>; // the lock's own counters (Lock.stats), summed over clients
  points?: ReachedPoints;           // what the clients reached: I/O counts per operation kind, named points
  resourceEntries: ResourceEntry[];
  liveness?: RunLiveness;           // measured on every run; a verdict only when the property asks
  /** The stored schedule's order anchors this run missed, in words (nemesis/order.ts): why a replay may not have broken the lock. */
  orderMissed?: string[];
}

/** Whether the recipe's acquires are leases (LockRecipe.lease, by topology when unset). */
export function isLeased(recipe: LockRecipe): boolean {
  return recipe.lease ?? topologyDef(recipe.topology.kind)?.leased ?? false;
}

/** The words a checker uses for the lock's backend (docs/history-format.md: run-start carries it). */
export function backendOf(recipe: LockRecipe): string {
  return topologyDef(recipe.topology.kind)?.backend ?? 'redis';
}

/** The OS packages the servers of a run come from: the topology's, on the local environment (else the image or the user's servers). */
export function serverPackages(recipe: LockRecipe, env: EnvSpec | undefined): readonly string[] {
  return (env?.kind ?? 'local') === 'local' ? topologyDef(recipe.topology.kind)?.packages ?? [] : [];
}

export class Session {
  private runNo = 0;
  private closed = false;

  private constructor(
    readonly env: Environment,
    readonly recorder: Recorder,
    readonly pool: ClientPool,
    private readonly resource: ResourceClient,
    private readonly o: SessionOptions,
  ) {}

  static async open(o: SessionOptions): Promise<Session> {
    const { name, opts } = topologyOf(o.recipe);
    const env = await startEnv(o.env, name, opts);
    const recorder = new Recorder(o.historyPath);
    const ep = env.resourceEndpoint?.();
    if (!ep) {
      await env.down();
      throw new Error(`the ${name} environment has no resource node; it must support the 'resource' option`);
    }
    const session = new Session(env, recorder, new ClientPool(recorder), new ResourceClient(ep, 5000), o);
    try {
      session.timescales = withRealLease((await declared(topologyDef(name)?.timescales)?.(env)) ?? { said: [] }, o.recipe.realLease);
    } catch (e) {
      await session.close();
      throw e;
    }
    return session;
  }

  /** How long things take on these servers, read at start (a topology's timescales): the search sizes plans by it. */
  timescales: Timescales = { said: [] };

  /** Data nodes the node faults may target. */
  dataNodes(): string[] {
    const data = dataRoles(this.env.topology);
    return this.env.nodes.filter((n) => data.includes(n.role)).map((n) => n.id);
  }

  /** Every server (data nodes and others such as Sentinels; not the resource store): what a partition may split. */
  serverNodes(): string[] {
    return this.env.nodes.filter((n) => n.role !== 'resource').map((n) => n.id);
  }

  /** Whether the servers talk to each other over links the proxy can cut (replication, quorum, Sentinel). */
  hasPeerLinks(): boolean {
    return this.env.links.some((l) => !l.from.startsWith('client:'));
  }

  private ctx?: NemesisContext;

  /** Lanes beyond lane 0 (--parallel), made on first use. */
  private readonly lanes = new Map<number, Lane>();

  /**
   * Lane 0 is the session's own recorder, pool and nemesis context; lane i > 0 has its own
   * client workers, its own history file (history.lane<i+1>.jsonl beside history.jsonl, so
   * every file is one valid history with its own process ids) and its own nemesis context
   * (healAll heals only what that lane's runs started). Runs on different lanes may overlap.
   */
  lane(i: number): Lane {
    if (i === 0) return { recorder: this.recorder, pool: this.pool, ctx: this.nemesisContext() };
    let l = this.lanes.get(i);
    if (!l) {
      const recorder = new Recorder(laneHistoryPath(this.o.historyPath, i));
      const pool = new ClientPool(recorder);
      const ctx: NemesisContext = { env: this.env, clients: pool, record: (f, v) => pool.recordFault(f, v), now: () => recorder.now() };
      pool.nemesis = ctx;
      l = { recorder, pool, ctx };
      this.lanes.set(i, l);
    }
    return l;
  }

  /** Every lane's nemesis context made so far (lane 0's first): the faults active now are theirs together. */
  nemesisContexts(): NemesisContext[] {
    return [this.nemesisContext(), ...[...this.lanes.values()].map((l) => l.ctx)];
  }

  /** One context for the whole session: the nemesis tracks active faults per context. */
  nemesisContext(): NemesisContext {
    this.ctx ??= { env: this.env, clients: this.pool, record: (f, v) => this.pool.recordFault(f, v), now: () => this.recorder.now() };
    this.pool.nemesis = this.ctx;   // anchored partitions cut links from the pool (ClientPool.atPoint)
    return this.ctx;
  }

  /**
   * The clients whose I/O points the fault proxy makes (proxy-points.ts: the recipe says so, or
   * its topology's client is native), each with its links, which exist once its endpoints were asked for.
   * Lane 0 only: the lanes of --parallel share each client id's links, and a link counts for one
   * binding; a plan on another lane pausing at a send point of such a client is not applied (inconclusive).
   */
  private proxied(jobs: RunJob[], lane: number): ProxiedClients | undefined {
    const framing = proxyFraming(this.o.recipe, this.env.topology);
    if (!framing || !this.env.proxyUrl || lane !== 0) return undefined;
    const links = new Map(jobs.map((j) => [j.clientId, this.env.links.filter((l) => l.from === `client:${j.clientId}`).map((l) => l.name)]));
    return { control: new ProxyPointsControl(this.env.proxyUrl, framing), links };
  }

  async runOnce(plan: RunPlan, lane = 0): Promise<RunOutcome> {
    // An interrupt closes the session under the search: no new run may start servers' clients then.
    if (this.closed) throw new Error('the session is closed (interrupted); no further run');
    const run = ++this.runNo;
    const started = performance.now();
    const keyPrefix = `${this.o.keyPrefix ?? ''}r${run}-`;
    const recipe = this.o.recipe;
    const commandTimeoutMs = this.o.commandTimeoutMs ?? recipe.commandTimeoutMs ?? COMMAND_TIMEOUT_DEFAULT_MS;
    const nem = await import('../../nemesis/index.ts');
    const { recorder, pool, ctx } = this.lane(lane);
    const resourceEp = this.env.resourceEndpoint!();
    const jobs: RunJob[] = await Promise.all(plan.clients.map(async (c, i) => {
      const id = clientId(i);
      const endpoints = await this.env.clientEndpoints(id);
      // What else the topology gives its clients (Sentinel: the sentinels, the master name, the address map).
      const extras = (await topologyDef(this.env.topology)?.clientExtras?.(this.env, id, endpoints)) ?? {};
      // The lock's own further connections, each on links of their own (a fault can cut one alone).
      const channels = recipe.channels?.length
        ? Object.fromEntries(await Promise.all(recipe.channels.map(async (ch) => [ch, await this.env.clientEndpoints(id, ch)] as const)))
        : undefined;
      return {
        t: 'run' as const, run, clientId: id, lock: this.o.lock, endpoints, ...extras, ...(channels ? { channels } : {}),
        resource: resourceEp, fenced: recipe.fencing, leased: isLeased(recipe), sendsSeen: sendsSeenInProcess(recipe, this.env.topology), keptAlive: recipe.keepsAlive === true, ...(sessionOf(recipe, this.o.lockOptions) ? { sessionMs: sessionOf(recipe, this.o.lockOptions) } : {}), reentrant: recipe.model === 'reentrant-mutex', ...(shapeOf(recipe) ? { shape: shapeOf(recipe) } : {}), keyPrefix, ttlMs: plan.ttlMs, ...(recipe.realLease ? { leaseMs: realLeaseMs(plan.ttlMs, recipe.realLease) } : {}), attempts: c.attempts,
        commandTimeoutMs, options: this.o.lockOptions, clockOffsetMs: 0,
        pausePoints: plan.faults.filter((f) => isAnchoredPause(f) && anchoredClient(f) === id).map((f) => anchorPoint(f)!),
      };
    }));
    // The pool fires what waits for a client's point or event, and what a client step waits for (it sees it begin); the nemesis the rest, by time.
    const awaited = new Set(plan.clients.flatMap((c) => c.attempts.map((a) => (a.after && 'fault' in a.after ? a.after.fault : -1))));
    const indexed = plan.faults.map((f, index) => ({ ...f, index }));
    const byPool = (f: FaultSpec & { index: number }) => isAnchoredPause(f) || f.after !== undefined || awaited.has(f.index);
    const anchored = indexed.filter(byPool);
    const timed = plan.faults.filter((_, i) => !byPool(indexed[i]!));
    recorder.beginRun();
    recorder.nemesis('run-start', { run, lock: lockLabel(this.o.lock), backend: backendOf(recipe), topology: recipe.topology.kind, clients: jobs.length, faults: plan.faults.length });
    const abort = new AbortController();
    const problems: string[] = [];
    // A fault that left the environment unable to go on (a node that cannot restart: PortTaken) ends the search, not only this run.
    let envBroken: InconclusiveError | undefined;
    const broken = (e: unknown) => { if (e instanceof InconclusiveError) envBroken ??= e; };
    let report;
    let schedule: Promise<void> = Promise.resolve();
    let time0: number | undefined;
    let clientsDone: number | undefined;
    // The schedule starts at the clients' time 0 (once all are connected), so a replay times faults the same way.
    const startSchedule = () => {
      time0 = performance.now();
      if (timed.length) schedule = nem.runSchedule(timed, ctx, abort.signal).catch((e: unknown) => { broken(e); problems.push(`nemesis: ${(e as Error).message}`); });
    };
    try {
      report = await pool.run(jobs, anchored, planHorizonMs(plan) + 3000, plan.ttlMs + commandTimeoutMs + 2000, startSchedule, this.proxied(jobs, lane));
      clientsDone = performance.now();
    } finally {
      abort.abort();
      await schedule;
      await nem.healAll(ctx).catch((e: unknown) => { broken(e); problems.push(`heal: ${(e as Error).message}`); });
      pool.resumeAll();
    }
    // Until the clients were done (not the heal after): a fault due later had nothing to act on.
    const runMs = time0 === undefined ? 0 : (clientsDone ?? performance.now()) - time0;
    const effects = faultEffects(plan.faults, recorder.runEvents(), runMs);
    for (const reason of effects.missing) recorder.nemesis('fault-not-applied', { reason });
    recorder.nemesis('run-end', { run });
    const events = recorder.endRun();
    // A lock that broke its contract says nothing about safety: stop with exit 2 (the history is complete).
    if (report.contract) throw new LockContractError(report.contract);
    for (const e of report.healErrors) { broken(e); problems.push(`heal: ${(e as Error).message}`); }
    problems.push(...report.crashes, ...report.errors);   // a crash says why the client exited
    // Killed clients are noted, not disqualifying: their open operations are recorded as unknown.
    const notes = report.killed.map((id) => `client ${id} did not finish in time and was killed`);
    const keys = [...new Set(plan.clients.flatMap((c) => c.attempts.map((a) => keyPrefix + a.key)))];
    const { entries, finals } = await this.resource.collect(keys);
    const resource = checkResource(entries, finals);
    const history = runHistory(events);   // built once, checked for every property
    const check = checkRunHistory(history, lockModel(recipe), this.o.checkTimeMs ?? 20_000);
    const property = this.o.property ?? 'both';
    const liveness = runLiveness(history, recipe, property, this.o.livenessMs ?? defaultLivenessBoundMs(plan.ttlMs, { sessionMs: recipe.sessionMs?.(this.o.lockOptions), leaseLagMs: this.timescales.leaseLagMs }));
    // Asked for: its violations are the run's anomalies too (the words, the shrinker, JUnit and the timeline see them).
    if (liveness.checked) check.anomalies.push(...liveness.violations);
    const live = liveness.violations.length === 0;
    let verdict: Verdict = property === 'resource' ? resource.valid
      : property === 'lock' ? check.valid
        : property === 'liveness' ? live
          : check.valid === false || !resource.valid || (property === 'all' && !live) ? false : check.valid;
    // A run whose clients failed, whose faults did not all take effect, or whose history could
    // not be written, says nothing about the lock: inconclusive (a violation seen stays one).
    // A kind of the plan none of whose faults took effect: that run did not test it.
    const inconclusive = [...problems, ...effects.kindsMissing];
    // The history no longer reaches the disk: no later run could be kept either, so the search stops here.
    if (recorder.failure) throw new InconclusiveError(recorder.failure);
    if (envBroken) throw new InconclusiveError(`run ${run}: ${envBroken.message}`, { cause: envBroken });
    if (check.valid === 'unknown' && check.reason) inconclusive.push(`the check stopped: ${check.reason}`);
    // The plan's order did not hold (an anchor it waited for never came): the run did not test what the plan asked.
    if (report.orderMissed.length) inconclusive.push(`the plan's order did not hold: ${report.orderMissed[0]}`);
    if (verdict === true && inconclusive.length > 0) verdict = 'unknown';
    const ops = events.filter((e) => e.process !== 'nemesis' && e.type !== 'invoke').length;
    return {
      run, plan, verdict, lockVerdict: check.valid, check, resource, events, history, ops, elapsedMs: performance.now() - started,
      problems: [...problems, ...notes], inconclusive, faults: effects, stats: lockStats(events), lostInLease: lostInsideLease(events, this.timescales.leaseLagMs ?? 0), outcomes: runOutcomes(events), lockStats: report.lockStats, points: report.points, resourceEntries: entries, liveness,
      ...(report.orderMissed.length ? { orderMissed: report.orderMissed } : {}),
    };
  }

  /** Says in every history file of the session why it ends here (the run in flight is left unfinished). */
  markInterrupted(reason: string): void {
    if (this.closed) return;
    for (const r of [this.recorder, ...[...this.lanes.values()].map((l) => l.recorder)]) r.nemesis('interrupted', { reason });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await Promise.all([this.pool, ...[...this.lanes.values()].map((l) => l.pool)].map((p) => p.close()));
      this.resource.close();
    } finally {
      for (const l of this.lanes.values()) l.recorder.close();
      this.recorder.close();
      await this.env.down();
    }
  }
}

/** A lane's own parts (Session.lane). */
export interface Lane { recorder: Recorder; pool: ClientPool; ctx: NemesisContext }

/** How long a session lock's server keeps a silent client's hold (LockRecipe.sessionMs), for a lock without a lease. */
function sessionOf(recipe: LockRecipe, options: Record<string, unknown> | undefined): number | undefined {
  const ms = isLeased(recipe) ? undefined : recipe.sessionMs?.(options);
  return ms !== undefined && Number.isFinite(ms) && ms > 0 ? ms : undefined;
}

/** Lane i's history file: history.jsonl for lane 0, history.lane<i+1>.jsonl beside it for the others. */
export function laneHistoryPath(historyPath: string, lane: number): string {
  return lane === 0 ? historyPath : historyPath.replace(/(\.jsonl)?$/, `.lane${lane + 1}.jsonl`);
}

/** One run's events as a history (built once), with the clients and the deaths the runner recorded. */
export interface RunHistory {
  parsed: ParsedHistory;
  /** process → client id ('c1'), from the invokes. */
  clients: Map<number, string>;
  /** Lines of the lapses recorded for a client process that died (client-kill). */
  deathLines: Set<number>;
}

/** Builds one run's history from its events (line i + 1 is events[i], as in its history file). */
export function runHistory(events: readonly HistoryEvent[]): RunHistory {
  const b = new HistoryBuilder('run');
  const clients = new Map<number, string>();
  const deathLines = new Set<number>();
  events.forEach((e, i) => {
    b.add(e, i + 1);
    if (typeof e.process === 'number' && typeof e.client === 'string') clients.set(e.process, e.client);
    if (e.f === 'release' && e.error === 'the client process died') deathLines.add(i + 1);
  });
  return { parsed: b.finish(), clients, deathLines };
}

/** The liveness of one run's history under `bound` ms. */
export function runLiveness(h: RunHistory, recipe: LockRecipe, property: Property, bound: number): RunLiveness {
  const r = checkLiveness(h.parsed, { boundMs: bound, clients: h.clients, deathLines: h.deathLines, leased: isLeased(recipe) });
  return { ...r, bound_ms: bound, checked: wantsLiveness(property) };
}

/**
 * Checks one run's events (already in real-time order): checkHistory itself names the stale
 * unlocks, with each acquire's own lease_ms and the backend of the run-start event, so
 * `lockpick check` of the stored history names the same anomalies. leaseMs is no longer used.
 */
export function checkEvents(events: HistoryEvent[], model: string, timeLimitMs: number, _leaseMs?: number): CheckResult {
  return checkRunHistory(runHistory(events), model, timeLimitMs);
}

/** The lock's check of one run's history (its model; stale unlocks named by checkHistory). */
function checkRunHistory(h: RunHistory, model: string, timeLimitMs: number): CheckResult {
  return checkHistory(h.parsed, { model, timeLimitMs });
}

/**
 * The run's TTL given what the servers said at start: a lease shorter than the shortest they
 * grant is raised to it by the server (etcd), so plans sized by the shorter one would pause a
 * holder for less than its real lease. Raised unless the user fixed --ttl (then only said).
 */
export function leaseFloor(ttlMs: number, fixed: boolean, t: Timescales): { ttlMs: number; said?: string } {
  const min = t.leaseMinMs;
  if (min === undefined || ttlMs >= min) return { ttlMs };
  if (fixed) return { ttlMs, said: `warning: the servers grant no lease shorter than ${min} ms; with --ttl ${ttlMs} a lease lasts ${min} ms, longer than the plans' faults are sized for` };
  return { ttlMs: min, said: `lease: ${min} ms (the servers grant no shorter lease than that; the default ${ttlMs} ms is raised to it)` };
}
