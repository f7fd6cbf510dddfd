// A running environment: its nodes, its links, its teardown. The local kind
// starts its servers; the external kind (external.ts) only names the user's.
import { rmSync } from 'node:fs';
import type { Endpoint, Environment, Link, NodeHandle, TopologyName } from './types.ts';
import type { LinkTable } from './links.ts';
import type { ProxyBackend } from './proxy-backend.ts';
import { onTeardown, removeDir } from './lifecycle.ts';
import { LOCAL_INFO } from './env-kind-info.ts';
import type { EnvKindDef } from './types.ts';

/** A node the environment can reach and tear down (a ServerNode, or an external server's stand-in). */
export interface ManagedNode extends NodeHandle {
  /** Login a client needs (copied into its endpoints), for servers that have one. */
  credentials?: { user: string; password: string; database?: string };
  stop(): Promise<void>;
}

export class LocalEnvironment implements Environment {
  readonly nodes: ManagedNode[] = [];
  sentinelName?: string;
  private unregister: () => void;
  private downing: Promise<void> | undefined;
  /** Called at teardown before the nodes are stopped (e.g. undo iptables rules). */
  readonly cleanups: (() => Promise<void>)[] = [];
  /** Called at teardown after the nodes are stopped (e.g. remove a container network). */
  readonly afterNodes: (() => Promise<void>)[] = [];

  constructor(
    readonly topology: TopologyName,
    readonly root: string,
    readonly linkTable: LinkTable,
    private readonly proxy: ProxyBackend | undefined,
    readonly envKind: EnvKindDef = LOCAL_INFO,
    /** The roles clients lock on (its topology's TopologyDef.roles.data: topologies.ts dataRoles), given by whoever starts it. */
    readonly dataRoles: readonly string[] = [],
  ) {
    this.unregister = onTeardown(() => this.down());
  }

  get proxyUrl(): string {
    return this.proxy?.url ?? '';
  }

  get links(): Link[] {
    return this.linkTable.links;
  }

  node(id: string): ManagedNode {
    const n = this.nodes.find((x) => x.id === id);
    if (!n) throw new Error(`lockpick: no node '${id}' in this ${this.topology} environment (nodes: ${this.nodes.map((x) => x.id).join(', ')})`);
    return n;
  }

  private async proxiedFor(clientId: string, nodes: ManagedNode[], channel?: string): Promise<Endpoint[]> {
    if (!/^[A-Za-z0-9_.-]+$/.test(clientId)) throw new Error(`lockpick: client id '${clientId}' must be letters, digits, '_', '.', '-'`);
    if (channel !== undefined && !/^[a-z][a-z0-9-]*$/.test(channel)) throw new Error(`lockpick: channel '${channel}' must be lower-case letters, digits, '-'`);
    const links = await Promise.all(
      nodes.map((n) => this.linkTable.ensure(`client:${clientId}`, n.id, { id: n.id, host: n.host ?? '127.0.0.1', port: n.port }, channel)),
    );
    return links.map((l, i) => ({ id: nodes[i]!.id, host: l.listen.host, port: l.listen.port, ...nodes[i]!.credentials }));
  }

  clientEndpoints(clientId: string, channel?: string): Promise<Endpoint[]> {
    return this.proxiedFor(clientId, this.nodes.filter((n) => this.dataRoles.includes(n.role)), channel);
  }

  sentinelEndpoints(clientId: string): Promise<Endpoint[]> {
    return this.proxiedFor(clientId, this.nodes.filter((n) => n.role === 'sentinel'));
  }

  resourceEndpoint(): Endpoint {
    const r = this.nodes.find((n) => n.role === 'resource');
    if (!r) throw new Error(`lockpick: this environment has no resource node; start it with { resource: true }`);
    return { id: r.id, host: r.host ?? '127.0.0.1', port: r.port };
  }

  /** Stops every process, the proxy and removes the private dir. Idempotent. */
  down(): Promise<void> {
    this.downing ??= (async () => {
      for (const c of this.cleanups) await c().catch((e: unknown) => console.error(`lockpick: cleanup: ${String(e)}`));
      await Promise.all(this.nodes.map((n) => n.stop()));
      for (const c of this.afterNodes) await c().catch((e: unknown) => console.error(`lockpick: cleanup: ${String(e)}`));
      await this.proxy?.stop().catch((e: unknown) => console.error(`lockpick: stopping the fault proxy: ${String(e)}`));
      removeDir(this.root);
      rmSync(this.root, { recursive: true, force: true });
      this.unregister();
    })();
    return this.downing;
  }
}
