// `etcd`: a cluster of 1 or 3 members (--members); peer links (n1->n2, ...) go through the proxy.
import type { Environment } from './types.ts';
import { freePort } from './ports.ts';
import { settleAll } from './settle.ts';
import { routePeers } from './topology-peers.ts';
import { createEtcdNode, etcdStatus, ETCD_ELECTION_MS, ETCD_HEARTBEAT_MS, type EtcdPorts } from './etcd.ts';
import { onlyOptions, type TopologyDef } from './topology.ts';
import { UsageError } from '../errors.ts';

/** How long the nemesis waits out an election in progress (a member that rejoins after a cut can force one) before it says there is no leader. */
const ELECTION_WAIT_MS = 3000;

/** The member that says it is the leader (each member's own status over its real port), waiting out an election. */
async function etcdLeader(env: Environment) {
  const nodes = env.nodes.filter((n) => n.role === 'etcd');
  const deadline = Date.now() + ELECTION_WAIT_MS;
  for (;;) {
    const status = await Promise.all(nodes.map((n) => etcdStatus(n.port, n.host)));
    const i = status.findIndex((s) => s !== undefined && s.member === s.leader);
    if (i >= 0 || Date.now() > deadline) {
      return { leader: nodes[i], said: `no etcd member says it is the leader (${nodes.map((n, j) => `${n.id} ${!status[j] ? 'no answer' : status[j]!.leader ? `leader ${status[j]!.leader}` : 'no leader'}`).join(', ')})` };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

export const etcdTopology: TopologyDef = {
  name: 'etcd',
  summary: 'an etcd cluster of 1 or 3 members (--members); leases and the lock recipes of its clients',
  backend: 'etcd',
  words: { staleUnlock: (victim) => `the unlock deleted the lock key (or revoked a lease) that by then was process ${victim}'s` },
  roles: { data: ['etcd'] },
  endpointRoles: [{ role: 'etcd' }],
  leased: true,
  leader: { minNodes: 3, find: etcdLeader },
  validate(o) {
    onlyOptions('etcd', o, ['members']);
    if (o.members !== undefined && o.members !== 1 && o.members !== 3) throw new UsageError(`etcd members must be 1 or 3, got ${String(o.members)}`);
  },
  start: async (env, o) => {
    const members: { id: string; ports: EtcdPorts }[] = [];
    for (let i = 1; i <= Number(o.members ?? 3); i++) members.push({ id: `n${i}`, ports: { client: await freePort(), peer: await freePort() } });
    const uids = members.length > 1 ? await routePeers(env, members.map((m) => ({ id: m.id, ports: [{ port: m.ports.peer }] })), () => true) : new Map<string, number>();
    const nodes = members.map((m) => createEtcdNode({ id: m.id, root: env.root, ports: m.ports, cluster: members, uid: uids.get(m.id) }));
    // Members start together: each waits for a quorum before it is healthy.
    await settleAll(nodes.map(async (n) => { await n.start(); return n; }), (n) => env.nodes.push(n));
  },
  external: () => [{ role: 'etcd', as: 'etcd', prefix: 'n', min: 1, max: 9 }],
  timescales: async () => ({ said: [`etcd members started with heartbeat ${ETCD_HEARTBEAT_MS} ms, election timeout ${ETCD_ELECTION_MS} ms (a lease may be as short as 1 s)`] }),
};
