// partition: cut links through the fault proxy; latency: slow them down.
import fc from 'fast-check';
import type { KindDef } from '../fault.ts';
import { atPoint, finite, forDur } from '../band.ts';
import type { FaultSpec } from '../types.ts';
import { at, beyondLease, beyondSession, lasting, paramsText, single, someClient, someServer, startAt, targetText } from '../words.ts';
import { CUT_MODES, cutLinks, silencedClients, slowLinks, type CutMode } from '../links.ts';
import { MAX_FAULT_MS, param } from '../spec.ts';
import { LINK_TARGETS, resolveLinks } from '../targets.ts';
import { SHAPES, describeGrudge, grudgeArb, grudgeText, parseGrudge, shapesFor } from '../grudge.ts';
import { topologyDef } from '../../src/env/topologies.ts';

export const partition: KindDef = {
  schema: {
    kind: 'partition',
    summary: 'cut network links (proxy disabled, or a black hole) until healed',
    target: LINK_TARGETS,
    targetRequired: true,
    params: {
      mode: { type: 'string', values: CUT_MODES, doc: "'disable' (default): connections are closed and refused; 'blackhole': they stay open and nothing gets through; 'drop-replies': one way, requests get through and take effect, replies are lost" },
      point: { type: 'string', doc: "anchored (target 'client:<id>' only; lockpick run does these): from at_ms on, cut the client when it next reaches this named point (e.g. 'in-critical-section'); it goes on, and a lock without a lease holds through the cut" },
      grudge: { type: 'string', doc: "with target 'grudge': who cannot reach whom, items FROM:TO[,TO...] separated by spaces (\"c1:n4,n5 n1:n3\" cuts c1 from n4 and n5, and n1 from n3, both ways)" },
      shape: { type: 'string', values: SHAPES, doc: 'with a grudge: the shape it was drawn from, in words (isolated, halves, bridge, majorities-ring, clients)' },
    },
  },
  // Node targets cut whatever links reach the node: client links everywhere, node links where the environment has them.
  needs: ['client-link'],
  scope: 'server',   // client links too are shared: their proxies are named by client id, the same in every run
  silences: true,
  // 'disable' closes the cut connections (as Toxiproxy does); a black hole and lost replies keep them open.
  closesConnections: (value) => value.mode === 'disable',
  create(spec, ctx, id) {
    let undo: (() => Promise<void>) | undefined;
    const mode = param<CutMode>(spec, 'mode', 'disable');
    return {
      async start() {
        const { links, shape } = await resolveLinks(spec, ctx);
        undo = await cutLinks(ctx.env, links, mode, id);
        const silenced = silencedClients(ctx.env, links, mode);
        // Every link of theirs cut: none of their requests reaches a server (checkers/phantom-grant.ts).
        return { shape, mode, links: links.map((l) => l.name), ...(silenced.length ? { silenced, cut_off: silenced } : {}) };
      },
      async stop() { await undo?.(); },
    };
  },
  // Anchored: the client's links are cut (recorded as this kind's own start/stop) and it goes on
  // at once, told to hold for as long as the cut lasts: a client cut off does not know it, so it
  // keeps working (a lock without a lease holds through it, long enough for a session timeout to
  // end its hold at the server).
  anchored: {
    is: (f) => typeof f.params?.point === 'string' && typeof f.target === 'string' && f.target.startsWith('client:'),
    fire: (f, a) => a.startThenGo(f, f.duration_ms ?? 0),
  },
  // One server cut off from everyone, or one client cut off from every server. Where a hold
  // lives in a server session (TopologyDef.leased false: ZooKeeper, MariaDB), also a client cut off while it believes
  // it holds (anchored in its critical section), past the session timeout: the server ends
  // its session and frees the lock under it (a closed connection ends a MariaDB session at once).
  generate: (o) => {
    // Half the cuts leave connections open: a black hole (requests time out instead of being
    // refused) or a one-way cut that loses only the replies (the command took effect, the client
    // cannot know): what vote counting and unknown outcomes get wrong.
    const mode = fc.constantFrom<Record<string, string>>({}, {}, { mode: 'blackhole' }, { mode: 'drop-replies' });
    const timedBase = {
      kind: fc.constant('partition'), at_ms: startAt(o), duration_ms: beyondLease(o),
      target: fc.oneof(someServer(o), someClient(o).map((c) => `client:${c}`)),
    };
    // Records, not maps: a stored plan shrinks without its generation context.
    const timed: fc.Arbitrary<FaultSpec> = fc.oneof({ weight: 2, arbitrary: fc.record(timedBase) },
      { weight: 1, arbitrary: fc.record({ ...timedBase, params: fc.constant({ mode: 'blackhole' }) }) },
      { weight: 1, arbitrary: fc.record({ ...timedBase, params: fc.constant({ mode: 'drop-replies' }) }) });
    // Jepsen's partition shapes over every server and client (../grudge.ts): sides, bridges, rings, split votes.
    const servers = o.servers ?? o.nodes;
    const shaped = shapesFor({ servers, clients: o.clients, peerLinks: o.peerLinks ?? false }).length === 0 ? undefined
      : fc.record({ draw: grudgeArb({ servers, clients: o.clients, peerLinks: o.peerLinks ?? false }), at_ms: startAt(o), duration_ms: beyondLease(o), m: mode })
        .map(({ draw, at_ms, duration_ms, m }) => ({ kind: 'partition', at_ms, duration_ms, target: 'grudge', params: { grudge: grudgeText(draw.grudge), shape: draw.shape, ...m } }));
    const drawn = shaped ? fc.oneof(timed, shaped, shaped) : timed;
    if (topologyDef(o.topology)?.leased !== false) return single(drawn);
    const anchored = fc.record({
      kind: fc.constant('partition'), at_ms: fc.integer({ min: 0, max: Math.floor(o.ttlMs / 2) }),
      duration_ms: beyondSession(o),
      target: someClient(o).map((c) => `client:${c}`),
      params: fc.record({ point: fc.constantFrom(...(o.points.length ? o.points : ['in-critical-section'])) }),
    });
    return single(fc.oneof(drawn, anchored));
  },
  clientVerb: 'was cut off',
  band: (b) => `partition ${typeof b.value.shape === 'string' ? b.value.shape : b.who}${forDur(b)}${atPoint(b)}`,
  describe: (f) => (typeof f.params?.point === 'string'
    ? `from ${f.at_ms} ms: partition ${targetText(f)}${lasting(f)} the next time it reaches '${f.params.point}' (it goes on)${paramsText(f, ['point'])}`
    : f.target === 'grudge' && typeof f.params?.grudge === 'string'
      ? `${at(f)}: partition (${String(f.params.shape ?? 'grudge')}) ${grudgeWords(f.params.grudge)}${lasting(f)}${paramsText(f, ['grudge', 'shape'])}`
      : `${at(f)}: partition ${targetText(f)}${lasting(f)}${paramsText(f)}`),
};

export const latency: KindDef = {
  schema: {
    kind: 'latency',
    summary: 'add delay (± jitter) to network links with a latency toxic; drawn on one node, a majority of the data nodes (slow votes) or all of them, with jitter half the time',
    target: LINK_TARGETS,
    targetRequired: true,
    params: {
      latency_ms: { type: 'number', min: 0, max: MAX_FAULT_MS, required: true, doc: 'delay added to every chunk, per direction' },
      jitter_ms: { type: 'number', min: 0, max: MAX_FAULT_MS, doc: 'random ± variation (default 0)' },
      span: { type: 'string', values: ['one', 'majority', 'all'], doc: 'how many data nodes the targets were drawn as, in words (a majority: slow votes); the targets are what is slowed' },
      stream: { type: 'string', values: ['both', 'upstream', 'downstream'], doc: "direction: 'both' (default; a round trip grows by 2 × latency), 'upstream' (towards the server), 'downstream'" },
    },
  },
  needs: ['client-link'],
  scope: 'server',   // client links too are shared: their proxies are named by client id, the same in every run
  create(spec, ctx, id) {
    let undo: (() => Promise<void>) | undefined;
    const stream = param(spec, 'stream', 'both');
    const streams = stream === 'both' ? (['upstream', 'downstream'] as const) : ([stream] as ['upstream' | 'downstream']);
    return {
      async start() {
        const { links, shape } = await resolveLinks(spec, ctx);
        undo = await slowLinks(ctx.env, links, { latencyMs: param(spec, 'latency_ms', 0), jitterMs: param(spec, 'jitter_ms', 0), streams: [...streams] }, id);
        return { shape, links: links.map((l) => l.name) };
      },
      async stop() { await undo?.(); },
    };
  },
  // One node slowed, a majority of the data nodes (slow votes: a quorum lock's acquire takes
  // longer than its validity allows, or its votes arrive after their keys expired), or all of
  // them; with jitter half the time, so replies come back out of order and at uneven delays.
  generate: (o) => {
    const nodes = o.nodes.length ? o.nodes : ['n1'];
    const majority = Math.floor(nodes.length / 2) + 1;
    const spans: fc.WeightedArbitrary<{ target: string | string[]; span: string }>[] = [
      { weight: 2, arbitrary: fc.constantFrom(...nodes).map((n) => ({ target: n, span: 'one' })) },
    ];
    if (nodes.length >= 3) {
      spans.push({ weight: 2, arbitrary: fc.shuffledSubarray(nodes, { minLength: majority, maxLength: majority }).map((ns) => ({ target: [...ns].sort(), span: 'majority' })) });
    }
    if (nodes.length >= 2) spans.push({ weight: 1, arbitrary: fc.constant({ target: [...nodes], span: 'all' }) });
    return single(fc.record({
      at_ms: startAt(o), duration_ms: beyondLease(o), t: fc.oneof(...spans),
      latency: fc.integer({ min: 50, max: o.ttlMs }), jitter: fc.option(fc.integer({ min: 10, max: 100 }), { freq: 2 }),
    }).map(({ at_ms, duration_ms, t, latency: ms, jitter }) => ({
      kind: 'latency', at_ms, duration_ms, target: t.target,
      // Jitter as a share of the delay (10 to 100 %), at least 1 ms.
      params: { latency_ms: ms, ...(jitter === null ? {} : { jitter_ms: Math.max(1, Math.round((ms * jitter) / 100)) }), ...(t.span === 'one' ? {} : { span: t.span }) },
    })));
  },
  band: (b) => `slow links of ${spanWords(b.params.span, b.who)} by ${finite(b.params.latency_ms) ?? '?'} ms${jitterWords(b.params.jitter_ms)}${forDur(b)}`,
  describe: (f) => `${at(f)}: slow links of ${spanWords(f.params?.span, targetText(f))} by ${String(f.params?.latency_ms)} ms${jitterWords(f.params?.jitter_ms)}${lasting(f)}${paramsText(f, ['latency_ms', 'jitter_ms', 'span'])}`,
};

/** "a majority of the data nodes (n1, n3, n4)", "all data nodes (...)", or the targets as they are. */
function spanWords(span: unknown, who: string): string {
  return span === 'majority' ? `a majority of the data nodes (${who})` : span === 'all' ? `all data nodes (${who})` : who;
}

/** " ± 40 ms" when the spec has jitter. */
function jitterWords(j: unknown): string {
  const ms = finite(j);
  return ms ? ` ± ${ms} ms` : '';
}

/** A grudge in words, or the text as given when it does not parse (the nemesis refuses it then). */
function grudgeWords(text: string): string {
  try { return describeGrudge(parseGrudge(text)); } catch { return `grudge "${text}"`; }
}
