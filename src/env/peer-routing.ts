// Node→node links through the fault proxy, without touching server configs.
//
// Servers announce and dial each other's REAL ports (Sentinel insists: it
// re-points replicas at the address it knows, so a replica cannot be told to
// replicate through its own proxy port). Instead each server of a multi-node
// topology runs under its own uid, and an iptables nat rule redirects what
// that uid sends to a peer's real port to the proxy of that one link:
//   -m owner --uid-owner <uid of n2> -d 127.0.0.1 --dport <n1 port> -j DNAT --to <proxy of n2->n1>
// So every node→node connection goes through a per-(from, to) Toxiproxy proxy
// and can be cut, slowed or reset on its own. Needs root and iptables; without
// them peer links stay direct (and are not listed in env.links).
import { execFile } from 'node:child_process';
import { chownSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Link } from './types.ts';
import type { LinkTable } from './links.ts';
import { isAlive } from './procfs.ts';

const run = promisify(execFile);
const UID_BASE = 1_900_000_000;
const CHAIN_PREFIX = 'LOCKPICK-';
let seq = 0;

async function iptables(...args: string[]): Promise<string> {
  const { stdout } = await run('iptables', ['-w', '5', '-t', 'nat', ...args]);
  return stdout;
}

export class PeerRouter {
  private constructor(readonly chain: string, private readonly n: number) {}

  /** A router with its own nat chain, or undefined (with the reason) when not root / no iptables. */
  static async create(): Promise<{ router?: PeerRouter; why?: string }> {
    if (process.getuid?.() !== 0) return { why: 'not running as root' };
    const n = ++seq;
    const chain = `${CHAIN_PREFIX}${process.pid}-${n}`;
    try {
      await iptables('-N', chain);
      await iptables('-I', 'OUTPUT', '-j', chain);
    } catch (e) {
      await iptables('-X', chain).catch(() => {});
      return { why: `iptables nat is not usable (${String((e as Error).message).split('\n')[0]})` };
    }
    return { router: new PeerRouter(chain, n) };
  }

  /** The uid node number `index` (0-based) of this environment runs as. */
  uid(index: number): number {
    return UID_BASE + (this.n % 1000) * 100 + index;
  }

  /** Creates the proxy from→to (upstream: to's real port) and the rule sending from's traffic into it. */
  async route(links: LinkTable, from: { id: string; uid: number }, to: { id: string; port: number }, suffix = ''): Promise<Link> {
    const link = await links.add(from.id, `${to.id}${suffix}`, { id: to.id, host: '127.0.0.1', port: to.port });
    // The link is "to" the node itself; the suffix only keeps proxy names unique (e.g. ZooKeeper's election port).
    (link as { to: string }).to = to.id;
    await iptables(
      '-A', this.chain, '-p', 'tcp', '-d', '127.0.0.1', '--dport', String(to.port),
      '-m', 'owner', '--uid-owner', String(from.uid),
      '-j', 'DNAT', '--to-destination', `127.0.0.1:${link.listen.port}`,
    );
    return link;
  }

  async remove(): Promise<void> {
    await removeChain(this.chain);
  }
}

async function removeChain(chain: string): Promise<void> {
  await iptables('-D', 'OUTPUT', '-j', chain).catch(() => {});
  await iptables('-F', chain).catch(() => {});
  await iptables('-X', chain).catch(() => {});
}

/** Removes nat chains left by lockpick processes that are gone. */
export async function cleanupLeftoverChains(log: (m: string) => void): Promise<void> {
  if (process.getuid?.() !== 0) return;
  let rules: string;
  try {
    rules = await iptables('-S');
  } catch {
    return;
  }
  for (const m of rules.matchAll(new RegExp(`^-N (${CHAIN_PREFIX}(\\d+)-\\d+)$`, 'gm'))) {
    const [, chain, pid] = m;
    if (Number(pid) === process.pid || isAlive(Number(pid))) continue;
    await removeChain(chain!);
    log(`lockpick: removed leftover iptables chain ${chain} (lockpick pid ${pid} is gone)`);
  }
}

/** Hands a node's private dir (and everything in it) to the uid it runs as. */
export function chownTree(dir: string, uid: number, gid = uid): void {
  chownSync(dir, uid, gid);
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) chownTree(p, uid, gid);
    else chownSync(p, uid, gid);
  }
}
