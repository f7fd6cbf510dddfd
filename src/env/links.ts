// The links of an environment: one Toxiproxy proxy per directed link, created
// and driven only through toxiproxy-node-client. Proxy name = `${from}->${to}`.
import type { Toxiproxy } from 'toxiproxy-node-client';
import { faultProxyClient } from './fault-proxy-client.ts';
import type { Endpoint, Link } from './types.ts';
import { freePort } from './ports.ts';

export class LinkTable {
  readonly links: Link[] = [];
  private readonly pending = new Map<string, Promise<Link>>();

  /** Without a proxy (`tp` undefined) a link is direct: listen = upstream, nothing to cut. */
  constructor(private readonly tp: Toxiproxy | undefined) {}

  get proxied(): boolean {
    return this.tp !== undefined;
  }

  get(from: string, to: string, channel?: string): Link | undefined {
    return this.links.find((l) => l.from === from && l.to === to && l.channel === channel);
  }

  /** The link from→to (of `channel`: named 'from->to:channel'), created on first use (concurrent callers share one creation). */
  async ensure(from: string, to: string, upstream: Endpoint, channel?: string): Promise<Link> {
    const name = `${from}->${to}${channel ? `:${channel}` : ''}`;
    const have = this.get(from, to, channel);
    if (have) return have;
    let p = this.pending.get(name);
    if (!p) {
      p = this.create(name, from, to, upstream, '127.0.0.1', channel);
      this.pending.set(name, p);
      p.finally(() => this.pending.delete(name)).catch(() => {});
    }
    return p;
  }

  /** Adds a node→node link (see peer-routing.ts); `listenHost`: where its proxy listens (a container network's gateway). */
  async add(from: string, to: string, upstream: Endpoint, listenHost = '127.0.0.1'): Promise<Link> {
    return this.create(`${from}->${to}`, from, to, upstream, listenHost);
  }

  private async create(name: string, from: string, to: string, upstream: Endpoint, listenHost = '127.0.0.1', channel?: string): Promise<Link> {
    let link: Link;
    if (!this.tp) {
      link = { name, from, to, listen: { ...upstream, id: name }, upstream, ...(channel ? { channel } : {}) };
    } else {
      const up = `${upstream.host}:${upstream.port}`;
      let port = await freePort();
      let host = listenHost;
      for (let attempt = 0; ; attempt++) {
        try {
          await this.tp.createProxy({ name, listen: `${listenHost}:${port}`, upstream: up }); // each request has its deadline (./fault-proxy-client.ts)
          break;
        } catch (e) {
          // A creation whose answer was lost or late still made the proxy: one of this name and
          // upstream is ours (in a loaded CI run the answer never came, and each retry met 409).
          // lockpick's own proxy now closes every connection it answers on (../proxy/api.ts
          // send), which ended that; a Toxiproxy server (TOXIPROXY_URL, toxiproxy-server) keeps
          // them alive, so the guard stays.
          const made = await this.tp.get(name).catch(() => undefined);
          if (made && made.upstream === up) {
            const at = made.listen.lastIndexOf(':');
            host = made.listen.slice(0, at); port = Number(made.listen.slice(at + 1));
            break;
          }
          // Else another process took the port between our probe and the proxy's bind.
          if (attempt >= 3) throw new Error(`lockpick: creating proxy ${name}: ${String(e)}`);
          port = await freePort();
        }
      }
      link = { name, from, to, listen: { id: name, host, port }, upstream, ...(channel ? { channel } : {}) };
    }
    this.links.push(link);
    return link;
  }

  /** Re-enables every link and removes its toxics (used before a restart of the world or at teardown). */
  async removeAll(): Promise<void> {
    if (!this.tp) return;
    const all = await this.tp.getAll().catch(() => ({}));
    await Promise.all(Object.values(all).map((p) => p.remove().catch(() => {})));
  }
}
