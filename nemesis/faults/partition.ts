// partition: cut links through the fault proxy; latency: slow them down.
import fc from 'fast-check';
import type { KindDef } from '../fault.ts';
import { at, beyondLease, lasting, paramsText, single, someClient, startAt, targetText } from '../words.ts';
import { cutLinks, slowLinks, type CutMode } from '../links.ts';
import { param } from '../spec.ts';
import { LINK_TARGETS, resolveLinks } from '../targets.ts';

export const partition: KindDef = {
  schema: {
    kind: 'partition',
    summary: 'cut network links (proxy disabled, or a black hole) until healed',
    target: LINK_TARGETS,
    targetRequired: true,
    params: {
      mode: { type: 'string', values: ['disable', 'blackhole'], doc: "'disable' (default): connections are closed and refused; 'blackhole': they stay open and nothing gets through" },
    },
  },
  create(spec, ctx, id) {
    let undo: (() => Promise<void>) | undefined;
    const mode = param<CutMode>(spec, 'mode', 'disable');
    return {
      async start() {
        const { links, shape } = await resolveLinks(spec, ctx);
        undo = await cutLinks(ctx.env, links, mode, id);
        return { shape, mode, links: links.map((l) => l.name) };
      },
      async stop() { await undo?.(); },
    };
  },
  // One server cut off from everyone, or one client cut off from every server.
  generate: (o) => single(fc.record({
    kind: fc.constant('partition'), at_ms: startAt(o), duration_ms: beyondLease(o),
    target: fc.oneof(fc.constantFrom(...(o.nodes.length ? o.nodes : ['n1'])), someClient(o).map((c) => `client:${c}`)),
  })),
  describe: (f) => `${at(f)}: partition ${targetText(f)}${lasting(f)}${paramsText(f)}`,
};

export const latency: KindDef = {
  schema: {
    kind: 'latency',
    summary: 'add delay (± jitter) to network links with a latency toxic',
    target: LINK_TARGETS,
    targetRequired: true,
    params: {
      latency_ms: { type: 'number', min: 0, required: true, doc: 'delay added to every chunk, per direction' },
      jitter_ms: { type: 'number', min: 0, doc: 'random ± variation (default 0)' },
      stream: { type: 'string', values: ['both', 'upstream', 'downstream'], doc: "direction: 'both' (default; a round trip grows by 2 × latency), 'upstream' (towards the server), 'downstream'" },
    },
  },
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
  generate: (o) => single(fc.record({
    kind: fc.constant('latency'), at_ms: startAt(o), duration_ms: beyondLease(o),
    target: fc.constantFrom(...(o.nodes.length ? o.nodes : ['n1'])),
    params: fc.record({ latency_ms: fc.integer({ min: 50, max: o.ttlMs }) }),
  })),
  describe: (f) => `${at(f)}: slow links of ${targetText(f)} by ${String(f.params?.latency_ms)} ms${lasting(f)}${paramsText(f, ['latency_ms'])}`,
};
