// `zookeeper`: an ensemble of 1 or 3 servers; quorum and election links
// (n1->n2 and n1->n2:election, ...) go through the proxy.
import type { TopologyOptions } from './types.ts';
import type { LocalEnvironment } from './environment.ts';
import { freePort } from './ports.ts';
import { settleAll } from './settle.ts';
import { routePeers } from './topology-peers.ts';
import { createZkNode, type ZkPorts } from './zookeeper.ts';

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
