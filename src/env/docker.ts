// The `docker` environment: each server a container on a Docker engine
// (testcontainers, which honours DOCKER_HOST), its port published on 127.0.0.1
// only, every client link through lockpick's fault proxy on this machine (as
// the local kind). Containers carry the label lockpick=1 and their owner's pid:
// removed by down() (normal exit, Ctrl-C), by a last-resort `docker rm -f` at
// exit, and, after a kill -9, by the next invocation (cleanupDockerLeftovers).
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type Dockerode from 'dockerode';
import { Toxiproxy } from 'toxiproxy-node-client';
import type { ContainerRuntimeClient } from 'testcontainers';
import type { Environment, NodeRole, TopologyName, TopologyOptions } from './types.ts';
import { LocalEnvironment, type ManagedNode } from './environment.ts';
import { DOCKER, type DockerEnvSpec } from './docker-kind.ts';
import { DEFAULT_REDIS_IMAGE, ensureDefaultRedisImage } from './docker-image.ts';
import { LinkTable } from './links.ts';
import { cleanupLeftovers } from './lifecycle.ts';
import { isAlive, startTime } from './procfs.ts';
import { startProxyBackend } from './proxy-backend.ts';
import { freePort } from './ports.ts';
import { redisPing } from './redis.ts';
import { settleAll } from './settle.ts';
import { redisTopology } from './topology-redis.ts';
import { InconclusiveError, UsageError } from '../errors.ts';

// Ryuk (testcontainers' reaper) is an image from Docker Hub; lockpick reaps its own containers.
process.env.TESTCONTAINERS_RYUK_DISABLED ??= 'true';

/** No DOCKER_HOST, or a unix socket: the engine runs on this machine. */
function localEngine(): boolean {
  const h = process.env.DOCKER_HOST;
  return !h || h.startsWith('unix://');
}
// testcontainers, finding /.dockerenv, would reach a local engine's ports at the bridge gateway, where loopback-published ports are not.
if (localEngine()) process.env.TESTCONTAINERS_HOST_OVERRIDE ??= '127.0.0.1';

const REDIS_PORT = 6379;
const OWNER_START = startTime(process.pid) ?? '';
const log = (m: string): void => console.error(m);

/** Containers of this process still to remove (the synchronous exit hook's list). */
const live = new Set<string>();
let exitHook = false;
function track(id: string): void {
  live.add(id);
  if (exitHook) return;
  exitHook = true;
  // Last resort when down() never ran (an exit without teardown): the CLI, which honours DOCKER_HOST too.
  process.on('exit', () => {
    if (live.size > 0) spawnSync('docker', ['rm', '-f', '-v', ...live], { stdio: 'ignore', timeout: 20_000 });
  });
}

/** A 409 (conflict) whose message says the container already is in the wanted state: not an error. */
const already = (msg: RegExp) => (e: unknown): void => {
  if ((e as { statusCode?: number })?.statusCode !== 409 || !msg.test(String((e as Error)?.message))) throw e;
};
const gone = (e: unknown): boolean => [404, 304, 409].includes((e as { statusCode?: number })?.statusCode ?? 0);

/** One server container: pause is the cgroup freezer, kill is SIGKILL, restart starts the same container (its port kept). */
class DockerNode implements ManagedNode {
  readonly logFile = '';

  constructor(readonly id: string, readonly role: NodeRole, readonly port: number, readonly host: string, private readonly c: Dockerode.Container) {}

  pid(): undefined { return undefined; }
  // Idempotent like SIGSTOP/SIGCONT on a process: two overlapping pauses of one node are fine.
  async pause(): Promise<void> { await this.c.pause().catch(already(/already paused/)); }
  async resume(): Promise<void> { await this.c.unpause().catch(already(/is not paused/)); }

  async kill(): Promise<void> {
    await this.c.kill().catch((e: unknown) => { if (!gone(e)) throw e; }); // 409: not running
  }

  async restart(o?: { persistence?: 'none' | 'aof-always' }): Promise<void> {
    if (o?.persistence === 'aof-always') throw new Error(`lockpick: node ${this.id}: the docker environment lacks the 'restart-persistence' capability`);
    await this.kill();
    await this.c.wait().catch(() => undefined);
    await this.c.start();
    await waitForRedis(this.host, this.port, `container ${this.id}`);
  }

  async setClockOffsetMs(): Promise<void> {
    throw new Error(`lockpick: cannot move the clock of node ${this.id}: the docker environment lacks the 'clock' capability`);
  }

  clockOffsetMs(): number { return 0; }

  async stop(): Promise<void> {
    await this.c.remove({ force: true, v: true }).catch((e: unknown) => { if (!gone(e)) throw e; });
    live.delete(this.c.id);
  }
}

async function waitForRedis(host: string, port: number, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await redisPing(port, host).catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`${what} (${host}:${port}) did not answer PING within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Removes containers labelled lockpick=1 on this machine whose owner process is gone (a kill -9). */
export async function cleanupDockerLeftovers(client: ContainerRuntimeClient, say: (m: string) => void = log): Promise<number> {
  const list = await client.container.dockerode.listContainers({ all: true, filters: { label: ['lockpick=1', `lockpick.host=${os.hostname()}`] } });
  let n = 0;
  for (const c of list) {
    const owner = Number(c.Labels['lockpick.owner']);
    if (owner === process.pid || (isAlive(owner) && startTime(owner) === c.Labels['lockpick.owner-start'])) continue;
    await client.container.dockerode.getContainer(c.Id).remove({ force: true, v: true }).catch((e: unknown) => { if (!gone(e)) throw e; });
    say(`lockpick: removed leftover container ${c.Names[0]?.replace(/^\//, '') ?? c.Id} (left by lockpick pid ${owner}, which is gone)`);
    n++;
  }
  return n;
}

async function runtimeClient(): Promise<ContainerRuntimeClient> {
  const { getContainerRuntimeClient } = await import('testcontainers');
  try {
    return await getContainerRuntimeClient();
  } catch (e) {
    const where = process.env.DOCKER_HOST ? `DOCKER_HOST=${process.env.DOCKER_HOST}` : 'the local Docker socket';
    throw new InconclusiveError(`--env docker: no Docker engine answers at ${where} (${(e as Error).message}); start dockerd or set DOCKER_HOST`, { cause: e });
  }
}

interface Start { id: string; role: NodeRole; image: string; envId: string; hostIp: string; host: string }

async function startRedisContainer(s: Start): Promise<DockerNode> {
  const { GenericContainer, Wait } = await import('testcontainers');
  // testcontainers publishes on every interface; lockpick's servers are reachable from this machine only.
  class Published extends GenericContainer {
    publish(hostPort: number, hostIp: string): this {
      this.withExposedPorts({ container: REDIS_PORT, host: hostPort });
      this.hostConfig.PortBindings = { ...this.hostConfig.PortBindings, [`${REDIS_PORT}/tcp`]: [{ HostIp: hostIp, HostPort: String(hostPort) }] };
      return this;
    }
  }
  const port = await freePort();
  const started = await new Published(s.image)
    .publish(port, s.hostIp)
    .withName(`lockpick-${s.envId}-${s.id}`)
    .withLabels({ lockpick: '1', 'lockpick.env': s.envId, 'lockpick.node': s.id, 'lockpick.owner': String(process.pid), 'lockpick.owner-start': OWNER_START, 'lockpick.host': os.hostname() })
    // No RDB, no AOF: a killed and restarted node starts empty (persistence 'none').
    .withCommand(['redis-server', '--port', String(REDIS_PORT), '--bind', '0.0.0.0', '--protected-mode', 'no', '--save', '', '--appendonly', 'no', '--dir', '/data'])
    .withWaitStrategy(Wait.forLogMessage(/Ready to accept connections/))
    .withStartupTimeout(30_000)
    .start();
  track(started.getId());
  const { getContainerRuntimeClient } = await import('testcontainers');
  const c = (await getContainerRuntimeClient()).container.getById(started.getId());
  const node = new DockerNode(s.id, s.role, port, s.host, c);
  await waitForRedis(s.host, port, `container ${s.id}`).catch(async (e: unknown) => { await node.stop(); throw e; });
  return node;
}

export async function startDockerEnvironment(topology: TopologyName, o: TopologyOptions, spec: DockerEnvSpec): Promise<Environment> {
  if (topology !== redisTopology.name) throw new UsageError(`--env docker runs locks on the redis topology so far; this lock runs on ${topology}: use --env local`);
  redisTopology.validate?.(o);
  if (o.persistence !== undefined && o.persistence !== 'none') throw new UsageError(`--env docker: persistence '${o.persistence}' is not built (containers restart empty); use --env local`);
  const image = spec.images?.redis ?? DEFAULT_REDIS_IMAGE;
  const client = await runtimeClient();
  cleanupLeftovers();
  const root = mkdtempSync(path.join(os.tmpdir(), 'lockpick-env-'));
  let env: LocalEnvironment | undefined;
  try {
    await cleanupDockerLeftovers(client);
    if (image === DEFAULT_REDIS_IMAGE) await ensureDefaultRedisImage(client, log);
    const proxy = await startProxyBackend();
    env = new LocalEnvironment(topology, root, new LinkTable(new Toxiproxy(proxy.url)), proxy, DOCKER);
    // A local engine (a unix socket) publishes on loopback; a remote one (DOCKER_HOST=tcp://...) on its host.
    const local = localEngine();
    const where = { envId: path.basename(root).replace(/^lockpick-env-/, ''), hostIp: local ? '127.0.0.1' : '', host: local ? '127.0.0.1' : client.info.containerRuntime.host };
    const ids = Array.from({ length: o.masters ?? 1 }, (_, i) => `n${i + 1}`);
    if (o.resource) ids.push('resource');
    const e = env;
    await settleAll(
      ids.map((id) => startRedisContainer({ id, role: id === 'resource' ? 'resource' : 'redis', image, ...where })),
      (n) => e.nodes.push(n),
    );
    return env;
  } catch (e) {
    await env?.down();
    if (e instanceof UsageError) throw e;
    throw new InconclusiveError(`the docker ${topology} environment failed to start (image ${image}): ${(e as Error)?.message ?? String(e)}`, { cause: e });
  }
}
