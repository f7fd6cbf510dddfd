// Which server sessions are a client's, with no help from its code: every client link goes
// through the fault proxy, which knows each of its connections' upstream socket (proxy → server).
// The address and port of that socket are what the server lists as the session's client
// (PostgreSQL pg_stat_activity.client_addr/client_port, MySQL PROCESSLIST.HOST 'host:port').
// TopologyDef.endSessions matches them. Needs lockpick's own proxy (GET
// /proxies/{name}/connections); a Toxiproxy server lists no connections, and a NAT between
// the proxy and the server (Docker's published ports) changes the port: then nothing matches.
import type { Environment } from './types.ts';

export interface Peer { host: string; port: number }

/**
 * The upstream ends of the clients' open proxied connections to node `to` (the server that lists
 * sessions: through a pooler the clients' links end at the pooler, and none is the server's);
 * `unlisted`: links whose proxy would not say.
 */
export async function clientPeers(env: Environment, clients: readonly string[], to: string): Promise<{ peers: Peer[]; unlisted: string[] }> {
  const froms = new Set(clients.map((c) => `client:${c}`));
  const peers: Peer[] = [];
  const unlisted: string[] = [];
  for (const link of env.links.filter((l) => froms.has(l.from) && l.to === to)) {
    try {
      const r = await fetch(`${env.proxyUrl}/proxies/${encodeURIComponent(link.name)}/connections`, { signal: AbortSignal.timeout(2000) });
      if (!r.ok) { unlisted.push(link.name); continue; }
      for (const c of (await r.json()) as { upstream?: unknown }[]) {
        const p = typeof c.upstream === 'string' ? parsePeer(c.upstream) : undefined;
        if (p) peers.push(p);
      }
    } catch {
      unlisted.push(link.name);
    }
  }
  return { peers, unlisted };
}

/** 'host:port' (IPv6 in brackets or not) → its parts. */
export function parsePeer(s: string): Peer | undefined {
  const i = s.lastIndexOf(':');
  const port = Number(s.slice(i + 1));
  if (i < 0 || !Number.isInteger(port) || port <= 0) return undefined;
  return { host: s.slice(0, i).replace(/^\[(.*)\]$/, '$1'), port };
}

const IP = /^(\d{1,3}(\.\d{1,3}){3}|[0-9a-f:]*:[0-9a-f:.]*)$/i;
const plain = (h: string) => h.toLowerCase().replace(/^::ffff:/, '');

/**
 * Whether a session the server lists (its client's host and port) is one of `peers`. The port
 * must match; the host too when both are IP addresses (a server that resolves names says
 * 'localhost' for 127.0.0.1), so a session of another machine with the same port is not taken.
 */
export function isPeer(peers: readonly Peer[], host: string | null | undefined, port: number | null | undefined): boolean {
  if (!port) return false;
  return peers.some((p) => p.port === port && (!host || !IP.test(plain(host)) || !IP.test(plain(p.host)) || plain(host) === plain(p.host)));
}

/** Words for a run's report: which links could not be asked. */
export function unlistedWords(unlisted: readonly string[]): string {
  return unlisted.length ? `; the fault proxy did not list the connections of ${unlisted.join(', ')} (lockpick's own proxy does; a Toxiproxy server does not)` : '';
}
