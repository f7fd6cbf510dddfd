// The environment contract: a topology of real servers, each node controllable,
// every link routed through the fault proxy; the kinds of environment.
import type { Capability, StopHow } from './capabilities.ts';
/** How a client reaches a node; servers that need a login say it here (MariaDB: user, password, database). */
export interface Endpoint { id: string; host: string; port: number; user?: string; password?: string; database?: string }

/** A name in the topology registry (src/env/topologies.ts): 'redis', 'redis-sentinel', 'zookeeper', 'mariadb', ... */
export type TopologyName = string;

export interface TopologyOptions {
  masters?: number;              // redis: 1..7 independent masters
  nodes?: number;                // zookeeper: 1 or 3
  persistence?: 'none' | 'aof-always'; // redis
  resource?: boolean;            // add a fault-free Redis node for the protected resource
  /** A topology's own options (etcd's members, ...): its validate() checks them. */
  [option: string]: unknown;
}

/**
 * A node's role: a word its topology declares (TopologyDef.roles: 'redis', 'redis-replica',
 * 'sentinel', 'zookeeper', 'mariadb', ...), or 'resource' (the environment's fault-free node).
 * Open, so a new topology (etcd, Consul) adds its roles without editing this type.
 */
export type NodeRole = string;

export interface NodeHandle {
  readonly id: string;           // 'n1', 'n2', ... ('s1'.. sentinels, 'resource')
  readonly role: NodeRole;
  readonly port: number;         // the real listening port (bypasses the proxy)
  readonly host?: string;        // where it listens when not 127.0.0.1 (an external server)
  /** Where its peers and Sentinel know it by, when not host:port (a container's address on its private network). */
  readonly announced?: { host: string; port: number };
  readonly logFile: string;
  pid(): number | undefined;
  pause(): Promise<void>;        // SIGSTOP
  resume(): Promise<void>;       // SIGCONT
  /**
   * Stops the server: SIGKILL by default (a crash); SIGTERM is a graceful stop, SIGKILL after
   * `graceMs` if it has not exited. `forced`: the bound ran out and SIGKILL ended it.
   */
  kill(how?: StopHow): Promise<{ forced?: boolean } | void>;
  restart(o?: { persistence?: 'none' | 'aof-always' }): Promise<void>; // start again after kill (same port, same dir)
  setClockOffsetMs(ms: number): Promise<void>; // wall-clock offset via the clock shim
  clockOffsetMs(): number;
}

/**
 * A directed link through the fault proxy (toxiproxy proxy name = name). `channel`: a client's
 * link for one of its lock's own connections (LockRecipe.channels, e.g. 'keepalive'), apart
 * from its main one, so a fault can cut that connection alone.
 */
export interface Link { name: string; from: string; to: string; listen: Endpoint; upstream: Endpoint; channel?: string }

export interface Environment {
  readonly topology: TopologyName;
  /** Where the servers come from and what can be done to them (src/env/env-kinds.ts); absent: assume everything (hand-made test environments). */
  readonly envKind?: EnvKindDef;
  readonly nodes: NodeHandle[];
  readonly links: Link[];        // node→node links, and client links created so far
  readonly proxyUrl: string;     // Toxiproxy HTTP API (drive it with toxiproxy-node-client)
  readonly sentinelName?: string;
  node(id: string): NodeHandle;
  /** The endpoints client `clientId` uses, one proxied link per (client, data node); with `channel`, those of its lock's connection of that name (links of their own). */
  clientEndpoints(clientId: string, channel?: string): Promise<Endpoint[]>;
  /** Sentinel endpoints for client `clientId` (redis-sentinel), proxied likewise. */
  sentinelEndpoints?(clientId: string): Promise<Endpoint[]>;
  /** Endpoint of the fault-free resource node, if requested. */
  resourceEndpoint?(): Endpoint;
  down(): Promise<void>;
}

/** A server of an external environment, as --endpoints names it (src/env/endpoints.ts). */
export interface ExternalEndpoint {
  role: string;
  host: string;
  port: number;
  user?: string;
  password?: string;
  database?: string;
}

/** What --endpoints says: the servers, and the Sentinel master name when there are Sentinels. */
export interface ExternalServers { endpoints: ExternalEndpoint[]; master?: string }

/** Which environment a run uses (stored in test.json, so a replay rebuilds it). */
export interface EnvSpec {
  kind: string;
  servers?: ExternalServers;
  /** Capabilities the run's faults need that only the user's setup gives (EnvKindDef.setup): checked when the environment starts (not stored). */
  needs?: Capability[];
}

/** An environment kind (src/env/env-kinds.ts: local, external, docker): where the servers come from, what can be done to them. */
export interface EnvKindDef {
  name: string;
  summary: string;
  capabilities: readonly Capability[];
  /**
   * Capabilities the user's setup may add (external: 'node-link' through their Toxiproxy),
   * certain only once the environment starts and sees it; `present` says whether the setup is
   * there at all (TOXIPROXY_URL set), `label` names it in the table, `hint` says how to get it.
   */
  setup?: { capabilities: readonly Capability[]; present(): boolean; label: string; hint: string };
  /** Brings up `topology` (UsageError for bad input, InconclusiveError when it cannot start). */
  start?(topology: TopologyName, o: TopologyOptions, spec: EnvSpec): Promise<Environment>;
}
