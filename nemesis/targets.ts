// Turning a spec's `target` into the nodes, links or clients it means.
// Shapes ('primary', 'minority', ...) are resolved when the fault starts,
// against the live topology, so a replayed schedule means the same thing.
import type { Link, NodeHandle } from '../src/env/types.ts';
import type { FaultSpec, NemesisContext } from './types.ts';
import { currentLeader, currentPrimary, replicasOf } from './roles.ts';
import { dataRoles } from '../src/env/topologies.ts';
import { FaultSpecError, param, targets } from './spec.ts';
import { cutPairs, describeGrudge, parseGrudge } from './grudge.ts';

export const NODE_TARGETS = "node ids ('n1', ['n1','n3']), 'all' (every server but sentinels and the resource), 'primary' or 'replicas' (redis-sentinel), 'leader' or 'followers' (a zookeeper ensemble)";
export const LINK_TARGETS =
  "node ids (isolate them: every link crossing their boundary), 'primary' (isolate it), 'client:<id>' (all of that client's links), " +
  "['client:<id>', 'n2'] (that client from those nodes), 'primary-replicas' (replication links), 'minority'/'majority' (split the servers, clients untouched), " +
  "'grudge' (params.grudge says who cannot reach whom: \"c1:n4,n5 n1:n3\")";

function bad(spec: FaultSpec, msg: string): never {
  throw new FaultSpecError(`fault spec (kind '${spec.kind}', at_ms ${spec.at_ms}): target ${JSON.stringify(spec.target)}: ${msg}`);
}

function nodeById(ctx: NemesisContext, spec: FaultSpec, id: string): NodeHandle {
  const n = ctx.env.nodes.find((x) => x.id === id);
  if (!n) bad(spec, `no node '${id}' (nodes: ${ctx.env.nodes.map((x) => x.id).join(', ')})`);
  return n;
}

/** The nodes a node-directed fault (pause, kill, clock) acts on. */
export async function resolveNodes(spec: FaultSpec, ctx: NemesisContext): Promise<NodeHandle[]> {
  const out = new Map<string, NodeHandle>();
  for (const t of targets(spec)) {
    if (t === 'all') {
      // The topology's data servers (not Sentinels, not the resource node).
      const data = dataRoles(ctx.env.topology);
      for (const n of ctx.env.nodes) if (data.includes(n.role)) out.set(n.id, n);
    } else if (t === 'primary' || t === 'replicas') {
      const p = await currentPrimary(ctx.env);
      for (const n of t === 'primary' ? [p] : replicasOf(ctx.env, p)) out.set(n.id, n);
    } else if (t === 'leader' || t === 'followers') {
      const l = await currentLeader(ctx.env);
      const data = dataRoles(ctx.env.topology);
      for (const n of t === 'leader' ? [l] : ctx.env.nodes.filter((x) => data.includes(x.role) && x.id !== l.id)) out.set(n.id, n);
    } else {
      const n = nodeById(ctx, spec, t);
      out.set(n.id, n);
    }
  }
  if (out.size === 0) bad(spec, 'matches no node');
  return [...out.values()];
}

/** The client ids a client fault acts on ('c1' or 'client:c1'; 'all' = every client). */
export function resolveClients(spec: FaultSpec, ctx: NemesisContext): string[] {
  const ids = ctx.clients.ids();
  const out = new Set<string>();
  for (const t of targets(spec)) {
    if (t === 'all') { ids.forEach((i) => out.add(i)); continue; }
    const id = t.startsWith('client:') ? t.slice('client:'.length) : t;
    if (!ids.includes(id)) bad(spec, `no client '${id}' (clients: ${ids.join(', ') || 'none'})`);
    out.add(id);
  }
  if (out.size === 0) bad(spec, 'matches no client');
  return [...out];
}

/** Makes sure every link of `clientId` exists (they are created when a client first connects). */
async function clientLinks(ctx: NemesisContext, clientId: string): Promise<Link[]> {
  await ctx.env.clientEndpoints(clientId);
  if (ctx.env.nodes.some((n) => n.role === 'sentinel')) await ctx.env.sentinelEndpoints?.(clientId);
  return ctx.env.links.filter((l) => l.from === `client:${clientId}`);
}

/** Links between two sets of endpoints, either direction. */
function between(links: Link[], a: Set<string>, b: Set<string>): Link[] {
  return links.filter((l) => (a.has(l.from) && b.has(l.to)) || (b.has(l.from) && a.has(l.to)));
}

/** The links a partition or latency fault acts on, and what they mean in words. */
export async function resolveLinks(spec: FaultSpec, ctx: NemesisContext): Promise<{ links: Link[]; shape: string }> {
  const env = ctx.env;
  const ts = targets(spec);
  const clients = ts.filter((t) => t.startsWith('client:')).map((t) => t.slice('client:'.length));
  const rest = ts.filter((t) => !t.startsWith('client:'));
  const known = new Set(ctx.clients.ids());
  for (const c of clients) if (!known.has(c)) bad(spec, `no client '${c}' (clients: ${[...known].join(', ') || 'none'})`);

  let links: Link[];
  let shape: string;
  if (rest.includes('grudge')) {
    if (ts.length > 1) bad(spec, "'grudge' stands alone (params.grudge names the endpoints)");
    let g;
    try { g = parseGrudge(param(spec, 'grudge', '')); } catch (e) { bad(spec, (e as Error).message); }
    const name = (x: string) => (/^c\d+$/.test(x) ? `client:${x}` : x);
    for (const [a, b] of cutPairs(g)) {
      for (const x of [a, b]) {
        if (/^c\d+$/.test(x)) { if (!known.has(x)) bad(spec, `no client '${x}' (clients: ${[...known].join(', ') || 'none'})`); await clientLinks(ctx, x); }
        else nodeById(ctx, spec, x);
      }
    }
    const pairs = new Set(cutPairs(g).flatMap(([a, b]) => [`${name(a)}|${name(b)}`, `${name(b)}|${name(a)}`]));
    links = env.links.filter((l) => pairs.has(`${l.from}|${l.to}`));
    shape = `${param(spec, 'shape', 'grudge')}: ${describeGrudge(g)}`;
  } else if (rest.includes('primary-replicas')) {
    if (ts.length > 1) bad(spec, "'primary-replicas' stands alone");
    const p = await currentPrimary(env);
    const replicas = new Set(replicasOf(env, p).map((n) => n.id));
    links = between(env.links, new Set([p.id]), replicas);
    shape = `primary ${p.id} | replicas ${[...replicas].join(',')}`;
  } else if (rest.includes('minority') || rest.includes('majority')) {
    if (ts.length > 1) bad(spec, `'${rest[0]}' stands alone`);
    const members = env.nodes.filter((n) => n.role !== 'resource').map((n) => n.id);
    if (members.length < 2) bad(spec, `needs at least 2 servers to split, this topology has ${members.length}`);
    const minority = new Set(members.slice(0, Math.floor((members.length - 1) / 2) || 1));
    const majority = new Set(members.filter((m) => !minority.has(m)));
    links = between(env.links, minority, majority);
    shape = `minority ${[...minority].join(',')} | majority ${[...majority].join(',')}`;
  } else {
    const nodes = new Set<string>();
    for (const t of rest) {
      if (t === 'primary') nodes.add((await currentPrimary(env)).id);
      else if (t === 'leader') nodes.add((await currentLeader(env)).id);
      else nodes.add(nodeById(ctx, spec, t).id);
    }
    // Isolating a node also cuts clients that have not connected yet: make all their links now.
    for (const c of nodes.size > 0 ? ctx.clients.ids() : clients) await clientLinks(ctx, c);
    const clientSide = new Set(clients.map((c) => `client:${c}`));
    if (clientSide.size > 0 && nodes.size > 0) {
      links = between(env.links, clientSide, nodes);
      shape = `clients ${clients.join(',')} | nodes ${[...nodes].join(',')}`;
    } else if (clientSide.size > 0) {
      links = env.links.filter((l) => clientSide.has(l.from));
      shape = `clients ${clients.join(',')} | everything`;
    } else {
      links = env.links.filter((l) => nodes.has(l.from) !== nodes.has(l.to));
      shape = `isolated ${[...nodes].join(',')} | the rest`;
    }
  }
  if (links.length === 0) {
    bad(spec, `matches no link (${shape}); links are: ${env.links.map((l) => l.name).join(', ') || 'none yet'}`);
  }
  return { links, shape };
}
