// Cutting and slowing links through the fault proxy, only via
// toxiproxy-node-client. Cuts are reference-counted per environment, so two
// overlapping faults on one link heal correctly: the link comes back when the
// last of them stops.
import type { Toxiproxy } from 'toxiproxy-node-client';
import { faultProxyClient } from '../src/env/fault-proxy-client.ts';
import type { Environment, Link } from '../src/env/types.ts';

/** Every toxic the nemesis adds starts with this, so a blanket heal can find them. */
export const TOXIC_PREFIX = 'nemesis-';

interface LinkState { tp: Toxiproxy; cuts: Map<string, number> }
const states = new WeakMap<Environment, LinkState>();

function state(env: Environment): LinkState {
  let s = states.get(env);
  if (!s) {
    if (!env.proxyUrl) {
      throw new Error('nemesis: this environment has no fault proxy (env.proxyUrl is empty), so links cannot be cut or slowed; start it with the proxy enabled');
    }
    s = { tp: faultProxyClient(env.proxyUrl), cuts: new Map() };
    states.set(env, s);
  }
  return s;
}

async function setEnabled(tp: Toxiproxy, name: string, enabled: boolean): Promise<void> {
  const p = await tp.get(name);
  if (p.enabled !== enabled) await p.update({ enabled, listen: p.listen, upstream: p.upstream });
}

/**
 * 'disable': the proxy refuses and closes connections. 'blackhole': connections stay open, nothing
 * gets through (timeout toxic 0, both ways). 'drop-replies': one way, as Jepsen's grudges drop
 * packets from one side only: requests reach the server and take effect, its replies never come
 * back, so the client times out on commands that did happen (the unknown outcome a lock must not
 * read as "not done" or "done").
 */
export type CutMode = 'disable' | 'blackhole' | 'drop-replies';
export const CUT_MODES: readonly CutMode[] = ['disable', 'blackhole', 'drop-replies'];

/** The proxy streams a toxic-based cut holds (upstream: towards the server). */
const HELD_STREAMS: Record<Exclude<CutMode, 'disable'>, readonly ('upstream' | 'downstream')[]> = {
  blackhole: ['upstream', 'downstream'],
  'drop-replies': ['downstream'],
};

/**
 * The clients a cut keeps from every server: each of their links (of `channel` alone, when given:
 * the connection a lease's keep-alives take) is among `cut`. Recorded as `silenced` on the fault's
 * start (checkers/silences.ts). None when only replies are dropped: requests still arrive.
 */
export function silencedClients(env: Environment, cut: readonly Link[], mode: CutMode, channel?: string): string[] {
  if (mode === 'drop-replies') return [];
  const gone = new Set(cut.map((l) => l.name));
  const all = new Map<string, boolean>();
  for (const l of env.links) {
    if (!l.from.startsWith('client:') || (channel !== undefined && l.channel !== channel)) continue;
    const c = l.from.slice('client:'.length);
    all.set(c, (all.get(c) ?? true) && gone.has(l.name));
  }
  return [...all].filter(([, every]) => every).map(([c]) => c);
}

/** Cuts `links`; returns the undo. Overlapping cuts of one link nest. */
export async function cutLinks(env: Environment, links: Link[], mode: CutMode, tag: string): Promise<() => Promise<void>> {
  const s = state(env);
  const done: Link[] = [];
  const undo = async () => {
    for (const l of done.splice(0).reverse()) {
      if (mode !== 'disable') {
        await removeToxics(s.tp, l.name, `${TOXIC_PREFIX}${tag}-`);
        continue;
      }
      const n = (s.cuts.get(l.name) ?? 1) - 1;
      if (n > 0) { s.cuts.set(l.name, n); continue; }
      s.cuts.delete(l.name);
      await setEnabled(s.tp, l.name, true);
    }
  };
  try {
    for (const l of links) {
      if (mode !== 'disable') {
        const p = await s.tp.get(l.name);
        done.push(l);
        for (const stream of HELD_STREAMS[mode]) {
          await p.addToxic({ name: `${TOXIC_PREFIX}${tag}-hole-${stream}`, type: 'timeout', stream, toxicity: 1, attributes: { timeout: 0 } });
        }
      } else {
        s.cuts.set(l.name, (s.cuts.get(l.name) ?? 0) + 1);
        done.push(l);
        await setEnabled(s.tp, l.name, false);
      }
    }
  } catch (e) {
    await undo().catch(() => {});
    throw e;
  }
  return undo;
}

export interface LatencyOptions { latencyMs: number; jitterMs: number; streams: ('upstream' | 'downstream')[] }

/** Adds a latency toxic on each link; returns the undo. */
export async function slowLinks(env: Environment, links: Link[], o: LatencyOptions, tag: string): Promise<() => Promise<void>> {
  const s = state(env);
  const done: string[] = [];
  const undo = async () => {
    for (const name of done.splice(0)) await removeToxics(s.tp, name, `${TOXIC_PREFIX}${tag}-`);
  };
  try {
    for (const l of links) {
      const p = await s.tp.get(l.name);
      done.push(l.name);
      for (const stream of o.streams) {
        await p.addToxic({ name: `${TOXIC_PREFIX}${tag}-latency-${stream}`, type: 'latency', stream, toxicity: 1, attributes: { latency: o.latencyMs, jitter: o.jitterMs } });
      }
    }
  } catch (e) {
    await undo().catch(() => {});
    throw e;
  }
  return undo;
}

interface RawProxy { enabled?: boolean; toxics?: { name: string }[] }

async function removeToxics(tp: Toxiproxy, proxyName: string, prefix: string, raw?: RawProxy): Promise<void> {
  raw ??= (await tp.getApi().get(`${tp.host}/proxies/${encodeURIComponent(proxyName)}`)).data as RawProxy;
  const mine = (raw.toxics ?? []).filter((t) => t.name.startsWith(prefix));
  if (mine.length === 0) return;
  const p = await tp.get(proxyName);
  for (const t of mine) await (await p.getToxic(t.name)).remove();
}

/**
 * Blanket heal: every link of `env` enabled, every nemesis toxic removed. The proxies' state is
 * read in one request (GET /proxies, each with its toxics), and only a link that is off or holds a
 * nemesis toxic is written: after most runs none is, and a heal between runs was three requests a
 * link (45 for a 3-member cluster's 15 links), each on a connection of its own.
 */
export async function healLinks(env: Environment): Promise<void> {
  if (!env.proxyUrl) return;
  const s = state(env);
  s.cuts.clear();
  const all = (await s.tp.getApi().get(`${s.tp.host}/proxies`)).data as Record<string, RawProxy | undefined>;
  for (const l of env.links) {
    const raw = all[l.name];
    // A link the listing lacks (a Toxiproxy server that lost it): asked for by name, as before, so its error is the one seen.
    if (raw === undefined || raw.enabled !== true) await setEnabled(s.tp, l.name, true);
    await removeToxics(s.tp, l.name, TOXIC_PREFIX, raw);
  }
}
