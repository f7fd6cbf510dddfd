// `redis-sentinel`: primary n1, replicas n2 n3, sentinels s1 s2 s3 (quorum 2,
// down-after 1000 ms, failover-timeout 3000 ms). Every node→node link
// (replication, sentinel→server, sentinel→sentinel) goes through the proxy.
// The client library loads on use: `lockpick check` reads this registry for its words alone.
import type { Redis } from 'ioredis';
import type { TopologyOptions } from './types.ts';
import type { LocalEnvironment } from './environment.ts';
import { createRedisNode, createSentinelNode, promotionWithin, redisContainerCmd, redisPing, REDIS_CONTAINER_PORT, SENTINEL_CONTAINER_PORT, sentinelLines } from './redis.ts';
import type { DockerKit } from './docker.ts';
import { freePort } from './ports.ts';
import { settleAll } from './settle.ts';
import { routePeers } from './topology-peers.ts';
import { waitReady } from './wait.ts';
import { onlyOptions, type Timescales, type TopologyDef } from './topology.ts';
import type { Environment } from './types.ts';

export const SENTINEL_NAME = 'lockpick';
const DATA = ['n1', 'n2', 'n3'];
const SENTINELS = ['s1', 's2', 's3'];

async function query<T>(port: number, f: (r: Redis) => Promise<T>, host = '127.0.0.1'): Promise<T> {
  const { Redis: RedisClient } = await import('ioredis');
  const r = new RedisClient({ host, port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 500 });
  r.on('error', () => {});
  try {
    await r.connect();
    return await f(r);
  } finally {
    r.disconnect();
  }
}

/** Ready = every sentinel sees the primary, both replicas and the two other sentinels. */
async function sentinelSeesAll(port: number, host?: string): Promise<boolean> {
  return query(port, async (r) => {
    const replicas = (await r.call('SENTINEL', 'REPLICAS', SENTINEL_NAME)) as unknown[];
    const others = (await r.call('SENTINEL', 'SENTINELS', SENTINEL_NAME)) as unknown[];
    return replicas.length === 2 && others.length === 2;
  }, host);
}

async function replicaLinkUp(port: number, host?: string): Promise<boolean> {
  return query(port, async (r) => /master_link_status:up/.test(await r.info('replication')), host);
}

/** The same ensemble as containers: each node at its own address, Sentinel and replicas by those addresses. */
async function startSentinelDocker(kit: DockerKit): Promise<void> {
  const portOf = (id: string) => (DATA.includes(id) ? REDIS_CONTAINER_PORT : SENTINEL_CONTAINER_PORT);
  const all = [...DATA, ...SENTINELS];
  await kit.place(all.map((id) => ({ id, port: portOf(id) })));
  await kit.routePeers(all.map((id) => ({ id, ports: [{ port: portOf(id) }] })), (a, b) => (DATA.includes(a) ? DATA.includes(b) : true));
  const ready = (h: string, p: number) => redisPing(p, h);
  const primary = { id: 'n1', host: kit.ip('n1'), port: REDIS_CONTAINER_PORT };
  const data = (id: string) => kit.start({
    id, role: id === primary.id ? 'redis' : 'redis-replica', image: 'redis', ready,
    // Announce the node's own address: replicas reach the primary through a proxy, which it would report otherwise.
    cmd: redisContainerCmd(['--replica-announce-ip', kit.ip(id), ...(id === primary.id ? [] : ['--replicaof', primary.host, String(primary.port)])]),
  });
  await data(primary.id);
  const replicas = await Promise.all(['n2', 'n3'].map(data));
  for (const n of replicas) await waitReady(`replica ${n.id} syncing from n1`, () => replicaLinkUp(n.port, n.host), { timeoutMs: 15_000 });
  const sentinels = await Promise.all(SENTINELS.map((id) => kit.start({
    id, role: 'sentinel', image: 'redis', ready,
    cmd: ['redis-server', '/lockpick/sentinel.conf', '--sentinel'],
    // Sentinel rewrites its config (state, epochs): a file in the node's dir.
    files: { 'sentinel.conf': [`port ${SENTINEL_CONTAINER_PORT}`, 'bind 0.0.0.0', 'protected-mode no', 'dir /lockpick',
      ...sentinelLines({ masterName: SENTINEL_NAME, master: primary, quorum: 2, announce: { id, host: kit.ip(id), port: SENTINEL_CONTAINER_PORT } })].join('\n') + '\n' },
  })));
  kit.env.sentinelName = SENTINEL_NAME;
  for (const s of sentinels) {
    await waitReady(`sentinel ${s.id} discovering replicas and sentinels`, () => sentinelSeesAll(s.port, s.host), { timeoutMs: 20_000, intervalMs: 50 });
  }
}

export async function startSentinelTopology(env: LocalEnvironment, o: TopologyOptions): Promise<void> {
  const persistence = o.persistence ?? 'none';
  const ports = new Map<string, number>();
  for (const id of [...DATA, ...SENTINELS, 'resource']) ports.set(id, await freePort());
  const isData = (id: string) => DATA.includes(id);
  // Who dials whom: replicas the primary (any data node may be primary after a failover),
  // sentinels every server and each other; servers never dial sentinels.
  const uids = await routePeers(
    env,
    [...DATA, ...SENTINELS].map((id) => ({ id, ports: [{ port: ports.get(id)! }] })),
    (a, b) => (isData(a) ? isData(b) : true),
  );
  const primary = { id: 'n1', host: '127.0.0.1', port: ports.get('n1')! };
  env.nodes.push(await createRedisNode({ id: 'n1', role: 'redis', port: primary.port, root: env.root, persistence, uid: uids.get('n1') }));
  const starts = ['n2', 'n3'].map((id) =>
    createRedisNode({ id, role: 'redis-replica', port: ports.get(id)!, root: env.root, persistence, replicaOf: primary, uid: uids.get(id) }),
  );
  if (o.resource) starts.push(createRedisNode({ id: 'resource', role: 'resource', port: ports.get('resource')!, root: env.root, persistence: 'none' }));
  await settleAll(starts, (n) => env.nodes.push(n));
  for (const id of ['n2', 'n3']) {
    await waitReady(`replica ${id} syncing from n1`, () => replicaLinkUp(ports.get(id)!), { timeoutMs: 10_000 });
  }
  await settleAll(
    SENTINELS.map((id) =>
      createSentinelNode({ id, port: ports.get(id)!, root: env.root, masterName: SENTINEL_NAME, master: primary, quorum: 2, uid: uids.get(id) }),
    ),
    (n) => env.nodes.push(n),
  );
  env.sentinelName = SENTINEL_NAME;
  for (const id of SENTINELS) {
    await waitReady(`sentinel ${id} discovering replicas and sentinels`, () => sentinelSeesAll(ports.get(id)!), { timeoutMs: 15_000, intervalMs: 50 });
  }
}

/** Sentinel's own settings for the monitored primary, from the first Sentinel that answers. */
async function sentinelTimescales(env: Environment): Promise<Timescales> {
  const name = env.sentinelName ?? SENTINEL_NAME;
  for (const s of env.nodes.filter((n) => n.role === 'sentinel')) {
    try {
      const fields = (await query(s.port, (r) => r.call('SENTINEL', 'MASTER', name), s.host)) as string[];
      const get = (k: string) => Number(fields[fields.indexOf(k) + 1]);
      const downAfter = get('down-after-milliseconds');
      const timeout = get('failover-timeout');
      if (!(downAfter > 0 && timeout > 0)) continue;
      const promotionMs = promotionWithin(downAfter, timeout);
      return { promotionMs, said: [`Sentinel ${s.id}: down-after-milliseconds ${downAfter}, failover-timeout ${timeout} (a promotion planned within ${(promotionMs / 1000).toFixed(1)} s)`] };
    } catch { /* the next Sentinel */ }
  }
  return { said: [`no Sentinel answered SENTINEL MASTER ${name}: failover plans assume its defaults here`] };
}

export const sentinelTopology: TopologyDef = {
  name: 'redis-sentinel',
  summary: 'a Redis primary, 2 replicas and 3 Sentinels (quorum 2)',
  backend: 'redis',
  packages: ['redis-server', 'redis-sentinel'],
  framing: 'resp',
  roles: { data: ['redis', 'redis-replica'], other: ['sentinel'] },
  endpointRoles: [{ role: 'redis' }, { role: 'sentinel' }],
  leased: true,
  restartForgets: 'without-persistence',
  expiryClock: 'wall',
  sessionEndsWithConnection: false,
  asyncFailover: true,
  leader: { none: "the Sentinels choose the primary; faults aim at it as 'primary'" },
  nativeClient: false,
  validate: (o) => onlyOptions('redis-sentinel', o, ['persistence']),
  start: startSentinelTopology,
  options: ['persistence'],
  docker: startSentinelDocker,
  // An external one: its servers as the Sentinels announce them, the Sentinels, and master=NAME.
  external: () => [{ role: 'redis', as: 'redis', prefix: 'n', min: 1, max: 9 }, { role: 'sentinel', as: 'sentinel', prefix: 's', min: 1, max: 9 }],
  // Sentinel names primaries by their real address: map each to this client's proxied endpoint of that node.
  clientExtras: async (env, clientId, endpoints) => {
    const addressMap: Record<string, { host: string; port: number }> = {};
    for (const ep of endpoints) {
      const n = env.node(ep.id);
      const known = n.announced ?? { host: n.host ?? '127.0.0.1', port: n.port };
      addressMap[`${known.host}:${known.port}`] = { host: ep.host, port: ep.port };
    }
    return { roles: { sentinel: (await env.sentinelEndpoints?.(clientId)) ?? [] }, settings: { masterName: env.sentinelName ?? SENTINEL_NAME }, addressMap };
  },
  timescales: sentinelTimescales,
};
