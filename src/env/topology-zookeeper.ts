// `zookeeper`: an ensemble of 1 or 3 servers; quorum and election links
// (n1->n2 and n1->n2:election, ...) go through the proxy.
import type { TopologyOptions } from './types.ts';
import type { LocalEnvironment } from './environment.ts';
import { freePort } from './ports.ts';
import { settleAll } from './settle.ts';
import { routePeers } from './topology-peers.ts';
import { createZkNode, type ZkPorts } from './zookeeper.ts';
import type { TopologyDef } from './topology.ts';
import { UsageError } from '../errors.ts';

export async function startZookeeperTopology(env: LocalEnvironment, o: TopologyOptions): Promise<void> {
  const members: { id: string; ports: ZkPorts }[] = [];
  for (let i = 1; i <= (o.nodes ?? 3); i++) {
    members.push({ id: `n${i}`, ports: { client: await freePort(), quorum: await freePort(), election: await freePort() } });
  }
  const uids =
    members.length > 1
      ? await routePeers(
          env,
          members.map((m) => ({ id: m.id, ports: [{ port: m.ports.quorum }, { port: m.ports.election, suffix: ':election' }] })),
          () => true,
        )
      : new Map<string, number>();
  const nodes = members.map((m) => createZkNode({ id: m.id, root: env.root, ports: m.ports, ensemble: members, uid: uids.get(m.id) }));
  await settleAll(
    nodes.map(async (n) => {
      await n.start();
      return n;
    }),
    (n) => env.nodes.push(n),
  );
}

export const zookeeperTopology: TopologyDef = {
  name: 'zookeeper',
  summary: 'a ZooKeeper ensemble of 1 or 3 servers (--nodes)',
  backend: 'zookeeper',
  leased: false,
  validate(o) {
    if (o.nodes !== undefined && o.nodes !== 1 && o.nodes !== 3) throw new UsageError(`zookeeper nodes must be 1 or 3, got ${o.nodes}`);
  },
  start: startZookeeperTopology,
  external: () => [{ role: 'zookeeper', as: 'zookeeper', prefix: 'n', min: 1, max: 9 }],
};
