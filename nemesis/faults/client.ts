// Client faults: a client worker process stopped with SIGSTOP (a GC pause:
// its timers and watchdogs stop too), and a skewed client wall clock.
import fc from 'fast-check';
import type { KindDef } from '../fault.ts';
import { at, lasting, single, someClient, startAt, targetText } from '../words.ts';
import { param } from '../spec.ts';
import { resolveClients } from '../targets.ts';

const CLIENT_TARGETS = "client ids ('c1', 'client:c1', [...]) or 'all'";

export const clientPause: KindDef = {
  schema: {
    kind: 'client-pause',
    summary: 'stop client processes with SIGSTOP (timers and watchdogs stop too) until resumed',
    target: CLIENT_TARGETS,
    targetRequired: true,
    params: {},
  },
  needs: ['client-process'],
  create(spec, ctx) {
    const paused: string[] = [];
    return {
      async start() {
        for (const c of resolveClients(spec, ctx)) { paused.push(c); await ctx.clients.pause(c); }
        return { clients: [...paused] };
      },
      async stop() {
        for (const c of paused.splice(0)) await ctx.clients.resume(c);
      },
    };
  },
  // Anchored at a named point (the runner does these): a pause in the critical section
  // longer than the lease is the classic GC-pause failure; recipe points (e.g.
  // 'after-compare') too. Around the lease: resuming just after it ran out finds the
  // next holder still holding (what a stale unlock needs).
  generate: (o) => single(fc.record({
    kind: fc.constant('client-pause'), at_ms: fc.integer({ min: 0, max: Math.floor(o.ttlMs / 2) }),
    duration_ms: fc.integer({ min: o.ttlMs - Math.floor(o.ttlMs / 4), max: o.ttlMs + Math.floor(o.ttlMs / 2) }),
    target: someClient(o),
    params: fc.record({ point: fc.constantFrom(...(o.points.length ? o.points : ['in-critical-section'])) }),
  })),
  describe: (f) => (typeof f.params?.point === 'string'
    ? `from ${f.at_ms} ms: pause client ${targetText(f)}${lasting(f)} the next time it reaches '${f.params.point}'`
    : `${at(f)}: pause client ${targetText(f)}${lasting(f)}`),
};

export const clientClock: KindDef = {
  schema: {
    kind: 'client-clock',
    summary: "skew clients' wall clocks (Date.now(), new Date(), performance.timeOrigin, ctx.clock.wallMs) by delta_ms; healing sets them back",
    target: CLIENT_TARGETS,
    targetRequired: true,
    params: { delta_ms: { type: 'number', required: true, doc: 'skew in ms (negative = behind)' } },
  },
  needs: ['client-process'],
  create(spec, ctx) {
    const skewed: string[] = [];
    return {
      async start() {
        for (const c of resolveClients(spec, ctx)) { skewed.push(c); await ctx.clients.setClockOffsetMs(c, param(spec, 'delta_ms', 0)); }
        return { clients: [...skewed] };
      },
      async stop() {
        for (const c of skewed.splice(0)) await ctx.clients.setClockOffsetMs(c, 0);
      },
    };
  },
  // A skew larger than the lease makes other holders' expiry timestamps look past (or its own stale).
  generate: (o) => single(fc.record({
    kind: fc.constant('client-clock'), at_ms: startAt(o), target: someClient(o),
    params: fc.record({ delta_ms: fc.oneof(fc.integer({ min: o.ttlMs + 100, max: 4 * o.ttlMs }), fc.integer({ min: -4 * o.ttlMs, max: -(o.ttlMs + 100) })) }),
  })),
  describe: (f) => `${at(f)}: move client ${targetText(f)}'s clocks by ${String(f.params?.delta_ms)} ms${lasting(f)}`,
};
