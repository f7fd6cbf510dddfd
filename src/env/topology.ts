// What a topology is, for the registry (topologies.ts): one file per topology
// (topology-*.ts) says how to start it locally, which servers an external
// environment must name for it, and what its lock service is called. Its role
// and backend words are its own (open strings), so a new topology needs no
// edit elsewhere: the environment, --endpoints, user-lock checks and the
// nemesis ask the registry for them.
import type { Endpoint, Environment, NodeHandle, NodeRole, TopologyOptions } from './types.ts';
import type { LocalEnvironment } from './environment.ts';
import type { DockerKit } from './docker.ts';
import type { ImageRecipe } from './docker-image.ts';
import { UsageError } from '../errors.ts';

/** Servers of one role an external environment names for this topology (node ids: prefix + 1, 2, ...). */
export interface ExternalRole { role: string; as: NodeRole; prefix: string; min: number; max: number }

/** A word `--endpoints` takes for this topology: ROLE=HOST:PORT, or with `login` ROLE=USER:PASSWORD@HOST:PORT/DATABASE; `what` names the server in messages (default: the role). */
export interface EndpointRoleDef { role: string; login?: boolean; what?: string }

/**
 * How long things take on this topology's servers, read from them once they are up (not
 * assumed: a user's image or config may set other timeouts). The search sizes leases and
 * fault windows by it, so a failover can complete inside a lease; `--ttl` still overrides.
 */
export interface Timescales {
  /** The longest a failover (detection, election, promotion) is planned to take. */
  promotionMs?: number;
  /** The shortest lease the servers grant (a shorter one asked for is raised to it): a run's TTL is at least this unless --ttl says otherwise. */
  leaseMinMs?: number;
  /**
   * How late after a lease ran out the servers may still hold it (etcd revokes lapsed leases in
   * a loop of its own): a fault meant to outlast a lease outlasts this too, or the holder wakes
   * to a lease that lapsed but still stands.
   */
  leaseLagMs?: number;
  /** What was read, in words, for the run's header. */
  said: string[];
}

/** What a client needs beyond its data endpoints (LockContext: roles, settings, addressMap). */
export interface ClientExtras {
  roles?: Record<string, Endpoint[]>;
  settings?: Record<string, string>;
  addressMap?: Record<string, { host: string; port: number }>;
}

/**
 * The lock service's own words for the checker (checkers/stale-unlock.ts, messages.ts): how
 * its unlock finds its lock, so a stale unlock is named by what it did there.
 */
export interface BackendWords {
  /** What a stale unlock freed, in this service's terms (`victim`: the process whose lock it was by then). */
  staleUnlock(victim: number): string;
  /** Why an unlock sent after its lease had run out must not report success here (default: general words). */
  lateUnlock?: string;
  /** Its unlock removes only the unlocker's own entry (ZooKeeper's sequential znode), so it cannot free another's lock. */
  ownEntryOnly?: boolean;
}

/**
 * The clock a topology's holds expire by (TopologyDef.expiryClock). 'unshimmable': the server's
 * own clock, wall or monotonic, read where the clock shim (an LD_PRELOAD over libc's
 * clock_gettime) cannot reach: a Go server's runtime reads it from the vDSO, without libc.
 */
export type ExpiryClock = 'wall' | 'monotonic' | 'session' | 'unshimmable' | 'none';

export const EXPIRY_CLOCKS: readonly ExpiryClock[] = ['wall', 'monotonic', 'session', 'unshimmable', 'none'];

/** The clock in words, for refusals: "memcached's holds expire by its own monotonic clock". */
export const EXPIRY_CLOCK_WORDS: Record<ExpiryClock, string> = {
  wall: 'its wall clock',
  monotonic: 'its own monotonic clock',
  session: 'the server sessions they live in, timed by the server',
  unshimmable: "its own clock, which it reads without libc (a Go server's runtime reads it from the vDSO), so the clock shim cannot move it",
  none: 'no clock (they never expire)',
};

/**
 * A field a topology declares it has none of, and why (a single server has no leader; a protocol
 * the proxy does not frame yet): every field that changes a verdict is declared, so none is
 * missed silently (test/unit/topology-contract.test.ts).
 */
export interface None { none: string }

/** The field's value, or undefined where the topology declared it has none. */
export function declared<T>(v: T | None | undefined): T | undefined {
  return typeof v === 'object' && v !== null && 'none' in v ? undefined : v as T | undefined;
}

/** An elected leader the nemesis can aim at ('leader' / 'followers' targets). */
export interface LeaderDef {
  /** Fewest data servers for a leader worth aiming at (an ensemble of 3). */
  minNodes: number;
  /** The leader now, from the servers' own status (over their real ports, not the proxy); undefined when none says so. */
  find(env: Environment): Promise<{ leader?: NodeHandle; said: string }>;
}

export interface TopologyDef {
  name: string;
  /** One line for `lockpick env --help` and the docs. */
  summary: string;
  /** The lock service in the checker's words (docs/history-format.md: run-start's "backend"): 'redis', 'zookeeper', 'mysql' name stale unlocks in that service's terms; any other word gets general ones. */
  backend: string;
  /**
   * The OS (Debian) packages its servers come from on the local environment, whose installed
   * versions a run records in test.json ("versions") and a bug report names; none ([]) only for
   * servers that come from elsewhere.
   */
  packages: readonly string[];
  /** The checker's words for that service (one entry per backend word is enough: the first topology naming it gives them). */
  words?: BackendWords;
  /**
   * Its node roles (NodeHandle.role). `data`: the servers clients lock on (LockContext.endpoints);
   * `other`: servers it starts beside them (Sentinels), reached through clientExtras. The
   * environment's 'resource' node is not the topology's and is not listed.
   */
  roles: { data: readonly NodeRole[]; other?: readonly NodeRole[] };
  /** The roles `--endpoints` names its servers by (external() uses these words). */
  endpointRoles: readonly EndpointRoleDef[];
  /** Whether its locks are leases unless the recipe says (LockRecipe.lease): a hold ends by itself at its TTL. */
  leased: boolean;
  // The fields from here to `framing` and `timescales` change what lockpick concludes: each is
  // declared by every topology (`{ none: why }` where it has none), never left to a default.
  /** An elected leader among its data servers, and how to find it ('leader'/'followers' targets); none: why (one server; a primary Sentinels choose). */
  leader: LeaderDef | None;
  /**
   * A killed server comes back without the holds it kept: 'always' (it keeps them in memory
   * only: memcached), 'without-persistence' (Redis: unless started with persistence; a
   * topology that says so takes the `persistence` option, and its generated kills say 'none'),
   * or 'never' (its holds are on disk or in a quorum's log, or die with the client's session).
   * The `lease-restart` aim and the failure cause read it.
   */
  restartForgets: 'always' | 'without-persistence' | 'never';
  /**
   * The clock its holds expire by, so a fault that moves another clock is refused for it
   * (nemesis/kinds.ts topologyProblem; KindDef.movesClock): 'wall' (Redis: absolute expiry
   * times, read through libc), 'monotonic' (its own elapsed-time clock: memcached), 'session'
   * (holds end with a server session, timed by the server: ZooKeeper, MariaDB, PostgreSQL),
   * 'unshimmable' (whatever clock, read without libc: a Go server, etcd, NATS), 'none'.
   */
  expiryClock: ExpiryClock;
  /**
   * A hold that lives in a server session ends as soon as the client's connection closes: the
   * session is the connection (MariaDB, PostgreSQL), so a cut that closes it (a partition in
   * 'disable' mode: KindDef.closesConnections) ends the hold at once. False where a session
   * outlives its connection until a timeout (ZooKeeper) or holds are leases.
   */
  sessionEndsWithConnection: boolean;
  /** A failover may promote a replica a grant had not reached yet (asynchronous replication, Sentinel): a double holder it causes is inherent to the design. */
  asyncFailover: boolean;
  /** Its clients do their I/O outside Node's net (ZooKeeper's C addon): no in-process send/reply points fire; the proxy's do, given `framing`. */
  nativeClient: boolean;
  /**
   * The protocol its servers speak, as the fault proxy frames a client's requests
   * (src/proxy/framing/: 'resp', 'mysql', 'postgres', 'zookeeper'): a client no hook in its
   * process sees (a native client, a process client) gets 'send' points from the proxy.
   * None: why (such a client then gets no I/O points at all).
   */
  framing: string | None;
  /** The images its docker() starts (`kit.start({ image })`), each built from this machine's packages; --image ROLE=IMAGE replaces one. */
  images?: Record<string, ImageRecipe>;
  /**
   * The options it takes, each a flag of `lockpick env up` (--members N) and a field of a
   * recipe's topology; its validate refuses any other (onlyOptions) and checks their values.
   */
  options?: readonly string[];
  /** Throws UsageError naming the option this topology cannot take (masters, nodes, ...). */
  validate?(o: TopologyOptions): void;
  /** Starts the servers into `env` (the local kind); the fault-free resource node comes after, from the environment. */
  start(env: LocalEnvironment, o: TopologyOptions): Promise<void>;
  /** Starts the servers as containers (--env docker) with the kit; absent: --env docker refuses this topology. */
  docker?(kit: DockerKit, o: TopologyOptions): Promise<void>;
  /** The servers an external environment must name (--endpoints roles and how many). */
  external(o: TopologyOptions): ExternalRole[];
  /** For client `clientId` (whose data endpoints are `endpoints`): other servers, settings, announced-address map. */
  clientExtras?(env: Environment, clientId: string, endpoints: Endpoint[]): Promise<ClientExtras>;
  /**
   * Ends the server sessions of these clients as the server's administrator would (PostgreSQL's
   * pg_terminate_backend, MySQL's KILL CONNECTION), found by the address and port the server
   * lists for them: the upstream ends of the clients' proxied connections (client-sessions.ts;
   * `sessionTag` only as a hint), over the servers' real ports; a hold that lives in a session goes with it.
   * Absent: the 'session-kill' fault does not apply to this topology.
   */
  endSessions?(env: Environment, clients: readonly string[]): Promise<{ ended: number; said: string }>;
  /** Reads its timescales from the running servers (Sentinel's down-after and failover timeout); none: why there is nothing to size by (no lease floor, no lag). */
  timescales: ((env: Environment) => Promise<Timescales>) | None;
}

/** Options every topology takes: the environment adds the resource node. */
const COMMON_OPTIONS = ['resource'];

/**
 * For a topology's validate: throws UsageError naming an option `topology` does not take
 * (a typo, or another topology's: masters on zookeeper), so it is not silently ignored.
 */
export function onlyOptions(topology: string, o: object, takes: readonly string[]): void {
  for (const [k, v] of Object.entries(o)) {
    if (v === undefined || k === 'kind' || takes.includes(k) || COMMON_OPTIONS.includes(k)) continue;
    throw new UsageError(`${topology} takes no option '${k}' (${takes.length ? `it takes ${takes.join(', ')}` : 'it takes none'})`);
  }
}

/**
 * The tag lockpick's own locks give a client's server sessions (PostgreSQL application_name, a
 * MySQL user-level lock name): a hint for TopologyDef.endSessions besides the proxy's ports,
 * and what names a pooled backend (PgBouncer), where the ports are the pooler's.
 */
export function sessionTag(clientId: string): string {
  return `lockpick-session-${clientId}`;
}
