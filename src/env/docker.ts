// The `docker` environment: each server a container on a Docker engine
// (testcontainers' runtime client; DOCKER_HOST honoured) on a private network
// of its own. Client links go through lockpick's fault proxy on this machine to
// each node's port, published on 127.0.0.1 only. Node→node links (replication,
// Sentinel, the ZooKeeper quorum) go through the proxy too: in each node's
// network namespace a nat rule sends what it dials at a peer's address to the
// proxy of that one link, listening on the network's gateway (as
// peer-routing.ts does with uids for local processes). Each topology says how
// it runs in containers (TopologyDef.docker); this file is the kit it uses.
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type Dockerode from 'dockerode';
import type { ContainerRuntimeClient } from 'testcontainers';
import type { NodeRole } from './types.ts';
import { LocalEnvironment } from './environment.ts';
import type { ImageKind } from './docker-kind.ts';
import { ensureImage, type ImageRecipe } from './docker-image.ts';
import { gone, ownerLabels, track, untrack } from './docker-engine.ts';
import { DockerNode } from './docker-node.ts';
import { freePort } from './ports.ts';
import { shimPath } from './clock.ts';
import { peerLinks, type PeerNode } from './topology-peers.ts';
import { chownTree } from './peer-routing.ts';

const run = promisify(execFile);
const log = (m: string): void => console.error(m);
const SHIM_DIR = '/lockpick-shim';

/** A server to run as a container (the command line of the server itself: images have no shell). */
export interface ContainerServer {
  id: string;
  role: NodeRole;
  image: ImageKind;
  cmd: string[];
  /** Files written into the node's dir, which the container sees at /lockpick, before it starts. */
  files?: Record<string, string>;
  /** The user the server runs as when not root (PostgreSQL refuses root): the node's dir becomes its own. */
  user?: { uid: number; gid: number };
  /** Serving? Asked over the published port. */
  ready(host: string, port: number): Promise<boolean>;
  readyMs?: number;
}

interface Placement { id: string; port: number; holder: Dockerode.Container; ip: string; pid: number; hostPort: number; dir: string }

/** What a topology's docker start uses: addresses first, then peer links, then the servers. */
export class DockerKit {
  private readonly placed = new Map<string, Placement>();
  private readonly holders: Dockerode.Container[] = [];
  /** Where lockpick reaches published ports: 127.0.0.1 for a local engine, the engine's host otherwise. */
  readonly host: string;

  constructor(
    readonly env: LocalEnvironment,
    private readonly client: ContainerRuntimeClient,
    private readonly net: { id: string; name: string; gateway: string },
    private readonly envId: string,
    private readonly images: Partial<Record<ImageKind, string>>,
    readonly local: boolean,
    // The topologies' image recipes (TopologyDef.images), given by docker-start.ts: the kit sits below the topology registry.
    private readonly recipeOf: (kind: ImageKind) => ImageRecipe | undefined,
  ) {
    this.host = local ? '127.0.0.1' : client.info.containerRuntime.host;
  }

  private async image(kind: ImageKind): Promise<string> {
    const given = this.images[kind];
    if (given) return given;
    const recipe = this.recipeOf(kind);
    if (!recipe) throw new Error(`lockpick: no topology declares an image recipe for '${kind}' (TopologyDef.images)`);
    return (this.images[kind] = await ensureImage(this.client, kind, recipe, log));
  }

  /** The node's address on the private network (after place()). */
  ip(id: string): string {
    const p = this.placed.get(id);
    if (!p) throw new Error(`lockpick: docker node ${id} has no address yet: place() it first`);
    return p.ip;
  }

  /**
   * Gives each node its network namespace: a holder container on the private network that
   * owns the node's address and publishes `port` (the one clients use) on this machine.
   */
  async place(nodes: { id: string; port: number }[]): Promise<void> {
    const d = this.client.container.dockerode;
    const holderImage = await this.image('redis');
    await Promise.all(nodes.map(async ({ id, port }) => {
      const hostPort = await freePort();
      const holder = await d.createContainer({
        name: `lockpick-${this.envId}-${id}-net`,
        Image: holderImage,
        // Any process that idles will do: the redis image's server on a unix socket only.
        Cmd: ['redis-server', '--port', '0', '--unixsocket', '/tmp/holder.sock', '--save', '', '--appendonly', 'no'],
        Labels: ownerLabels(this.envId, `${id}-net`),
        ExposedPorts: { [`${port}/tcp`]: {} },
        HostConfig: { NetworkMode: this.net.name, PortBindings: { [`${port}/tcp`]: [{ HostIp: this.local ? '127.0.0.1' : '', HostPort: String(hostPort) }] } },
      });
      track('containers', holder.id);
      this.holders.push(holder);
      await holder.start();
      const info = await holder.inspect();
      const ip = info.NetworkSettings.Networks[this.net.name]?.IPAddress;
      if (!ip) throw new Error(`lockpick: docker node ${id}: no address on network ${this.net.name}`);
      const dir = path.join(this.env.root, id);
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      this.placed.set(id, { id, port, holder, ip, pid: info.State.Pid, hostPort, dir });
    }));
  }

  /**
   * The links a→b (each of b's ports, on b's address) for every ordered pair with talks(a, b),
   * each through its own proxy; a rule in a's namespace sends a's connections to b there.
   * Needs a local engine, root and nsenter + iptables; otherwise peers talk directly (a warning).
   */
  async routePeers(nodes: PeerNode[], talks: (a: string, b: string) => boolean): Promise<void> {
    const why = !this.local ? 'the Docker engine is not on this machine' : process.getuid?.() !== 0 ? 'not running as root' : undefined;
    if (why) {
      log(`lockpick: warning: node-to-node links between containers are NOT behind the fault proxy (${why}); client links are.`);
      return;
    }
    await Promise.all([...peerLinks(nodes, talks)].map((l) => this.route(l.from, l.to, l.port, l.suffix)));
  }

  private async route(from: string, to: string, port: number, suffix: string): Promise<void> {
    const a = this.placed.get(from)!;
    const b = this.placed.get(to)!;
    const link = await this.env.linkTable.add(from, `${to}${suffix}`, { id: to, host: b.ip, port }, this.net.gateway);
    (link as { to: string }).to = to; // the suffix only keeps proxy names unique
    await run('nsenter', ['-t', String(a.pid), '-n', 'iptables', '-w', '5', '-t', 'nat', '-A', 'OUTPUT', '-p', 'tcp', '-d', b.ip, '--dport', String(port),
      '-j', 'DNAT', '--to-destination', `${this.net.gateway}:${link.listen.port}`]);
  }

  /** Teardown, after the server containers: the holders (their namespaces) go. */
  async removeHolders(): Promise<void> {
    await Promise.all(this.holders.splice(0).map(async (h) => {
      await h.remove({ force: true, v: true }).catch((e: unknown) => { if (!gone(e)) throw e; });
      untrack('containers', h.id);
    }));
  }

  /** Starts the server container in its placed namespace and waits until it serves. */
  async start(s: ContainerServer): Promise<DockerNode> {
    const p = this.placed.get(s.id);
    if (!p) throw new Error(`lockpick: docker node ${s.id} was not placed`);
    for (const [name, text] of Object.entries(s.files ?? {})) {
      mkdirSync(path.dirname(path.join(p.dir, name)), { recursive: true });
      writeFileSync(path.join(p.dir, name), text);
    }
    const clockFile = this.local ? path.join(p.dir, 'clock-offset') : undefined;
    if (s.user) chownTree(p.dir, s.user.uid, s.user.gid);
    const server = await this.client.container.dockerode.createContainer({
      name: `lockpick-${this.envId}-${s.id}`,
      Image: await this.image(s.image),
      Cmd: s.cmd,
      ...(s.user ? { User: `${s.user.uid}:${s.user.gid}` } : {}),
      Labels: ownerLabels(this.envId, s.id),
      WorkingDir: '/lockpick',
      // The clock shim moves the server's wall clock by what the node's clock file says.
      Env: clockFile ? [`LD_PRELOAD=${SHIM_DIR}/libclockshim.so`, 'LOCKPICK_CLOCK_FILE=/lockpick/clock-offset'] : [],
      HostConfig: {
        NetworkMode: `container:${p.holder.id}`,
        Binds: this.local ? [`${p.dir}:/lockpick`, `${shimPath()}:${SHIM_DIR}/libclockshim.so:ro`] : [],
      },
    });
    track('containers', server.id);
    const node = new DockerNode({
      id: s.id, role: s.role, host: this.host, port: p.hostPort, announced: { host: p.ip, port: p.port },
      server, clockFile, ready: () => s.ready(this.host, p.hostPort), readyMs: s.readyMs ?? 20_000,
    });
    this.env.nodes.push(node);
    await node.start();
    return node;
  }
}
