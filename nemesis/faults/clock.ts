// Server wall-clock faults through the clock shim: bump (jump by Δ), strobe
// (flip between +Δ and the old offset), reset (back to the true time).
import type { NodeHandle } from '../../src/env/types.ts';
import fc from 'fast-check';
import type { KindDef, FaultGenOptions } from '../fault.ts';
import type { FaultSpec } from '../types.ts';
import { at, beyondLease, lasting, single, someNode, startAt, targetText } from '../words.ts';
import { MAX_FAULT_MS, param } from '../spec.ts';
import { NODE_TARGETS, resolveNodes } from '../targets.ts';
import { finite, forDur, signedMs } from '../band.ts';

const DELTA = { type: 'number', required: true, doc: 'wall-clock jump in ms (negative = backwards)' } as const;

/** Larger than the lease: a key set before the jump has expired after it. */
const bigJump = (o: FaultGenOptions) => fc.integer({ min: o.ttlMs + 200, max: 4 * o.ttlMs });

/** Remembers each node's offset so stop() puts it back. */
function offsets(nodes: NodeHandle[]): Map<NodeHandle, number> {
  return new Map(nodes.map((n) => [n, n.clockOffsetMs()]));
}

async function restore(saved: Map<NodeHandle, number>): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const [n, ms] of saved) { await n.setClockOffsetMs(ms); out[n.id] = ms; }
  saved.clear();
  return out;
}

export const clockBump: KindDef = {
  schema: {
    kind: 'clock-bump',
    summary: "jump servers' wall clocks by delta_ms (e.g. one Redlock master); healing puts them back",
    target: NODE_TARGETS,
    targetRequired: true,
    params: { delta_ms: DELTA },
  },
  aliases: ['clock'],
  needs: ['clock'],
  movesClock: 'wall',
  scope: 'server',
  breaks: 'server-clock',
  create(spec, ctx) {
    let saved = new Map<NodeHandle, number>();
    return {
      async start() {
        const nodes = await resolveNodes(spec, ctx);
        saved = offsets(nodes);
        const now: Record<string, number> = {};
        for (const [n, ms] of saved) { now[n.id] = ms + param(spec, 'delta_ms', 0); await n.setClockOffsetMs(now[n.id]!); }
        return { offsets_ms: now };
      },
      async stop() { return { offsets_ms: await restore(saved) }; },
    };
  },
  // A forward jump larger than the lease expires the key at once (Redis keeps absolute expiry times).
  generate: (o) => single(fc.record({ kind: fc.constant('clock-bump'), at_ms: startAt(o), target: someNode(o), params: fc.record({ delta_ms: bigJump(o) }) })),
  band: (b) => `clock of ${b.who} jumps ${signedMs(finite(b.params.delta_ms) ?? 0)}${forDur(b)}`,
  describe: (f) => `${at(f)}: jump node ${targetText(f)}'s wall clock by ${String(f.params?.delta_ms)} ms${lasting(f)}`,
};

export const clockStrobe: KindDef = {
  schema: {
    kind: 'clock-strobe',
    summary: "flip servers' wall clocks between +delta_ms and their offset every period_ms",
    target: NODE_TARGETS,
    targetRequired: true,
    params: { delta_ms: DELTA, period_ms: { type: 'number', min: 1, max: MAX_FAULT_MS, doc: 'time between flips (default 100)' } },
  },
  needs: ['clock'],
  movesClock: 'wall',
  scope: 'server',
  breaks: 'server-clock',
  create(spec, ctx) {
    let saved = new Map<NodeHandle, number>();
    let timer: NodeJS.Timeout | undefined;
    let flips = 0;
    let busy: Promise<unknown> = Promise.resolve();
    return {
      async start() {
        saved = offsets(await resolveNodes(spec, ctx));
        const flip = () => {
          flips++;
          const on = flips % 2 === 1;
          busy = busy.then(() => Promise.all([...saved].map(([n, ms]) => n.setClockOffsetMs(on ? ms + param(spec, 'delta_ms', 0) : ms)))).catch(() => {});
        };
        flip();
        timer = setInterval(flip, param(spec, 'period_ms', 100));
        return { nodes: [...saved.keys()].map((n) => n.id) };
      },
      async stop() {
        clearInterval(timer);
        await busy;
        return { flips, offsets_ms: await restore(saved) };
      },
    };
  },
  generate: (o) => single(fc.record({
    kind: fc.constant('clock-strobe'), at_ms: startAt(o), duration_ms: beyondLease(o), target: someNode(o),
    params: fc.record({ delta_ms: bigJump(o), period_ms: fc.integer({ min: Math.max(1, Math.floor(o.ttlMs / 4)), max: o.ttlMs }) }),
  })),
  band: (b) => `clock of ${b.who} strobes ${signedMs(finite(b.params.delta_ms) ?? 0)} every ${finite(b.params.period_ms) ?? '?'} ms${forDur(b)}`,
  describe: (f) => `${at(f)}: flip node ${targetText(f)}'s wall clock between +${String(f.params?.delta_ms)} ms and true time every ${String(f.params?.period_ms ?? 100)} ms${lasting(f)}`,
};

export const clockReset: KindDef = {
  schema: {
    kind: 'clock-reset',
    summary: "set servers' wall clocks back to the true time (one-shot)",
    target: NODE_TARGETS,
    targetRequired: false,
    oneShot: true,
    params: {},
  },
  needs: ['clock'],
  movesClock: 'wall',
  scope: 'server',
  breaks: 'server-clock',
  create(spec, ctx) {
    return {
      async start() {
        const nodes = spec.target === undefined ? ctx.env.nodes : await resolveNodes(spec, ctx);
        const before: Record<string, number> = {};
        for (const n of nodes) { before[n.id] = n.clockOffsetMs(); await n.setClockOffsetMs(0); }
        return { previous_offsets_ms: before };
      },
      async stop() {},
    };
  },
  // Reset only means something after a jump: the group is a bump that lasts, then the reset.
  generate: (o) => fc.record({
    node: someNode(o), bumpAt: startAt(o), after: fc.integer({ min: 100, max: o.ttlMs }),
    delta: fc.integer({ min: o.ttlMs + 200, max: 4 * o.ttlMs }),
  }).map(({ node, bumpAt, after, delta }): FaultSpec[] => [
    { kind: 'clock-bump', at_ms: bumpAt, target: node, params: { delta_ms: delta } },
    { kind: 'clock-reset', at_ms: bumpAt + after, target: node },
  ]),
  band: (b) => `clock of ${b.who} reset`,
  describe: (f) => `${at(f)}: set ${f.target === undefined ? 'every server' : `node ${targetText(f)}`}'s wall clock back to the true time`,
};
