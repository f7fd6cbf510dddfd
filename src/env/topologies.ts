// The topology registry: one line per topology (each is one file, topology-*.ts).
// Adding a backend (etcd, Consul) is a new file and a line here; see ARCHITECTURE.md.
import type { TopologyDef } from './topology.ts';
import { redisTopology } from './topology-redis.ts';
import { sentinelTopology } from './topology-sentinel.ts';
import { zookeeperTopology } from './topology-zookeeper.ts';
import { mariadbTopology } from './topology-mariadb.ts';

export const TOPOLOGY_DEFS: readonly TopologyDef[] = [redisTopology, sentinelTopology, zookeeperTopology, mariadbTopology];

export function topologyDef(name: string): TopologyDef | undefined {
  return TOPOLOGY_DEFS.find((t) => t.name === name);
}
