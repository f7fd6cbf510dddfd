// The `external` environment: the user's own servers (a staging Redis,
// Sentinel, ZooKeeper or MySQL). lockpick starts only its fault proxy between
// its clients and those servers (and, unless `resource=` names one, a local
// Redis for the protected resource). It cannot pause, kill or move the clock
// of a server it did not start: those faults are refused before the run
// (env-kinds.ts), and a node handle here throws if anything asks anyway.
import { mkdtempSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Toxiproxy } from 'toxiproxy-node-client';
import type { Environment, NodeRole, TopologyName, TopologyOptions } from './types.ts';
import { LocalEnvironment, type ManagedNode } from './environment.ts';
import { EXTERNAL } from './env-kinds.ts';
import { endpointText, type ExternalEndpoint, type ExternalServers } from './endpoints.ts';
import { LinkTable } from './links.ts';
import { cleanupLeftovers } from './lifecycle.ts';
import { startProxyBackend } from './proxy-backend.ts';
import { freePort } from './ports.ts';
import { createRedisNode } from './redis.ts';
import { topologyDef } from './topologies.ts';
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
  kill(): Promise<void> { this.refuse('kill', 'kill'); }
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

export async function startExternalEnvironment(topology: TopologyName, o: TopologyOptions, s: ExternalServers): Promise<Environment> {
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
    const proxy = await startProxyBackend();
    env = new LocalEnvironment(topology, root, new LinkTable(new Toxiproxy(proxy.url)), proxy, EXTERNAL);
    for (const w of wanted(topology, o)) {
      s.endpoints.filter((e) => e.role === w.role).forEach((e, i) => {
        const node = new ExternalNode(`${w.prefix}${i + 1}`, w.as, e.host, e.port);
        if (e.user !== undefined) node.credentials = { user: e.user, password: e.password ?? '', ...(e.database ? { database: e.database } : {}) };
        env!.nodes.push(node);
      });
    }
    if (topology === 'redis-sentinel') env.sentinelName = s.master;
    // The protected counter: on the user's Redis when resource= names one, else on a Redis of our own.
    const r = s.endpoints.find((e) => e.role === 'resource');
    if (r) env.nodes.push(new ExternalNode('resource', 'resource', r.host, r.port));
    else if (o.resource) env.nodes.push(await createRedisNode({ id: 'resource', role: 'resource', port: await freePort(), root, persistence: 'none' }));
    return env;
  } catch (e) {
    await env?.down();
    throw new InconclusiveError(`the external ${topology} environment failed to start: ${(e as Error)?.message ?? String(e)}`, { cause: e });
  }
}
