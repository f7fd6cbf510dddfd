// The one interface every lock implementation under test speaks: what a client
// believes, nothing more. The runner turns these outcomes into history events:
//   acquire → Held: ok (value {token} if any) | null: fail | throws: info
//   release → 'released': ok | 'lost': ok {lost:true} | throws DefiniteFailure: fail | throws: info
//   renew   → 'renewed': ok | 'lost': fail, then a lapse release | throws: info
// Anything else returned (undefined, 42, 'ok', a create() that is not a Lock)
// breaks the contract: the run stops with exit 2 (src/locks/contract.ts).
import type { RealLease } from './real-lease.ts';
import type { Endpoint, TopologyName, TopologyOptions } from '../env/types.ts';
import { UsageError } from '../errors.ts';

export interface Held {
  key: string;
  token?: number | string;     // fencing token, when the recipe hands one out
  validUntilMs?: number;       // on the client's monotonic clock (ctx.clock.monoMs)
  [state: string]: unknown;    // whatever the recipe needs to release (random value, ...)
}

/** How a hold is shared (LockRecipe.modes): 'exclusive' (a writer, alone) or 'shared' (a reader, beside other readers). */
export type HoldMode = 'exclusive' | 'shared';

/**
 * What one acquire asks for. A semaphore (LockRecipe.semaphore) also gets `permits` (how many of
 * its `limit` this hold takes: 1 unless the recipe says multiPermit) and `limit` (its N); a
 * read-write lock (LockRecipe.modes) gets the `mode`. A mutex gets neither.
 */
export interface AcquireOptions {
  ttlMs: number;
  waitMs: number;
  mode?: HoldMode;
  permits?: number;
  limit?: number;
}

/** A counting semaphore's declaration: at most `limit` permits held at once. */
export interface SemaphoreShape {
  /** N, the permits there are (an acquire is told it as AcquireOptions.limit). */
  limit: number;
  /** A holder may take more than one permit in one acquire (AcquireOptions.permits up to limit). */
  multiPermit?: boolean;
}

export interface Lock {
  readonly name: string;
  acquire(key: string, o: AcquireOptions): Promise<Held | null>;
  release(h: Held): Promise<'released' | 'lost'>;
  renew?(h: Held, ttlMs: number): Promise<'renewed' | 'lost'>;
  close(): Promise<void>;
  /**
   * Counters the lock may report, read once per run before close() and summed
   * over clients into the run's coverage (printed per ok acquire, stored in
   * results.json): e.g. `watchNotifications` (ZooKeeper watches that fired at
   * this client), `creates` (node create requests), `wakeups` (waits a
   * notification ended). Only finite numbers are kept.
   */
  stats?(): Record<string, number>;
}

/** A lock's counters (Lock.stats), finite numbers only; undefined if it has none or they cannot be read. */
export function readLockStats(lock: Lock | undefined): Record<string, number> | undefined {
  if (typeof lock?.stats !== 'function') return undefined;
  try {
    const raw: unknown = lock.stats();
    if (typeof raw !== 'object' || raw === null) return undefined;
    // fromEntries defines own keys: a counter named `__proto__` stays a counter.
    return Object.fromEntries(Object.entries(raw).filter((e): e is [string, number] => typeof e[1] === 'number' && Number.isFinite(e[1])));
  } catch {
    return undefined; // counters are a figure, not the verdict: a broken stats() costs only the figure
  }
}

/**
 * Thrown when an operation certainly did not take effect (recorded as `fail`).
 * The runner recognises it by its brand, `lockpickDefiniteFailure: true`, not by
 * `instanceof` (a user's module may load another copy of lockpick), so a module
 * that cannot import this class may throw a plain Error carrying the brand:
 *   throw Object.assign(new Error('not sent: no connection'), { lockpickDefiniteFailure: true });
 */
export class DefiniteFailure extends Error {
  readonly definite = true;
  readonly lockpickDefiniteFailure = true;
  override name = 'DefiniteFailure';
}

/** True for a DefiniteFailure of any copy of lockpick, or any error carrying its brand. */
export function isDefiniteFailure(e: unknown): boolean {
  return typeof e === 'object' && e !== null && (e as { lockpickDefiniteFailure?: unknown }).lockpickDefiniteFailure === true;
}

/**
 * A lock broke the Lock contract (acquire returned undefined, release returned
 * garbage, ...): the run says nothing about the lock. The user's module is bad
 * input, so this is a UsageError (exit 2, `lockpick run: <message>`). Branded
 * like DefiniteFailure.
 */
export class LockContractError extends UsageError {
  readonly lockpickLockContract = true;
  override name = 'LockContractError';
}

export function isLockContractError(e: unknown): e is LockContractError {
  return typeof e === 'object' && e !== null && (e as { lockpickLockContract?: unknown }).lockpickLockContract === true;
}

/** The client's clocks. wallMs may be skewed by the nemesis (client clock faults). */
export interface Clock {
  wallMs(): number;
  monoMs(): number;
  /** The client-clock fault's skew of wallMs now, in ms (a process client hands it to its child's clock shim). */
  offsetMs?(): number;
}

/**
 * Everything a lock implementation gets to connect with. `create(ctx)` is called
 * once per run in each client worker (one process per client, reused from run
 * to run), so a lock connects in `create` and disconnects in `close`; time 0 of
 * the run starts only after every worker's `create` has returned.
 *
 * What a topology gives (its TopologyDef, src/env/topology-*.ts): `endpoints` are its data
 * servers (`roles.data`) as this client reaches them, one per server (a Redis master, a
 * ZooKeeper or etcd member), each carrying the login where its endpoint role has one
 * (`user`, `password`, `database`: MariaDB, PostgreSQL, which the environment creates);
 * its `clientExtras` add servers of other roles, settings and an address map (redis-sentinel:
 * `roles.sentinel`, `settings.masterName`, `addressMap`). Connect with exactly those.
 */
export interface LockContext {
  /** The run's lease (ms): every acquire of this run asks for it (a library that fixes its lease per client builds it from this). */
  ttlMs?: number;
  /** The longest an acquire of this run waits for the lock (ms). */
  waitMs?: number;
  clientId: string;              // unique per worker; recipes use it as the owner value
  /** What every key of this run starts with (`--key-prefix` then `r<run>-`): the run's namespace on the servers. */
  keyPrefix?: string;
  endpoints: Endpoint[];         // data nodes as this client reaches them (through the fault proxy): connect only to these
  /** Servers of the topology's other roles, proxied like `endpoints` (redis-sentinel: `sentinel`). */
  roles?: Record<string, Endpoint[]>;
  /** What the topology tells its clients (redis-sentinel: `masterName`, the monitored master). */
  settings?: Record<string, string>;
  /** Servers that announce real addresses (Sentinel): "host:port" → this client's proxied endpoint (ioredis natMap). */
  addressMap?: Record<string, { host: string; port: number }>;
  /**
   * The endpoints of each further connection the recipe declares (LockRecipe.channels): the same
   * servers over links of their own, so a fault can cut that connection alone ('keepalive-cut').
   */
  channels?: Record<string, Endpoint[]>;
  clock: Clock;
  commandTimeoutMs: number;      // per-command budget; past it the op is indeterminate
  options?: Record<string, unknown>; // recipe options from the command line (--lock-opt k=v)
  /**
   * A named point inside a recipe where a scheduled client pause may land
   * (e.g. 'after-compare' between GET and DEL). Recipes await it at their racy
   * steps; the runner resolves it at once unless the schedule pauses there.
   */
  point?(name: string): Promise<void>;
  /**
   * A fault that cannot reach this lock's runtime (a process client whose clock is read by a
   * Go binary: 'client-clock'): the runner records it, and a run with such a fault is not
   * counted as having applied it (inconclusive, never SAFE). `always`: it can never reach this
   * lock (a property of its program, not of the moment): the runs that counted the kind as
   * applied before this was learned did not test it either, so the search cannot be SAFE on it.
   */
  unreached?(kind: string, reason: string, always?: boolean): void;
}

/**
 * The servers a recipe runs on: `kind` names a topology of the registry
 * (src/env/topologies.ts: 'redis', 'zookeeper', ..., or one added there), the rest are that topology's options, checked by its `validate`
 * (e.g. { kind: 'redis', masters: 5 }, { kind: 'zookeeper', nodes: 3 }). Open, so a new
 * topology needs no edit here; a user lock naming an unregistered one is refused (exit 2).
 */
export type RecipeTopology = TopologyOptions & { kind: string; [option: string]: unknown };

/** A recipe's topology as a run starts it: the registry's name, and its options plus the resource node (every run has one). */
export function topologyOf(recipe: Pick<LockRecipe, 'topology'>): { name: TopologyName; opts: TopologyOptions } {
  const { kind, ...opts } = recipe.topology;
  return { name: kind, opts: { ...opts, resource: true } };
}

/** What a --lock-opt value may be (LockRecipe.optionValues). */
export type LockOptionValue = 'number' | 'text' | readonly string[];

/** A recipe in the registry: how to build it, what it needs, where it comes from. */
export interface LockRecipe {
  name: string;
  summary: string;               // one line for `lockpick list`
  source: string;                // seed file(s) or literature it follows
  topology: RecipeTopology;
  /** The checker's model: 'semaphore' exactly when `semaphore` is declared, 'rwlock' exactly when `modes` is (locks.test.ts holds them together). */
  model: 'mutex' | 'reentrant-mutex' | 'fenced-mutex' | 'semaphore' | 'rwlock';
  /** The lock is a counting semaphore: its limit, and whether a holder may take several permits. */
  semaphore?: SemaphoreShape;
  /** The lock is a read-write lock: acquire takes a mode, 'shared' holds admitted together, an 'exclusive' one alone. */
  modes?: readonly HoldMode[];
  fencing: boolean;              // hands out tokens the resource can check
  /**
   * The server forgets an acquire after ttlMs unless renewed (a lease: SET PX, Redlock).
   * Then each acquire ok records `lease_ms` and the checker lets another client take the
   * lock once it ran out. Default: the topology's `leased` (true where holds are leases: redis;
   * false where they live in a server session: zookeeper, mariadb).
   */
  lease?: boolean;
  points?: string[];             // names this recipe passes to ctx.point (where a pause may land)
  /**
   * Further connections the lock opens to the same servers, by purpose ('keepalive': the one its
   * lease keep-alives go over), each reached through links of its own (LockContext.channels);
   * a fault kind that acts on one (KindDef.lockChannel) applies only to a lock declaring it.
   */
  channels?: string[];
  /** Its Lock has renew() (with some options, at least): run plans then ask for renews in holds. */
  renews?: boolean;
  /**
   * The budget of one call to the servers (LockContext.commandTimeoutMs; default 500 ms): more
   * for a library that cannot give up sooner (whole-second timeouts). Past it, twice over, a
   * process client is killed mid-call. At most COMMAND_TIMEOUT_MAX_MS (command-timeout.ts).
   */
  commandTimeoutMs?: number;
  /**
   * The lock keeps its own lease alive while held (a watchdog timer, an auto-refresh): plans then
   * hold past the TTL with no renew call, so a watchdog that is late or renews what it no longer owns shows.
   */
  keepsAlive?: boolean;
  /** How far (ms) the servers' clocks may drift for a lease of ttlMs and the lock still hold (Redlock's drift), given --lock-opt options; absent: 0. A server clock jump beyond it breaks the design, not the lock. */
  clockDriftMs?(ttlMs: number, options?: Record<string, unknown>): number;
  /** How long the server keeps the hold of a client it no longer hears from (ZooKeeper: the session timeout), given --lock-opt options. */
  sessionMs?(options: Record<string, unknown> | undefined): number;
  /**
   * Fault kinds that cannot reach this lock, each with the reason (a process client whose runtime
   * reads its clock without libc: 'client-clock'); such a kind is refused (exit 2) and left out of `all`.
   */
  lacks?: Record<string, string>;
  /**
   * Who makes the lock's I/O points (send:<op>:N): 'hooks' (the default: the worker's hooks on Node's
   * net) or 'proxy' (the fault proxy frames the client's requests: a process client, a client whose
   * I/O no hook sees; src/runner/proxy-points.ts). A topology whose client is native uses the proxy.
   */
  ioPoints?: 'proxy' | 'hooks';
  /** The lease the library really grants for a TTL (rounding, minimum, margin: src/locks/real-lease.ts), when it differs; lease_ms and fault sizes follow it. */
  realLease?: RealLease;
  optionsHelp?: Record<string, string>; // --lock-opt names → one-line description
  /**
   * What each --lock-opt value may be, checked before anything starts (exit 2): 'number' (finite,
   * 0 to 3,600,000, as numberOption reads it), 'text', or the words allowed. A recipe declaring
   * optionsHelp or optionValues has exactly those names: another is refused (a misspelt option).
   */
  optionValues?: Record<string, LockOptionValue>;
  /**
   * npm packages create() loads that may be missing (lockpick's optional dependencies, such as
   * the `zookeeper` addon): a run loads them before any server starts and, when one is not
   * there, exits 3 with the `npm install` line (src/optional.ts).
   */
  packages?: string[];
  create(ctx: LockContext): Lock | Promise<Lock>;
}
