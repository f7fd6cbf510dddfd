// Putting the node→node links of a multi-node topology behind the proxy
// (peer-routing.ts): one uid per node, one proxy + nat rule per directed link.
import { chmodSync } from 'node:fs';
import type { LocalEnvironment } from './environment.ts';
import { PeerRouter } from './peer-routing.ts';

export interface PeerNode { id: string; ports: { port: number; suffix?: string }[] }

/** Every directed link a→b (one per port of b) for the ordered pairs with talks(a, b): what gets a proxy of its own. */
export function* peerLinks(nodes: PeerNode[], talks: (a: string, b: string) => boolean): Generator<{ from: string; to: string; port: number; suffix: string }> {
  for (const a of nodes) {
    for (const b of nodes) {
      if (a.id === b.id || !talks(a.id, b.id)) continue;
      for (const p of b.ports) yield { from: a.id, to: b.id, port: p.port, suffix: p.suffix ?? '' };
    }
  }
}

let warned = false;

/**
 * Creates the links a→b (for each of b's ports) for every ordered pair with
 * talks(a, b). Returns the uid each node must run as (empty when peer links
 * cannot be proxied here; they are then direct, with a warning).
 */
export async function routePeers(env: LocalEnvironment, nodes: PeerNode[], talks: (a: string, b: string) => boolean): Promise<Map<string, number>> {
  const uids = new Map<string, number>();
  const { router, why } = await PeerRouter.create();
  if (!router) {
    if (!warned) console.error(`lockpick: warning: node-to-node links are NOT behind the fault proxy (${why}); client links are.`);
    warned = true;
    return uids;
  }
  env.cleanups.push(() => router.remove());
  // Nodes run as their own uids: they must be able to reach their dirs inside the (still unlistable) root.
  chmodSync(env.root, 0o711);
  nodes.forEach((n, i) => uids.set(n.id, router.uid(i)));
  await Promise.all([...peerLinks(nodes, talks)].map((l) => router.route(env.linkTable, { id: l.from, uid: uids.get(l.from)! }, { id: l.to, port: l.port }, l.suffix)));
  return uids;
}
