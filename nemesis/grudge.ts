// Partitions as grudges (Jepsen's nemesis/partition): who cannot reach whom, over every server
// and client of a run. Drawn from the topology's structure, not from a catalogue of failures:
// the servers are split into one of Jepsen's shapes (one isolated, halves with a minority and a
// majority, a bridge node that sees both halves, a ring of overlapping majorities) and each
// client joins a side or reaches only k of the n servers (a client that reaches a minority, two
// clients that each reach a different set of votes). A grudge is plain data in the spec
// (`params.grudge`: "c1:n4,n5 n1:n3,n4", each item cutting the links between its first endpoint
// and each of the others, both ways), so it prints, replays and shrinks like any other spec.
import fc from 'fast-check';

/** endpoint → the endpoints it cannot reach (symmetric when cut). */
export type Grudge = Map<string, Set<string>>;

/** The shapes a split of the servers takes (`params.shape`, in words). */
export const SHAPES = ['isolated', 'halves', 'bridge', 'majorities-ring', 'clients'] as const;
export type Shape = typeof SHAPES[number];

/** What each shape does to the servers (`lockpick list`). */
export const SHAPE_SUMMARY: Record<Shape, string> = {
  isolated: 'one server cut from the others',
  halves: 'the servers split into a minority and a majority',
  bridge: 'two halves that cannot reach each other, and one server that reaches both',
  'majorities-ring': 'each server reaches only its nearest neighbours, a majority with itself (5 servers or more)',
  clients: 'the servers stay whole; only clients lose some of them',
};

export interface GrudgeDraw { shape: Shape; grudge: Grudge }

/** "c1:n4,n5 n1:n3" → the grudge; throws naming the item on anything else. */
export function parseGrudge(text: string): Grudge {
  const g: Grudge = new Map();
  for (const item of text.trim().split(/\s+/).filter(Boolean)) {
    const m = /^([A-Za-z0-9_.-]+):([A-Za-z0-9_.-]+(?:,[A-Za-z0-9_.-]+)*)$/.exec(item);
    if (!m) throw new Error(`grudge item '${item}' is not FROM:TO[,TO...] (e.g. "c1:n4,n5 n1:n3")`);
    const [, from, to] = m as unknown as [string, string, string];
    const set = g.get(from) ?? new Set<string>();
    for (const t of to.split(',')) if (t !== from) set.add(t);
    g.set(from, set);
  }
  if (g.size === 0) throw new Error('the grudge is empty: give at least one FROM:TO item (e.g. "c1:n4,n5")');
  return g;
}

/** The grudge as its spec text, each pair once, in a stable order. */
export function grudgeText(g: Grudge): string {
  const pairs = new Set<string>();
  const items: string[] = [];
  for (const [from, tos] of [...g].sort(([a], [b]) => cmp(a, b))) {
    const kept = [...tos].sort(cmp).filter((t) => !pairs.has(`${t}|${from}`));
    kept.forEach((t) => pairs.add(`${from}|${t}`));
    if (kept.length) items.push(`${from}:${kept.join(',')}`);
  }
  return items.join(' ');
}

/** Clients first (c1 < c2 < c10), then servers by id, numbers in order. */
function cmp(a: string, b: string): number {
  const ka = [a.startsWith('c') ? 0 : 1, a.replace(/\d+$/, ''), Number(/\d+$/.exec(a)?.[0] ?? 0)] as const;
  const kb = [b.startsWith('c') ? 0 : 1, b.replace(/\d+$/, ''), Number(/\d+$/.exec(b)?.[0] ?? 0)] as const;
  return ka[0] - kb[0] || ka[1].localeCompare(kb[1]) || ka[2] - kb[2];
}

/** The endpoint pairs a grudge cuts, each once. */
export function cutPairs(g: Grudge): [string, string][] {
  const seen = new Set<string>();
  const out: [string, string][] = [];
  for (const [a, tos] of g) for (const b of tos) {
    const k = a < b ? `${a}|${b}` : `${b}|${a}`;
    if (!seen.has(k)) { seen.add(k); out.push([a, b]); }
  }
  return out;
}

/** Which servers each server still reaches, for a shape over the servers in this order. */
function serverViews(shape: Shape, order: string[]): { views: string[][]; cut: [string, string][] } {
  const n = order.length;
  const all = (xs: string[]) => xs;
  if (shape === 'clients' || n < 2) return { views: [all(order)], cut: [] };
  const sides = (a: string[], b: string[]) => ({ views: [a, b], cut: a.flatMap((x) => b.map((y): [string, string] => [x, y])) });
  if (shape === 'isolated') return sides(order.slice(0, 1), order.slice(1));
  if (shape === 'halves') return sides(order.slice(0, Math.floor(n / 2)), order.slice(Math.floor(n / 2)));
  if (shape === 'bridge') {
    // Two halves that cannot reach each other, and one node between them that reaches both.
    const half = Math.floor((n - 1) / 2);
    const a = order.slice(0, half), bridge = order[half]!, b = order.slice(half + 1);
    return { views: [[...a, bridge], [bridge, ...b]], cut: a.flatMap((x) => b.map((y): [string, string] => [x, y])) };
  }
  // A ring of overlapping majorities: each server reaches the nearest ones on both sides, a majority with itself.
  const reach = Math.ceil(Math.floor(n / 2) / 2);
  const dist = (i: number, j: number) => Math.min(Math.abs(i - j), n - Math.abs(i - j));
  const views = order.map((_, i) => order.filter((__, j) => dist(i, j) <= reach));
  const cut: [string, string][] = [];
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) if (dist(i, j) > reach) cut.push([order[i]!, order[j]!]);
  return { views, cut };
}

export interface GrudgeOptions {
  servers: string[];       // every server a client or another server may reach (data nodes, sentinels, ...)
  clients: string[];
  /** Servers talk to each other over links the proxy can cut (replication, quorum): a split between servers means something. */
  peerLinks: boolean;
}

/** The shapes worth drawing here: server splits only with two servers or more; without peer links a split means nothing unless clients join it. */
export function shapesFor(o: GrudgeOptions): Shape[] {
  const n = o.servers.length;
  if (n < 2 || o.clients.length === 0) return [];
  return SHAPES.filter((s) => s === 'clients' || s === 'isolated' || s === 'halves' || (s === 'bridge' && n >= 3) || (s === 'majorities-ring' && n >= 5));
}

/**
 * A grudge over the run's servers and clients. Each client is placed: on one side of the server
 * split (it reaches that side's servers only), or reaching a random k of the n servers (weighted
 * to a minority and to a bare majority, where votes split), or everything. At least one endpoint
 * always loses a link it uses: a client placed away from some server, or a server split that
 * cuts peer links.
 */
export function grudgeArb(o: GrudgeOptions): fc.Arbitrary<GrudgeDraw> {
  const shapes = shapesFor(o);
  if (shapes.length === 0) throw new Error('no partition shape fits: needs two servers or more and a client');
  const n = o.servers.length;
  const majority = Math.floor(n / 2) + 1;
  const k = fc.oneof(
    { weight: 2, arbitrary: fc.constant(n - majority) },   // a minority: it can never win a quorum alone
    { weight: 2, arbitrary: fc.constant(majority) },       // a bare majority: two of them share few servers
    { weight: 1, arbitrary: fc.integer({ min: 1, max: n - 1 }) },
  ).map((x) => Math.min(n - 1, Math.max(1, x)));
  // Per client: 0 = reaches everything, 1 = joins a side of the split, 2 = reaches k servers.
  const place = fc.record({ how: fc.constantFrom(0, 1, 1, 2, 2), side: fc.nat(), k, pick: fc.shuffledSubarray(o.servers, { minLength: n, maxLength: n }) });
  return fc.record({
    shape: fc.constantFrom(...shapes),
    order: fc.shuffledSubarray(o.servers, { minLength: n, maxLength: n }),
    places: fc.array(place, { minLength: o.clients.length, maxLength: o.clients.length }),
  }).map(({ shape, order, places }) => {
    const { views, cut } = serverViews(shape, order);
    const g: Grudge = new Map();
    const add = (a: string, b: string) => { const s = g.get(a) ?? new Set<string>(); s.add(b); g.set(a, s); };
    if (o.peerLinks) for (const [a, b] of cut) add(a, b);
    o.clients.forEach((c, i) => {
      const p = places[i]!;
      let reach: string[] = o.servers;
      if (p.how === 1 && views.length > 1) reach = views[p.side % views.length]!;
      else if (p.how === 2 || (p.how === 1 && shape === 'clients')) reach = p.pick.slice(0, p.k);
      for (const s of o.servers) if (!reach.includes(s)) add(c, s);
    });
    if (g.size === 0) {
      // Nothing cut (every client reaches everything and the split has no links to cut): the first client reaches a minority.
      const c = o.clients[0]!;
      for (const s of order.slice(0, majority)) add(c, s);
    }
    return { shape, grudge: g };
  });
}

/** The grudge in words: "c1 reaches only n1,n2; n1,n2 | n3,n4,n5 cut". */
export function describeGrudge(g: Grudge, servers?: readonly string[]): string {
  const parts: string[] = [];
  const serverCuts: string[] = [];
  for (const [a, tos] of [...g].sort(([x], [y]) => cmp(x, y))) {
    const cut = [...tos].sort(cmp);
    if (/^c\d+$/.test(a) && servers) {
      const reach = servers.filter((s) => !tos.has(s));
      parts.push(`${a} reaches only ${reach.length ? reach.join(',') : 'no server'}`);
    } else if (/^c\d+$/.test(a)) parts.push(`${a} cut from ${cut.join(',')}`);
    else serverCuts.push(`${a}-/-${cut.join(',')}`);
  }
  if (serverCuts.length) parts.push(`servers cut ${serverCuts.join(' ')}`);
  return parts.join('; ');
}
