// Starts the `docker` environment kind (env-kinds.ts loads it on first use): the
// topology's own containers through the DockerKit (docker.ts), the fault proxy, a
// private network, and the resource node.
import os from 'node:os';
import path from 'node:path';
import { mkdtempSync } from 'node:fs';
import { faultProxyClient } from './fault-proxy-client.ts';
import type { ContainerRuntimeClient } from 'testcontainers';
import type { Environment, TopologyName, TopologyOptions } from './types.ts';
import { LocalEnvironment } from './environment.ts';
import { DOCKER_INFO, type DockerEnvSpec } from './docker-kind.ts';
import { cleanupDockerLeftovers, gone, localEngine, ownerLabels, runtimeClient, track, untrack } from './docker-engine.ts';
import { DockerKit } from './docker.ts';
import { LinkTable } from './links.ts';
import { cleanupLeftovers } from './lifecycle.ts';
import { startProxyBackend } from './proxy-backend.ts';
import { redisContainerCmd, redisPing, REDIS_CONTAINER_PORT } from './redis.ts';
import { dataRoles, imageRecipe, topologyDef } from './topologies.ts';
import { InconclusiveError, UsageError } from '../errors.ts';

/** The private network of one environment (its gateway is where node-link proxies listen). */
async function createNetwork(client: ContainerRuntimeClient, envId: string): Promise<{ id: string; name: string; gateway: string; remove(): Promise<void> }> {
  const d = client.container.dockerode;
  const name = `lockpick-${envId}`;
  const net = await d.createNetwork({ Name: name, Driver: 'bridge', CheckDuplicate: true, Labels: ownerLabels(envId) });
  track('networks', net.id);
  const info = (await net.inspect()) as { IPAM?: { Config?: { Gateway?: string }[] } };
  const gateway = info.IPAM?.Config?.[0]?.Gateway;
  const remove = async () => {
    await net.remove().catch((e: unknown) => { if (!gone(e)) throw e; });
    untrack('networks', net.id);
  };
  if (!gateway) {
    await remove();
    throw new Error(`lockpick: the Docker network ${name} has no gateway address`);
  }
  return { id: net.id, name, gateway, remove };
}

export async function startDockerEnvironment(topology: TopologyName, o: TopologyOptions, spec: DockerEnvSpec): Promise<Environment> {
  const def = topologyDef(topology);
  if (!def?.docker) throw new UsageError(`--env docker does not run the ${topology} topology yet; use --env local`);
  def.validate?.(o);
  if (o.persistence !== undefined && o.persistence !== 'none') throw new UsageError(`--env docker: persistence '${o.persistence}' is not built (containers restart empty); use --env local`);
  const local = localEngine();
  if (!local && def.name !== 'redis') throw new UsageError(`--env docker with a remote engine (DOCKER_HOST=${process.env.DOCKER_HOST}) runs the redis topology only (the others need their config files bind-mounted); use a local engine`);
  const client = await runtimeClient();
  cleanupLeftovers();
  const root = mkdtempSync(path.join(os.tmpdir(), 'lockpick-env-'));
  const envId = path.basename(root).replace(/^lockpick-env-/, '');
  let env: LocalEnvironment | undefined;
  try {
    await cleanupDockerLeftovers(client);
    const proxy = await startProxyBackend();
    env = new LocalEnvironment(topology, root, new LinkTable(faultProxyClient(proxy.url)), proxy, DOCKER_INFO, dataRoles(topology));
    const net = await createNetwork(client, envId);
    const kit = new DockerKit(env, client, net, envId, { ...spec.images }, local, imageRecipe);
    // After the server containers (the nodes): their holders, then the network.
    env.afterNodes.push(() => kit.removeHolders(), () => net.remove());
    await def.docker(kit, o);
    if (o.resource) {
      await kit.place([{ id: 'resource', port: REDIS_CONTAINER_PORT }]);
      await kit.start({ id: 'resource', role: 'resource', image: 'redis', cmd: redisContainerCmd(), ready: (h, p) => redisPing(p, h) });
    }
    return env;
  } catch (e) {
    await env?.down();
    if (e instanceof UsageError) throw e;
    throw new InconclusiveError(`the docker ${topology} environment failed to start: ${(e as Error)?.message ?? String(e)}`, { cause: e });
  }
}
