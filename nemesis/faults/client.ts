// Client faults: a client worker process stopped with SIGSTOP (a GC pause:
// its timers and watchdogs stop too), and a skewed client wall clock.
import type { KindDef } from '../fault.ts';
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
};

export const clientClock: KindDef = {
  schema: {
    kind: 'client-clock',
    summary: "skew clients' wall clocks (ctx.clock.wallMs) by delta_ms; healing sets them back to true time",
    target: CLIENT_TARGETS,
    targetRequired: true,
    params: { delta_ms: { type: 'number', required: true, doc: 'skew in ms (negative = behind)' } },
  },
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
};
