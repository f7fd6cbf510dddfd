// `zookeeper`: an ensemble of 1 or 3 servers; quorum and election links
// (n1->n2 and n1->n2:election, ...) go through the proxy.
import type { Environment, TopologyOptions } from './types.ts';
import type { LocalEnvironment } from './environment.ts';
import { freePort } from './ports.ts';
import { settleAll } from './settle.ts';
import { routePeers } from './topology-peers.ts';
import { createZkNode, zkMyid, zooCfgLines, zookeeperMode, type ZkPorts } from './zookeeper.ts';
import { ZOOKEEPER_IMAGE, zookeeperCommand } from './docker-image.ts';
import type { DockerKit } from './docker.ts';
import { onlyOptions, type TopologyDef } from './topology.ts';
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

/** The ensemble as containers: every server on its own address with the standard ports; quorum and election links through the proxy. */
async function startZookeeperDocker(kit: DockerKit, o: TopologyOptions): Promise<void> {
  const ports = { client: 2181, quorum: 2888, election: 3888 };
  const ids = Array.from({ length: o.nodes ?? 3 }, (_, i) => `n${i + 1}`);
  await kit.place(ids.map((id) => ({ id, port: ports.client })));
  if (ids.length > 1) {
    await kit.routePeers(ids.map((id) => ({ id, ports: [{ port: ports.quorum }, { port: ports.election, suffix: ':election' }] })), () => true);
  }
  const servers = ids.length > 1 ? ids.map((id) => ({ id, host: kit.ip(id), quorum: ports.quorum, election: ports.election })) : [];
  const cfg = zooCfgLines({ dataDir: '/lockpick/data', clientPort: ports.client, clientPortAddress: '0.0.0.0', servers });
  await Promise.all(ids.map((id) => kit.start({
    id, role: 'zookeeper', image: 'zookeeper', cmd: zookeeperCommand('/lockpick/zoo.cfg'),
    files: { 'zoo.cfg': cfg.join('\n') + '\n', 'data/myid': `${zkMyid(id)}\n` },
    // Ready = serving clients (a leader elected, or standalone); a JVM in a container starts slower.
    ready: async (h, p) => (await zookeeperMode(p, h)) !== undefined, readyMs: 60_000,
  })));
}

/**
 * The ensemble's leader right now, asked of each server with the `srvr` four-letter word over its
 * real port (bypassing the proxy). A leader pause or partition makes the ensemble elect anew while sessions wait.
 */
async function zookeeperLeader(env: Environment) {
  const nodes = env.nodes.filter((n) => n.role === 'zookeeper');
  const modes = await Promise.all(nodes.map((n) => zookeeperMode(n.port, n.host)));
  const i = modes.indexOf('leader');
  return { leader: nodes[i], said: `no ZooKeeper server says 'Mode: leader' (${nodes.map((n, j) => `${n.id} ${modes[j] ?? 'no answer'}`).join(', ') || 'no zookeeper nodes'})` };
}

export const zookeeperTopology: TopologyDef = {
  name: 'zookeeper',
  summary: 'a ZooKeeper ensemble of 1 or 3 servers (--nodes)',
  backend: 'zookeeper',
  packages: ['zookeeper'],
  framing: 'zookeeper',
  words: {
    staleUnlock: (victim) => `a ZooKeeper unlock deletes only the client's own sequential znode, which was already gone, so it cannot have freed process ${victim}'s lock; it should have answered that the lock was lost`,
    lateUnlock: 'its znode was gone with its session by then, so the unlock should have answered that the lock was lost',
    ownEntryOnly: true,
  },
  roles: { data: ['zookeeper'] },
  endpointRoles: [{ role: 'zookeeper' }],
  leased: false,
  expiryClock: 'session',
  leader: { minNodes: 3, find: zookeeperLeader },
  nativeClient: true,
  // Znodes and sessions are in the ensemble's transaction log: a restarted server has them back.
  restartForgets: 'never',
  sessionEndsWithConnection: false,
  asyncFailover: false,
  timescales: { none: "a hold lives in a session the lock times (LockRecipe.sessionMs): no lease to size by" },
  images: { zookeeper: ZOOKEEPER_IMAGE },
  options: ['nodes'],
  validate(o) {
    onlyOptions('zookeeper', o, ['nodes']);
    if (o.nodes !== undefined && o.nodes !== 1 && o.nodes !== 3) throw new UsageError(`zookeeper nodes must be 1 or 3, got ${o.nodes}`);
  },
  start: startZookeeperTopology,
  docker: startZookeeperDocker,
  external: () => [{ role: 'zookeeper', as: 'zookeeper', prefix: 'n', min: 1, max: 9 }],
};
