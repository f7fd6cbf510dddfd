// One etcd member: `etcd` (Debian's etcd-server, 3.4) from a private data dir on
// loopback ports; with several members the peer URLs are where the proxy's peer
// links point (peer-routing.ts redirects a member's uid's traffic to them). Fast
// timing (heartbeat 50 ms, election 500 ms) so a lease of 1 s is allowed and an
// election takes about a second. Ready = /health says true (a leader is elected).
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { requireBinary } from './binaries.ts';
import { shimEnv } from './clock.ts';
import { ServerNode } from './node.ts';
import { chownTree } from './peer-routing.ts';
import { startAndWait } from './wait.ts';

export const ETCD_HEARTBEAT_MS = 50;
export const ETCD_ELECTION_MS = 500;

export interface EtcdPorts { client: number; peer: number }

/** Whether the member at `port` answers /health with a leader elected. */
export async function etcdHealthy(port: number, host = '127.0.0.1'): Promise<boolean> {
  const r = await fetch(`http://${host}:${port}/health`, { signal: AbortSignal.timeout(1000) });
  return r.ok && (await r.json() as { health?: string }).health === 'true';
}

/** The member's own status (gRPC gateway): its id and the leader's ('' while none: JSON leaves a zero out), or undefined when it does not answer. */
export async function etcdStatus(port: number, host = '127.0.0.1'): Promise<{ member: string; leader: string } | undefined> {
  try {
    const r = await fetch(`http://${host}:${port}/v3/maintenance/status`, { method: 'POST', body: '{}', signal: AbortSignal.timeout(700) });
    const s = await r.json() as { header?: { member_id?: string }; leader?: string };
    return s.header?.member_id ? { member: s.header.member_id, leader: s.leader ?? '' } : undefined;
  } catch {
    return undefined;
  }
}

/** etcd's own defaults for the raft timing flags (etcd 3.4 `etcd --help`). */
const ETCD_DEFAULT_HEARTBEAT_MS = 100;
const ETCD_DEFAULT_ELECTION_MS = 1000;

/** A member's raft timing as its own command line says (expvar's `cmdline` at /debug/vars), or etcd's defaults where a flag is absent. */
export interface EtcdTiming { heartbeatMs: number; electionMs: number; from: 'flags' | 'defaults' }

/** The value of `--name VALUE` or `--name=VALUE` in a command line. */
function flag(cmdline: readonly string[], name: string): string | undefined {
  for (let i = 0; i < cmdline.length; i++) {
    const a = cmdline[i]!.replace(/^--?/, '-');
    if (a === `-${name}`) return cmdline[i + 1];
    if (a.startsWith(`-${name}=`)) return a.slice(name.length + 2);
  }
  return undefined;
}

/**
 * The member's heartbeat and election timeout from its own command line (/debug/vars on the
 * client port); etcd's defaults where it gives none (an ETCD_* variable or a config file could
 * set others: `from` says which). Undefined when the member does not answer.
 */
export async function etcdTiming(port: number, host = '127.0.0.1'): Promise<EtcdTiming | undefined> {
  try {
    const r = await fetch(`http://${host}:${port}/debug/vars`, { signal: AbortSignal.timeout(1000) });
    const cmdline = ((await r.json()) as { cmdline?: unknown }).cmdline;
    if (!Array.isArray(cmdline)) return undefined;
    const hb = Number(flag(cmdline as string[], 'heartbeat-interval'));
    const el = Number(flag(cmdline as string[], 'election-timeout'));
    const given = hb > 0 || el > 0;
    return { heartbeatMs: hb > 0 ? hb : ETCD_DEFAULT_HEARTBEAT_MS, electionMs: el > 0 ? el : ETCD_DEFAULT_ELECTION_MS, from: given ? 'flags' : 'defaults' };
  } catch {
    return undefined;
  }
}

/**
 * The shortest lease the cluster grants, in ms: a lease of TTL 1 s granted and revoked at once;
 * the leader raises a shorter TTL than its minimum (1.5 election timeouts, in whole seconds) to it.
 */
export async function etcdLeaseMinMs(port: number, host = '127.0.0.1'): Promise<number | undefined> {
  const call = async (what: string, body: object) => {
    const r = await fetch(`http://${host}:${port}/v3/lease/${what}`, { method: 'POST', body: JSON.stringify(body), signal: AbortSignal.timeout(2000) });
    return (await r.json()) as { ID?: string; TTL?: string };
  };
  try {
    const g = await call('grant', { TTL: 1 });
    if (g.ID) await call('revoke', { ID: g.ID }).catch(() => {});
    const ttl = Number(g.TTL);
    return ttl > 0 ? ttl * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A member's command line (after the binary): where it listens (`listen`: its own address, or
 * 0.0.0.0 in a container) and how the others and its clients reach it (`host`, each member's).
 */
export function etcdArgs(o: { id: string; dataDir: string; listen: string; host(id: string): string; ports(id: string): EtcdPorts; cluster: string[]; token: string }): string[] {
  const url = (h: string, p: number) => `http://${h}:${p}`;
  const me = o.ports(o.id);
  return [
    '--name', o.id, '--data-dir', o.dataDir,
    '--listen-client-urls', url(o.listen, me.client), '--advertise-client-urls', url(o.host(o.id), me.client),
    '--listen-peer-urls', url(o.listen, me.peer), '--initial-advertise-peer-urls', url(o.host(o.id), me.peer),
    '--initial-cluster', o.cluster.map((id) => `${id}=${url(o.host(id), o.ports(id).peer)}`).join(','),
    '--initial-cluster-state', 'new', '--initial-cluster-token', o.token,
    '--heartbeat-interval', String(ETCD_HEARTBEAT_MS), '--election-timeout', String(ETCD_ELECTION_MS),
    '--logger', 'zap', '--log-outputs', 'stderr',
  ];
}

export function createEtcdNode(o: { id: string; root: string; ports: EtcdPorts; cluster: { id: string; ports: EtcdPorts }[]; uid?: number }): ServerNode {
  const bin = requireBinary('etcd');
  const dir = path.join(o.root, o.id);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const logFile = path.join(dir, 'etcd.log');
  const clockFile = path.join(dir, 'clock-offset');
  const portsOf = (id: string) => o.cluster.find((m) => m.id === id)!.ports;
  const args = etcdArgs({
    id: o.id, dataDir: path.join(dir, 'data'), listen: '127.0.0.1', host: () => '127.0.0.1', ports: portsOf,
    cluster: o.cluster.map((m) => m.id), token: path.basename(o.root),
  });
  return new ServerNode(o.id, 'etcd', o.ports.client, dir, logFile, clockFile, async () => {
    if (o.uid !== undefined) chownTree(dir, o.uid);
    return startAndWait(
      { name: `etcd ${o.id} (127.0.0.1:${o.ports.client})`, command: bin, args, cwd: dir, env: shimEnv(clockFile), logFile, uid: o.uid },
      { dir },
      () => etcdHealthy(o.ports.client),
      30_000,
    );
  });
}
