// The `external` environment: the user's own servers (a staging Redis,
// Sentinel, ZooKeeper or MySQL). lockpick starts only its fault proxy between
// its clients and those servers (and, unless `resource=` names one, a local
// Redis for the protected resource). It cannot pause, kill or move the clock
// of a server it did not start: those faults are refused before the run
// (env-kinds.ts), and a node handle here throws if anything asks anyway.
// Server→server links the user already routes through their own Toxiproxy
// (TOXIPROXY_URL) become node links when the proxies are named as lockpick
// names its local ones ('n2->n1': from node n2 to node n1), so they can be cut.
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { faultProxyClient } from './fault-proxy-client.ts';
import type { Endpoint, Environment, Link, NodeRole, TopologyName, TopologyOptions } from './types.ts';
import { LocalEnvironment, type ManagedNode } from './environment.ts';
import { EXTERNAL_INFO as EXTERNAL } from './env-kind-info.ts';
import { missingCapabilities, STOP_SIGNALS, type StopHow } from './capabilities.ts';
import type { EnvKindDef } from './types.ts';
import type { Capability } from './capabilities.ts';
import { endpointText, type ExternalEndpoint, type ExternalServers } from './endpoints.ts';
import { LinkTable } from './links.ts';
import { cleanupLeftovers } from './lifecycle.ts';
import { startProxyBackend } from './proxy-backend.ts';
import { freePort } from './ports.ts';
import { createRedisNode } from './redis.ts';
import { dataRoles, topologyDef } from './topologies.ts';
import type { ExternalRole } from './topology.ts';
import { InconclusiveError, UsageError } from '../errors.ts';

/** A server lockpick did not start: it can be reached, not controlled. */
class ExternalNode implements ManagedNode {
  readonly logFile = '';
  credentials?: { user: string; password: string; database?: string };

  constructor(readonly id: string, readonly role: NodeRole, readonly host: string, readonly port: number) {}

  private refuse(what: string, capability: string): never {
    throw new Error(`lockpick: cannot ${what} node ${this.id} (${this.host}:${this.port}): the external environment lacks the '${capability}' capability`);
  }

  pid(): undefined { return undefined; }
  pause(): Promise<void> { this.refuse('pause', 'pause'); }
  resume(): Promise<void> { this.refuse('resume', 'pause'); }
  kill(how: StopHow = {}): Promise<void> { this.refuse('stop', STOP_SIGNALS[how.signal ?? 'SIGKILL']); }
  restart(): Promise<void> { this.refuse('restart', 'kill'); }
  setClockOffsetMs(): Promise<void> { this.refuse('move the clock of', 'clock'); }
  clockOffsetMs(): number { return 0; }
  async stop(): Promise<void> { /* not ours to stop */ }
}

/** Which endpoint roles the topology takes, and how many (the lock's topology decides). */
function wanted(topology: TopologyName, o: TopologyOptions): ExternalRole[] {
  const def = topologyDef(topology);
  if (!def) throw new UsageError(`unknown topology '${topology}'`);
  return def.external(o);
}

/** The endpoints fit the lock's topology: exactly what it takes, nothing it would ignore (UsageError otherwise). */
export function checkExternalServers(topology: TopologyName, o: TopologyOptions, s: ExternalServers): void {
  const want = wanted(topology, o);
  for (const w of want) {
    const n = s.endpoints.filter((e) => e.role === w.role).length;
    if (n < w.min || n > w.max) {
      const count = w.min === w.max ? `${w.min}` : `${w.min} to ${w.max}`;
      throw new UsageError(`--endpoints: this lock runs on ${topology}${o.masters ? ` with ${o.masters} master(s)` : ''} and needs ${count} ${w.role}= endpoint(s), got ${n}`);
    }
  }
  const roles = new Set<string>([...want.map((w) => w.role), 'resource']);
  const extra = s.endpoints.find((e) => !roles.has(e.role));
  if (extra) throw new UsageError(`--endpoints: ${endpointText(extra)} is not used by a ${topology} lock (it takes ${[...roles].join(', ')})`);
  if (s.endpoints.filter((e) => e.role === 'resource').length > 1) throw new UsageError('--endpoints: at most one resource= endpoint');
  if (topology === 'redis-sentinel' && !s.master) throw new UsageError("--endpoints: a redis-sentinel lock needs master=NAME (the name the Sentinels monitor)");
}

/** A TCP connect, so an unreachable server fails the start (exit 3) instead of every operation. */
function reachable(e: ExternalEndpoint, timeoutMs = 3000): Promise<void> {
  return new Promise((resolve, reject) => {
    const sock = net.connect({ host: e.host, port: e.port });
    const done = (err?: Error) => { sock.destroy(); if (err) reject(err); else resolve(); };
    sock.setTimeout(timeoutMs, () => done(new Error(`${endpointText(e)}: no answer within ${timeoutMs} ms`)));
    sock.once('connect', () => done());
    sock.once('error', (err) => done(new Error(`${endpointText(e)}: ${err.message}`)));
  });
}

/** A proxy name for a link between two servers, as lockpick names its local ones: 'n2->n1', 'n1->n2:election'. */
const NODE_LINK_NAME = /^([a-z]+\d+)->([a-z]+\d+)(?::[a-z-]+)?$/;

/** 'HOST:PORT' of a Toxiproxy proxy as an endpoint. */
function address(hostPort: string, id: string): Endpoint {
  const i = hostPort.lastIndexOf(':');
  return { id, host: hostPort.slice(0, i).replace(/^\[|\]$/g, '') || '127.0.0.1', port: Number(hostPort.slice(i + 1)) };
}

/**
 * The proxies on the user's Toxiproxy named for a link between two of this environment's
 * servers, as its node links. A name of that shape with a node the endpoints do not give is
 * refused (exit 2), so a typo is not silently a link that is never cut.
 */
async function userNodeLinks(url: string, nodes: ManagedNode[]): Promise<Link[]> {
  const ids = nodes.map((n) => n.id);
  const out: Link[] = [];
  const all = await faultProxyClient(url).getAll();
  // Client links of a run that did not end (kill -9): they would block this run's (one run per Toxiproxy at a time).
  const stale = Object.keys(all).filter((name) => name.startsWith('client:'));
  if (stale.length) {
    await removeProxies(url, stale);
    console.error(`lockpick: removed ${stale.length} leftover client-link proxies from TOXIPROXY_URL ${url} (${stale.slice(0, 3).join(', ')}${stale.length > 3 ? ', ...' : ''}), left by a run that did not end`);
  }
  for (const [name, p] of Object.entries(all)) {
    const m = NODE_LINK_NAME.exec(name);
    if (!m) continue;
    const unknown = [m[1]!, m[2]!].find((id) => !ids.includes(id));
    if (unknown) {
      throw new UsageError(`TOXIPROXY_URL ${url}: proxy '${name}' names node ${unknown}, which this environment does not have (nodes in --endpoints order: ${ids.join(', ')}); rename or remove that proxy`);
    }
    out.push({ name, from: m[1]!, to: m[2]!, listen: address(p.listen, name), upstream: address(p.upstream, m[2]!) });
  }
  return out;
}

/**
 * Starts the external environment. `needs`: capabilities the run's faults take that only the
 * user's setup gives ('node-link': proxies on TOXIPROXY_URL); without them the start is refused (exit 2).
 */
export async function startExternalEnvironment(topology: TopologyName, o: TopologyOptions, s: ExternalServers, needs: readonly Capability[] = []): Promise<Environment> {
  checkExternalServers(topology, o, s);
  try {
    await Promise.all(s.endpoints.map((e) => reachable(e)));
  } catch (e) {
    throw new InconclusiveError(`the external ${topology} environment cannot be reached: ${(e as Error).message}`, { cause: e });
  }
  cleanupLeftovers();
  const root = mkdtempSync(path.join(os.tmpdir(), 'lockpick-env-'));
  let env: LocalEnvironment | undefined;
  try {
    const nodes: ManagedNode[] = [];
    for (const w of wanted(topology, o)) {
      s.endpoints.filter((e) => e.role === w.role).forEach((e, i) => {
        const node = new ExternalNode(`${w.prefix}${i + 1}`, w.as, e.host, e.port);
        if (e.user !== undefined) node.credentials = { user: e.user, password: e.password ?? '', ...(e.database ? { database: e.database } : {}) };
        nodes.push(node);
      });
    }
    // The user's Toxiproxy: its named server links are ours to cut, so this run has node links.
    const userUrl = process.env.TOXIPROXY_URL?.replace(/\/+$/, '') || undefined;
    const nodeLinks = userUrl ? await userNodeLinks(userUrl, nodes) : [];
    const kind: EnvKindDef = nodeLinks.length ? { ...EXTERNAL, capabilities: [...EXTERNAL.capabilities, 'node-link'] } : EXTERNAL;
    const missing = missingCapabilities(kind, needs);
    if (missing.length) {
      throw new UsageError(`the plan's faults need ${missing.join(' and ')}, which this external environment does not have: ${userUrl
        ? `TOXIPROXY_URL ${userUrl} has no proxy named for a link between its servers (${nodes.map((n) => n.id).join(', ')}), e.g. 'n2->n1' from n2 to n1`
        : 'TOXIPROXY_URL is not set'}; ${EXTERNAL.setup!.hint}`);
    }
    const proxy = await startProxyBackend();
    const table = new LinkTable(faultProxyClient(proxy.url));
    table.links.push(...nodeLinks);
    env = new LocalEnvironment(topology, root, table, proxy, kind, dataRoles(topology));
    env.nodes.push(...nodes);
    // Client links made on the user's Toxiproxy go when the run ends (their server links stay).
    if (userUrl) env.cleanups.push(() => removeProxies(userUrl, env!.links.filter((l) => l.from.startsWith('client:')).map((l) => l.name)));
    if (topology === 'redis-sentinel') env.sentinelName = s.master;
    // The protected counter: on the user's Redis when resource= names one, else on a Redis of our own.
    const r = s.endpoints.find((e) => e.role === 'resource');
    if (r) env.nodes.push(new ExternalNode('resource', 'resource', r.host, r.port));
    else if (o.resource) env.nodes.push(await createRedisNode({ id: 'resource', role: 'resource', port: await freePort(), root, persistence: 'none' }));
    return env;
  } catch (e) {
    if (env) await env.down();
    else rmSync(root, { recursive: true, force: true });
    if (e instanceof UsageError) throw e;
    throw new InconclusiveError(`the external ${topology} environment failed to start: ${(e as Error)?.message ?? String(e)}`, { cause: e });
  }
}

/** Removes client-link proxies from the user's Toxiproxy (never a server link). */
async function removeProxies(url: string, names: string[]): Promise<void> {
  const tp = faultProxyClient(url);
  await Promise.all(names.map((name) => tp.get(name).then((p) => p.remove()).catch(() => { /* gone already */ })));
}
