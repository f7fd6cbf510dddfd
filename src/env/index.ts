// The `local` environment: real servers from the OS packages on 127.0.0.1,
// every link through the fault proxy. startEnvironment() is the entry point.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Toxiproxy } from 'toxiproxy-node-client';
import type { Environment, TopologyName, TopologyOptions } from './types.ts';
import { LocalEnvironment } from './environment.ts';
import { LinkTable } from './links.ts';
import { cleanupLeftovers } from './lifecycle.ts';
import { cleanupLeftoverChains } from './peer-routing.ts';
import { startProxyBackend } from './proxy-backend.ts';
import { startRedisTopology } from './topology-redis.ts';
import { startSentinelTopology } from './topology-sentinel.ts';
import { startZookeeperTopology } from './topology-zookeeper.ts';
import { createMariadbNode } from './mariadb.ts';
import { freePort } from './ports.ts';
import { createRedisNode } from './redis.ts';
import { InconclusiveError, UsageError } from '../errors.ts';

export type { Environment, NodeHandle, Link, Endpoint, TopologyName, TopologyOptions } from './types.ts';
export { cleanupLeftovers, stopEnvUps } from './lifecycle.ts';
export { MissingBinaryError } from './binaries.ts';
export { zookeeperMode, fourLetterWord } from './zookeeper.ts';
export { MARIADB_DATABASE } from './mariadb.ts';
export { SENTINEL_NAME } from './topology-sentinel.ts';

export const TOPOLOGIES: readonly TopologyName[] = ['redis', 'redis-sentinel', 'zookeeper', 'mariadb'];

/** Bad options are the user's to fix (exit 2); throws UsageError naming the option. */
export function validateTopology(topology: TopologyName, o: TopologyOptions): void {
  if (!TOPOLOGIES.includes(topology)) throw new UsageError(`unknown topology '${topology}'; use one of: ${TOPOLOGIES.join(', ')}`);
  if (o.masters !== undefined && (!Number.isInteger(o.masters) || o.masters < 1 || o.masters > 7)) {
    throw new UsageError(`masters must be an integer from 1 to 7, got ${o.masters}`);
  }
  if (o.nodes !== undefined && o.nodes !== 1 && o.nodes !== 3) throw new UsageError(`zookeeper nodes must be 1 or 3, got ${o.nodes}`);
  if (o.persistence !== undefined && o.persistence !== 'none' && o.persistence !== 'aof-always') {
    throw new UsageError(`persistence must be 'none' or 'aof-always', got '${String(o.persistence)}'`);
  }
}

/**
 * Brings up `topology` and resolves once every server answers a real request.
 * Call down() when done (it also runs on SIGINT/SIGTERM and at exit).
 * Bad options throw UsageError; any failure to start throws InconclusiveError
 * (no test is possible: exit 3, README "Exit codes") with the reason as cause.
 */
export async function startEnvironment(topology: TopologyName, opts: TopologyOptions = {}): Promise<Environment> {
  validateTopology(topology, opts);
  return bringUp(topology, opts).catch((e: unknown) => {
    throw new InconclusiveError(`the ${topology} environment failed to start: ${(e as Error)?.message ?? String(e)}`, { cause: e });
  });
}

async function bringUp(topology: TopologyName, opts: TopologyOptions): Promise<Environment> {
  cleanupLeftovers();
  await cleanupLeftoverChains((m) => console.error(m));
  const root = mkdtempSync(path.join(os.tmpdir(), 'lockpick-env-'));
  const proxy = await startProxyBackend();
  const env = new LocalEnvironment(topology, root, new LinkTable(new Toxiproxy(proxy.url)), proxy);
  try {
    switch (topology) {
      case 'redis':
        await startRedisTopology(env, opts);
        break;
      case 'redis-sentinel':
        await startSentinelTopology(env, opts);
        break;
      case 'zookeeper':
        await startZookeeperTopology(env, opts);
        break;
      case 'mariadb':
        env.nodes.push(await createMariadbNode({ id: 'n1', root, port: await freePort() }));
        break;
    }
    // The protected resource is a fault-free Redis node whatever the lock service is.
    if (opts.resource && !env.nodes.some((n) => n.role === 'resource') && (topology === 'zookeeper' || topology === 'mariadb')) {
      env.nodes.push(await createRedisNode({ id: 'resource', role: 'resource', port: await freePort(), root, persistence: 'none' }));
    }
  } catch (e) {
    await env.down();
    throw e;
  }
  return env;
}
