// redis-server and redis-sentinel nodes: config files, start, PING readiness.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
// The client library loads on use: `lockpick check` reaches this module through the topology registry.
import type { Endpoint, NodeRole } from './types.ts';
import { requireBinary } from './binaries.ts';
import { shimEnv } from './clock.ts';
import { ServerNode, type Launcher, type Persistence } from './node.ts';
import { startAndWait } from './wait.ts';
import { chownTree } from './peer-routing.ts';

/** A real PING over a fresh connection; true on PONG (false while loading). */
export async function redisPing(port: number, host = '127.0.0.1'): Promise<boolean> {
  const { Redis } = await import('ioredis');
  const r = new Redis({
    host,
    port,
    lazyConnect: true,
    connectTimeout: 500,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  r.on('error', () => {});
  try {
    await r.connect();
    return (await r.ping()) === 'PONG';
  } finally {
    r.disconnect();
  }
}

function persistenceConf(p: Persistence): string[] {
  // No RDB snapshots either way: 'none' must lose everything on a crash.
  return p === 'aof-always' ? ['save ""', 'appendonly yes', 'appendfsync always'] : ['save ""', 'appendonly no'];
}

function baseConf(port: number, dir: string): string[] {
  return [
    `port ${port}`,
    'bind 127.0.0.1',
    'protected-mode no',
    `dir ${dir}`,
    'daemonize no',
    'logfile ""',
    // The node dir in the process title too, so leftovers are recognised.
    'proc-title-template "{title} {listen-addr} {server-mode} {config-file}"',
  ];
}

/** The node's private dir and files; a launcher that runs `bin conf` under the clock shim until PING answers. */
function redisFamilyNode(bin: string, id: string, role: NodeRole, port: number, root: string, kind: 'redis' | 'sentinel', uid?: number) {
  const dir = path.join(root, id);
  mkdirSync(dir, { mode: 0o700 });
  const conf = path.join(dir, `${kind}.conf`);
  const logFile = path.join(dir, `${kind}.log`);
  const clockFile = path.join(dir, 'clock-offset');
  const spawnIt = () => {
    if (uid !== undefined) chownTree(dir, uid);
    return startAndWait(
      { name: `${path.basename(bin)} ${id} (127.0.0.1:${port})`, command: bin, args: [conf], cwd: dir, env: shimEnv(clockFile), logFile, uid },
      { dir },
      () => redisPing(port),
      10_000,
    );
  };
  const make = (launch: Launcher) => new ServerNode(id, role, port, dir, logFile, clockFile, launch);
  return { dir, conf, spawnIt, make };
}

/** The port a Redis server listens on inside its container (each container has its own address). */
export const REDIS_CONTAINER_PORT = 6379;
export const SENTINEL_CONTAINER_PORT = 26379;

/** redis-server's command line in a container: on every address of its own namespace, nothing persisted (a restart starts empty). */
export function redisContainerCmd(extra: string[] = []): string[] {
  return ['redis-server', '--port', String(REDIS_CONTAINER_PORT), '--bind', '0.0.0.0', '--protected-mode', 'no', '--save', '', '--appendonly', 'no',
    '--repl-diskless-sync-delay', '0', ...extra];
}

export interface RedisNodeOptions {
  id: string;
  role: NodeRole;
  port: number;
  root: string;                    // the environment's private dir
  persistence: Persistence;
  /** Replicas: the primary's address (a proxy link) and how others should see this node. */
  replicaOf?: Endpoint;
  announce?: Endpoint;
  uid?: number;                    // see peer-routing.ts
}

export async function createRedisNode(o: RedisNodeOptions): Promise<ServerNode> {
  const f = redisFamilyNode(requireBinary('redis-server'), o.id, o.role, o.port, o.root, 'redis', o.uid);
  let current = o.persistence;
  const node = f.make(async ({ persistence }) => {
    const p = persistence ?? current;
    if (p === 'none') {
      // A restart without persistence starts empty even if a replica sync left an RDB behind.
      rmSync(path.join(f.dir, 'dump.rdb'), { force: true });
      rmSync(path.join(f.dir, 'appendonlydir'), { recursive: true, force: true });
    }
    current = p;
    const lines = [...baseConf(o.port, f.dir), ...persistenceConf(p), 'repl-diskless-sync-delay 0'];
    if (o.replicaOf) lines.push(`replicaof ${o.replicaOf.host} ${o.replicaOf.port}`);
    if (o.announce) lines.push(`replica-announce-ip ${o.announce.host}`, `replica-announce-port ${o.announce.port}`);
    writeFileSync(f.conf, lines.join('\n') + '\n', { mode: 0o600 });
    return f.spawnIt();
  });
  await node.start();
  return node;
}

export interface SentinelOptions {
  id: string;
  port: number;
  root: string;
  masterName: string;
  master: Endpoint;                // how this sentinel reaches the primary (a proxy link)
  quorum: number;
  announce?: Endpoint;             // how other sentinels reach this one
  uid?: number;
}

/** Sentinel's timing here: a primary silent this long is down; a failover attempt times out after this. Plans derive their timescale from them. */
export const SENTINEL_DOWN_AFTER_MS = 1000;
export const SENTINEL_FAILOVER_TIMEOUT_MS = 3000;
/**
 * A promotion takes down-after (the primary is subjectively down), an agreement and a leader
 * election, then the promotion and reconfiguration; planned as twice down-after plus the
 * failover timeout (measured with 1000/3000 ms: 1.9–6.6 s against 8 s planned).
 */
export const promotionWithin = (downAfterMs: number, failoverTimeoutMs: number) => 2 * (downAfterMs + failoverTimeoutMs);

/** The `sentinel ...` lines of a Sentinel's config: what it monitors, its timing, how others see it. */
export function sentinelLines(o: Pick<SentinelOptions, 'masterName' | 'master' | 'quorum' | 'announce'>): string[] {
  const m = o.masterName;
  const lines = [
    `sentinel monitor ${m} ${o.master.host} ${o.master.port} ${o.quorum}`,
    `sentinel down-after-milliseconds ${m} ${SENTINEL_DOWN_AFTER_MS}`,
    `sentinel failover-timeout ${m} ${SENTINEL_FAILOVER_TIMEOUT_MS}`,
    `sentinel parallel-syncs ${m} 1`,
  ];
  if (o.announce) lines.push(`sentinel announce-ip ${o.announce.host}`, `sentinel announce-port ${o.announce.port}`);
  return lines;
}

export async function createSentinelNode(o: SentinelOptions): Promise<ServerNode> {
  const f = redisFamilyNode(requireBinary('redis-sentinel'), o.id, 'sentinel', o.port, o.root, 'sentinel', o.uid);
  const lines = [...baseConf(o.port, f.dir), ...sentinelLines(o)];
  // Sentinel rewrites its config (state, epochs): written once, kept across restarts.
  writeFileSync(f.conf, lines.join('\n') + '\n', { mode: 0o600 });
  const node = f.make(() => f.spawnIt());
  await node.start();
  return node;
}
