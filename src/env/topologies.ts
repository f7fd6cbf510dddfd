// The topology registry: one line per topology (each is one file, topology-*.ts).
// Adding a backend (etcd, Consul) is a new file and a line here; see ARCHITECTURE.md.
// The role and backend words the rest of lockpick switches on come from here.
import type { BackendWords, EndpointRoleDef, TopologyDef } from './topology.ts';
import type { ImageRecipe } from './docker-image.ts';
import { redisTopology } from './topology-redis.ts';
import { sentinelTopology } from './topology-sentinel.ts';
import { zookeeperTopology } from './topology-zookeeper.ts';
import { mariadbTopology } from './topology-mariadb.ts';
import { pgbouncerTopology, postgresTopology } from './topology-postgres.ts';
import { etcdTopology } from './topology-etcd.ts';
import { memcachedTopology } from './topology-memcached.ts';
import { natsTopology } from './topology-nats.ts';
import { installBackends } from './backend-hook.ts';
import type { TopologyName, TopologyOptions } from './types.ts';
import { UsageError } from '../errors.ts';

export const TOPOLOGY_DEFS: readonly TopologyDef[] = [redisTopology, sentinelTopology, zookeeperTopology, mariadbTopology, postgresTopology, pgbouncerTopology, etcdTopology, memcachedTopology, natsTopology];

export function topologyDef(name: string): TopologyDef | undefined {
  return TOPOLOGY_DEFS.find((t) => t.name === name);
}

/** The registered names, once (topologyNames() gives a fresh copy). */
export const TOPOLOGIES: readonly TopologyName[] = TOPOLOGY_DEFS.map((t) => t.name);

/** Bad options are the user's to fix (exit 2); throws UsageError naming the option. */
export function validateTopology(topology: TopologyName, o: TopologyOptions): void {
  const def = topologyDef(topology);
  if (!def) throw new UsageError(`unknown topology '${topology}'; use one of: ${TOPOLOGIES.join(', ')}`);
  def.validate?.(o);
  if (o.persistence !== undefined && o.persistence !== 'none' && o.persistence !== 'aof-always') {
    throw new UsageError(`persistence must be 'none' or 'aof-always', got '${String(o.persistence)}'`);
  }
}

/** The registered names, for messages ("registered: redis, redis-sentinel, ..."). */
export function topologyNames(): string[] {
  return TOPOLOGY_DEFS.map((t) => t.name);
}

/**
 * The node roles clients lock on in `topology`; for a name the registry does not know
 * (a hand-made test environment) every registered topology's.
 */
export function dataRoles(topology?: string): readonly string[] {
  const def = topology === undefined ? undefined : topologyDef(topology);
  return def ? def.roles.data : [...new Set(TOPOLOGY_DEFS.flatMap((t) => t.roles.data))];
}

/** The data roles of every topology whose lock service is `backend` (Redis: 'redis', 'redis-replica'). */
export function backendDataRoles(backend: string): string[] {
  return [...new Set(TOPOLOGY_DEFS.filter((t) => t.backend === backend).flatMap((t) => t.roles.data))];
}

/** Every `--endpoints` role a registered topology takes, each once (a login role wins over a plain one). */
export function topologyEndpointRoles(): EndpointRoleDef[] {
  const out = new Map<string, EndpointRoleDef>();
  for (const r of TOPOLOGY_DEFS.flatMap((t) => t.endpointRoles)) if (!out.get(r.role)?.login) out.set(r.role, r);
  return [...out.values()];
}

/**
 * The checker's words for `backend`: a topology's name whose words are its own (run-start's
 * "topology": PgBouncer's pooled sessions), else a lock service (run-start's "backend"), from the
 * first topology naming it that gives them.
 */
export function backendWords(backend: string | undefined): BackendWords | undefined {
  if (backend === undefined) return undefined;
  return TOPOLOGY_DEFS.find((t) => t.name === backend && t.words)?.words ?? TOPOLOGY_DEFS.find((t) => t.backend === backend && t.words)?.words;
}

/** Every backend word a registered topology declares, each once ('redis', 'zookeeper', 'mysql', ...), then the topologies whose words are their own. */
export function backendNames(): string[] {
  return [...new Set([...TOPOLOGY_DEFS.map((t) => t.backend), ...TOPOLOGY_DEFS.filter((t) => t.words && t.words !== backendWords(t.backend)).map((t) => t.name)])];
}

/** The image recipe of `kind` ('redis', 'zookeeper', ...) from whichever topology declares it. */
export function imageRecipe(kind: string): ImageRecipe | undefined {
  return TOPOLOGY_DEFS.map((t) => t.images?.[kind]).find((r) => r !== undefined);
}

/** Every image kind a registered topology declares (the roles --image takes). */
export function imageKinds(): string[] {
  return [...new Set(TOPOLOGY_DEFS.flatMap((t) => Object.keys(t.images ?? {})))];
}

// The checker reads the backends' words through checkers/backends.ts (by backend-hook.ts), which loads this registry only when a check needs them.
installBackends({ names: backendNames, words: backendWords });
