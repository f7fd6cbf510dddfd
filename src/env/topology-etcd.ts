// `etcd`: a cluster of 1 or 3 members (--members); peer links (n1->n2, ...) go through the proxy.
import type { Environment } from './types.ts';
import { freePort } from './ports.ts';
import { settleAll } from './settle.ts';
import { routePeers } from './topology-peers.ts';
import { createEtcdNode, etcdArgs, etcdHealthy, etcdLeaseMinMs, etcdStatus, etcdTiming, type EtcdPorts, type EtcdTiming } from './etcd.ts';
import { requireBinary } from './binaries.ts';
import type { DockerKit } from './docker.ts';
import type { ImageRecipe } from './docker-image.ts';
import { onlyOptions, type Timescales, type TopologyDef } from './topology.ts';
import { UsageError } from '../errors.ts';

/** How long the nemesis waits out an election in progress (a member that rejoins after a cut can force one) before it says there is no leader: at least this, or 4 election timeouts as the members said at start. */
const ELECTION_WAIT_MS = 3000;
/** The raft timing each environment's members said at start (timescales), for the leader's wait. */
const timingOf = new WeakMap<Environment, EtcdTiming>();

/** The member that says it is the leader (each member's own status over its real port), waiting out an election. */
async function etcdLeader(env: Environment) {
  const nodes = env.nodes.filter((n) => n.role === 'etcd');
  const deadline = Date.now() + Math.max(ELECTION_WAIT_MS, 4 * (timingOf.get(env)?.electionMs ?? 0));
  for (;;) {
    const status = await Promise.all(nodes.map((n) => etcdStatus(n.port, n.host)));
    const i = status.findIndex((s) => s !== undefined && s.member === s.leader);
    if (i >= 0 || Date.now() > deadline) {
      return { leader: nodes[i], said: `no etcd member says it is the leader (${nodes.map((n, j) => `${n.id} ${!status[j] ? 'no answer' : status[j]!.leader ? `leader ${status[j]!.leader}` : 'no leader'}`).join(', ')})` };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** --env docker: Debian's etcd binary (static but for libc) in an image of its own. */
const ETCD_IMAGE: ImageRecipe = {
  source: () => [requireBinary('etcd')],
  fill(fs) { fs.linked(requireBinary('etcd'), '/usr/bin/etcd'); },
  dockerfile: () => ['ENV PATH=/usr/bin:/bin', 'WORKDIR /lockpick', 'CMD ["etcd"]'],
};

/** The etcd ports inside each container (every member has an address of its own). */
const IN_CONTAINER: EtcdPorts = { client: 2379, peer: 2380 };

/** The members as containers, peer links through the proxy (a nat rule in each member's namespace); data in the node's dir. */
async function startEtcdDocker(kit: DockerKit, o: { members?: unknown }): Promise<void> {
  const ids = Array.from({ length: Number(o.members ?? 3) }, (_, i) => `n${i + 1}`);
  await kit.place(ids.map((id) => ({ id, port: IN_CONTAINER.client })));
  if (ids.length > 1) await kit.routePeers(ids.map((id) => ({ id, ports: [{ port: IN_CONTAINER.peer }] })), () => true);
  // Members start together: each waits for a quorum before it is healthy.
  await Promise.all(ids.map((id) => kit.start({
    id, role: 'etcd', image: 'etcd',
    cmd: ['etcd', ...etcdArgs({ id, dataDir: '/lockpick/data', listen: '0.0.0.0', host: (m) => kit.ip(m), ports: () => IN_CONTAINER, cluster: ids, token: `lockpick-${kit.ip('n1')}` })],
    ready: (h, p) => etcdHealthy(p, h).catch(() => false),
  })));
}

export const etcdTopology: TopologyDef = {
  name: 'etcd',
  summary: 'an etcd cluster of 1 or 3 members (--members); leases and the lock recipes of its clients',
  backend: 'etcd',
  packages: ['etcd-server'],
  framing: 'http2',
  words: { staleUnlock: (victim) => `the unlock deleted the lock key (or revoked a lease) that by then was process ${victim}'s` },
  roles: { data: ['etcd'] },
  endpointRoles: [{ role: 'etcd' }],
  leased: true,
  // The lessor times leases by Go's monotonic clock, which a Go binary reads without libc: the clock shim cannot move it.
  expiryClock: 'unshimmable',
  // Keys and leases are in the raft log on disk: a restarted member has them back.
  restartForgets: 'never',
  sessionEndsWithConnection: false,
  asyncFailover: false,
  nativeClient: false,
  leader: { minNodes: 3, find: etcdLeader },
  options: ['members'],
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
  images: { etcd: ETCD_IMAGE },
  docker: startEtcdDocker,
  external: () => [{ role: 'etcd', as: 'etcd', prefix: 'n', min: 1, max: 9 }],
  timescales: etcdTimescales,
};

/**
 * Read from the members themselves: each one's heartbeat and election timeout (its command
 * line; the slowest member's counts), and the shortest lease the cluster grants (a lease of 1 s
 * asked for). A failover is planned within two election timeouts (a follower's randomized
 * timeout is up to twice the setting) and a few heartbeats.
 */
/**
 * etcd's lessor revokes the leases that ran out in a loop that sleeps 500 ms between looks
 * (server/lease/lessor.go, runLoop; the same in 3.4 and 3.5), then through a raft proposal: a
 * lease may stand that long past its TTL. A constant of etcd's code, not a setting it reports.
 */
const ETCD_LEASE_LAG_MS = 500;

async function etcdTimescales(env: Environment): Promise<Timescales> {
  const nodes = env.nodes.filter((n) => n.role === 'etcd');
  const timings = (await Promise.all(nodes.map((n) => etcdTiming(n.port, n.host)))).filter((t): t is EtcdTiming => t !== undefined);
  let leaseMinMs: number | undefined;
  for (const n of nodes) if ((leaseMinMs = await etcdLeaseMinMs(n.port, n.host)) !== undefined) break;
  const said: string[] = [];
  let promotionMs: number | undefined;
  if (timings.length) {
    const t: EtcdTiming = {
      heartbeatMs: Math.max(...timings.map((x) => x.heartbeatMs)), electionMs: Math.max(...timings.map((x) => x.electionMs)),
      from: timings.some((x) => x.from === 'defaults') ? 'defaults' : 'flags',
    };
    timingOf.set(env, t);
    promotionMs = 2 * t.electionMs + 4 * t.heartbeatMs;
    said.push(`etcd members (${timings.length} of ${nodes.length} answered /debug/vars): heartbeat ${t.heartbeatMs} ms, election timeout ${t.electionMs} ms${t.from === 'defaults' ? " (etcd's defaults where a member's command line sets none; an ETCD_* variable or a config file could set others)" : ''}; a new leader planned within ${(promotionMs / 1000).toFixed(1)} s`);
  } else said.push(`no etcd member answered /debug/vars: its heartbeat and election timeout are unknown here`);
  said.push(leaseMinMs !== undefined ? `etcd grants a lease asked for 1 s as ${leaseMinMs / 1000} s (its shortest)` : 'no etcd member granted a probe lease: the shortest lease is unknown here');
  said.push(`etcd revokes a lease up to ${ETCD_LEASE_LAG_MS} ms after it ran out (its lessor looks for lapsed leases every ${ETCD_LEASE_LAG_MS} ms): faults meant to outlast a lease last that much longer`);
  return { said, leaseLagMs: ETCD_LEASE_LAG_MS, ...(promotionMs !== undefined ? { promotionMs } : {}), ...(leaseMinMs !== undefined ? { leaseMinMs } : {}) };
}
