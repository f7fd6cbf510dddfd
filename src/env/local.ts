// The `local` environment kind: real servers from the OS packages on 127.0.0.1, every link
// through the fault proxy (what it can do: LOCAL_INFO in env-kind-info.ts; its entry: env-kinds.ts).
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { faultProxyClient } from './fault-proxy-client.ts';
import type { Environment, TopologyName, TopologyOptions } from './types.ts';
import { LocalEnvironment } from './environment.ts';
import { LinkTable } from './links.ts';
import { cleanupLeftovers } from './lifecycle.ts';
import { cleanupLeftoverChains } from './peer-routing.ts';
import { startProxyBackend } from './proxy-backend.ts';
import { dataRoles, topologyDef, validateTopology } from './topologies.ts';
import { freePort } from './ports.ts';
import { createRedisNode } from './redis.ts';
import { InconclusiveError } from '../errors.ts';
import { PortTaken } from './node.ts';

/**
 * Brings up `topology` and resolves once every server answers a real request.
 * Call down() when done (it also runs on SIGINT/SIGTERM and at exit).
 * Bad options throw UsageError; any failure to start throws InconclusiveError
 * (no test is possible: exit 3, README "Exit codes") with the reason as cause.
 */
export async function startEnvironment(topology: TopologyName, opts: TopologyOptions = {}): Promise<Environment> {
  validateTopology(topology, opts);
  for (let attempt = 1; ; attempt++) {
    try {
      return await bringUp(topology, opts);
    } catch (e) {
      // A port found free was taken before the server bound it (another process on this machine):
      // the whole environment again, on other ports.
      if (attempt < START_ATTEMPTS && portTaken(e)) continue;
      throw new InconclusiveError(`the ${topology} environment failed to start: ${(e as Error)?.message ?? String(e)}`, { cause: e });
    }
  }
}

/** Tries at bringing an environment up when a port was taken under it. */
const START_ATTEMPTS = 3;

/** A server's start failed because its port was taken (its own words in the log tail, or the proxy's). */
export function portTaken(e: unknown): boolean {
  return e instanceof PortTaken || /address already in use|EADDRINUSE/i.test((e as Error)?.message ?? '');
}

async function bringUp(topology: TopologyName, opts: TopologyOptions): Promise<Environment> {
  cleanupLeftovers();
  await cleanupLeftoverChains((m) => console.error(m));
  const root = mkdtempSync(path.join(os.tmpdir(), 'lockpick-env-'));
  const proxy = await startProxyBackend();
  const env = new LocalEnvironment(topology, root, new LinkTable(faultProxyClient(proxy.url)), proxy, undefined, dataRoles(topology));
  try {
    await topologyDef(topology)!.start(env, opts);
    // The protected resource is a fault-free Redis node whatever the lock service is (a topology may start its own).
    if (opts.resource && !env.nodes.some((n) => n.role === 'resource')) {
      env.nodes.push(await createRedisNode({ id: 'resource', role: 'resource', port: await freePort(), root, persistence: 'none' }));
    }
  } catch (e) {
    await env.down();
    throw e;
  }
  return env;
}
