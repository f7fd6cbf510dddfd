// Who is the Redis primary right now: asked of the servers themselves over
// their real ports (bypassing the fault proxy), with ioredis.
// ioredis loads on the first question (ARCHITECTURE: client libraries load lazily).
import type { Redis } from 'ioredis';
import type { Environment, NodeHandle } from '../src/env/types.ts';
import { backendDataRoles, topologyDef } from '../src/env/topologies.ts';
import { declared } from '../src/env/topology.ts';

const ASK_TIMEOUT_MS = 700;

/** Asks a node over its own address (127.0.0.1, or an external server's host), not through the proxy. */
async function ask<T>(node: Pick<NodeHandle, 'host' | 'port'>, f: (r: Redis) => Promise<T>): Promise<T | undefined> {
  const { Redis } = await import('ioredis');
  const r = new Redis({ host: node.host ?? '127.0.0.1', port: node.port, lazyConnect: true, connectTimeout: ASK_TIMEOUT_MS, commandTimeout: ASK_TIMEOUT_MS, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false });
  r.on('error', () => {});
  try {
    await r.connect();
    return await f(r);
  } catch {
    return undefined; // paused, killed or partitioned: no answer
  } finally {
    r.disconnect();
  }
}

/** The nodes that speak Redis: the data roles of every topology whose backend is 'redis' (redis, redis-replica). */
export function redisDataNodes(env: Environment): NodeHandle[] {
  const roles = backendDataRoles('redis');
  return env.nodes.filter((n) => roles.includes(n.role));
}

/** 'master' | 'slave' | undefined (no answer), from ROLE. */
export async function redisRole(node: NodeHandle): Promise<string | undefined> {
  const role = await ask(node, (r) => r.call('ROLE') as Promise<unknown[]>);
  return Array.isArray(role) ? String(role[0]) : undefined;
}

/** The node that says it is master and has the most connected replicas (the Sentinel-chosen one during a split brain). */
export async function currentPrimary(env: Environment): Promise<NodeHandle> {
  const nodes = redisDataNodes(env);
  const answers = await Promise.all(nodes.map((n) => ask(n, (r) => r.call('ROLE') as Promise<unknown[]>)));
  let best: { node: NodeHandle; replicas: number } | undefined;
  answers.forEach((a, i) => {
    if (!Array.isArray(a) || a[0] !== 'master') return;
    const replicas = Array.isArray(a[2]) ? a[2].length : 0;
    if (!best || replicas > best.replicas) best = { node: nodes[i]!, replicas };
  });
  if (!best) throw new Error(`nemesis: no Redis node answers ROLE with 'master' (nodes: ${nodes.map((n) => n.id).join(', ')}); is this a redis-sentinel topology and is the primary up?`);
  return best.node;
}

/** The replicas of `primary`: every other Redis data node. */
export function replicasOf(env: Environment, primary: NodeHandle): NodeHandle[] {
  return redisDataNodes(env).filter((n) => n.id !== primary.id);
}

/**
 * The node the Sentinels name as primary (majority answer), or undefined.
 * Sentinels report the address they reach it by: a node's real port or a
 * proxied link's listen port; both are mapped back to the node id.
 */
export async function sentinelPrimary(env: Environment): Promise<string | undefined> {
  const name = env.sentinelName;
  if (!name) throw new Error('nemesis: this environment has no Sentinel (env.sentinelName is unset); failover needs the redis-sentinel topology');
  const sentinels = env.nodes.filter((n) => n.role === 'sentinel');
  const answers = await Promise.all(sentinels.map((s) => ask(s, (r) => r.call('SENTINEL', 'get-master-addr-by-name', name) as Promise<unknown>)));
  const votes = new Map<string, number>();
  for (const a of answers) {
    if (!Array.isArray(a) || a.length < 2) continue;
    const [host, port] = [String(a[0]), Number(a[1])];
    // By the address Sentinel knows: a container's own address, a node's real port, or a proxied link's listen port.
    const id = env.nodes.find((n) => (n.announced ? n.announced.host === host && n.announced.port === port : n.port === port))?.id
      ?? env.links.find((l) => l.listen.port === port)?.to;
    if (id) votes.set(id, (votes.get(id) ?? 0) + 1);
  }
  let top: string | undefined;
  for (const [id, v] of votes) if (top === undefined || v > votes.get(top)!) top = id;
  return top;
}

/**
 * The topology's leader right now, as its TopologyDef finds it from the servers' own status
 * (ZooKeeper: `srvr` over each server's real port). A leader pause or partition is what makes
 * the ensemble elect anew while sessions wait.
 */
export async function currentLeader(env: Environment): Promise<NodeHandle> {
  const def = declared(topologyDef(env.topology)?.leader);
  if (!def) throw new Error(`nemesis: the ${env.topology} topology has no leader to aim at ('leader' and 'followers' need one, e.g. a zookeeper ensemble of 3)`);
  const { leader, said } = await def.find(env);
  if (!leader) throw new Error(`nemesis: ${said}; 'leader' needs ${def.minNodes} or more servers with a leader elected`);
  return leader;
}
