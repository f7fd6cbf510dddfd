// What a topology is, for the registry (topologies.ts): one file per topology
// (topology-*.ts) says how to start it locally, which servers an external
// environment must name for it, and what its lock service is called.
import type { Endpoint, Environment, NodeRole, TopologyOptions } from './types.ts';
import type { LocalEnvironment } from './environment.ts';
import type { EndpointRole } from './endpoints.ts';
import type { DockerKit } from './docker.ts';

/** Servers of one role an external environment names for this topology (node ids: prefix + 1, 2, ...). */
export interface ExternalRole { role: EndpointRole; as: NodeRole; prefix: string; min: number; max: number }

/** What a client needs beyond its data endpoints (LockContext: roles, settings, addressMap). */
export interface ClientExtras {
  roles?: Record<string, Endpoint[]>;
  settings?: Record<string, string>;
  addressMap?: Record<string, { host: string; port: number }>;
}

export interface TopologyDef {
  name: string;
  /** One line for `lockpick env --help` and the docs. */
  summary: string;
  /** The lock service in the checker's words (HISTORY.md: run-start's "backend"; stale unlocks are named by it). */
  backend: 'redis' | 'zookeeper' | 'mysql';
  /** Whether its locks are leases unless the recipe says (LockRecipe.lease): a hold ends by itself at its TTL. */
  leased: boolean;
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
}
