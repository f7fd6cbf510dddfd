// The Docker engine lockpick talks to (testcontainers' runtime client, which
// honours DOCKER_HOST) and the bookkeeping that keeps it clean: every container
// and network carries the label lockpick=1 and its owner's pid + start time;
// down() removes them, a synchronous exit hook is the last resort, and after a
// kill -9 the next invocation removes what a dead owner left.
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import type { ContainerRuntimeClient } from 'testcontainers';
import { isAlive, startTime } from './procfs.ts';
import { InconclusiveError } from '../errors.ts';
import { importOptional } from '../optional.ts';

// Ryuk (testcontainers' reaper) is an image from Docker Hub; lockpick reaps its own containers.
process.env.TESTCONTAINERS_RYUK_DISABLED ??= 'true';

/** No DOCKER_HOST, or a unix socket: the engine runs on this machine (its container namespaces and bind mounts are ours). */
export function isLocalEngine(env: NodeJS.ProcessEnv = process.env): boolean {
  const h = env.DOCKER_HOST;
  return !h || h.startsWith('unix://');
}
export { isLocalEngine as localEngine };

// testcontainers, finding /.dockerenv, would reach a local engine's ports at the bridge gateway, where loopback-published ports are not.
if (isLocalEngine()) process.env.TESTCONTAINERS_HOST_OVERRIDE ??= '127.0.0.1';

const OWNER_START = startTime(process.pid) ?? '';

/** The labels of everything this process creates on the engine. */
export function ownerLabels(envId: string, node?: string): Record<string, string> {
  return {
    lockpick: '1', 'lockpick.env': envId, ...(node ? { 'lockpick.node': node } : {}),
    'lockpick.owner': String(process.pid), 'lockpick.owner-start': OWNER_START, 'lockpick.host': os.hostname(),
  };
}

/** Containers and networks of this process still to remove (the synchronous exit hook's lists). */
const live = { containers: new Set<string>(), networks: new Set<string>() };
let exitHook = false;
export function track(what: 'containers' | 'networks', id: string): void {
  live[what].add(id);
  if (exitHook) return;
  exitHook = true;
  // Last resort when down() never ran (an exit without teardown): the CLI, which honours DOCKER_HOST too.
  process.on('exit', () => {
    if (live.containers.size > 0) spawnSync('docker', ['rm', '-f', '-v', ...live.containers], { stdio: 'ignore', timeout: 20_000 });
    if (live.networks.size > 0) spawnSync('docker', ['network', 'rm', ...live.networks], { stdio: 'ignore', timeout: 20_000 });
  });
}
export function untrack(what: 'containers' | 'networks', id: string): void {
  live[what].delete(id);
}

/** Not there (404), not modified (304) or in the way of removal already (409): nothing left to do. */
export const gone = (e: unknown): boolean => [404, 304, 409].includes((e as { statusCode?: number })?.statusCode ?? 0);

export async function runtimeClient(): Promise<ContainerRuntimeClient> {
  const { getContainerRuntimeClient } = await importOptional<typeof import('testcontainers')>('testcontainers');
  try {
    return await getContainerRuntimeClient();
  } catch (e) {
    const where = process.env.DOCKER_HOST ? `DOCKER_HOST=${process.env.DOCKER_HOST}` : 'the local Docker socket';
    throw new InconclusiveError(`--env docker: no Docker engine answers at ${where} (${(e as Error).message}); start dockerd or set DOCKER_HOST`, { cause: e });
  }
}

/** Whether what carries these labels was left by a lockpick process that is gone. */
function orphaned(labels: Record<string, string>): boolean {
  const owner = Number(labels['lockpick.owner']);
  return owner !== process.pid && !(isAlive(owner) && startTime(owner) === labels['lockpick.owner-start']);
}

/** Removes containers, then networks, labelled lockpick=1 on this machine whose owner process is gone (a kill -9). */
export async function cleanupDockerLeftovers(client: ContainerRuntimeClient, say: (m: string) => void = (m) => console.error(m)): Promise<number> {
  const d = client.container.dockerode;
  const filters = { label: ['lockpick=1', `lockpick.host=${os.hostname()}`] };
  let n = 0;
  for (const c of await d.listContainers({ all: true, filters })) {
    if (!orphaned(c.Labels)) continue;
    await d.getContainer(c.Id).remove({ force: true, v: true }).catch((e: unknown) => { if (!gone(e)) throw e; });
    say(`lockpick: removed leftover container ${c.Names[0]?.replace(/^\//, '') ?? c.Id} (left by lockpick pid ${c.Labels['lockpick.owner']}, which is gone)`);
    n++;
  }
  for (const net of await d.listNetworks({ filters })) {
    if (!orphaned(net.Labels ?? {})) continue;
    await d.getNetwork(net.Id).remove().catch((e: unknown) => { if (!gone(e)) throw e; });
    say(`lockpick: removed leftover network ${net.Name} (left by lockpick pid ${net.Labels?.['lockpick.owner']}, which is gone)`);
    n++;
  }
  return n;
}
