// A holder that dies: a client worker process killed with SIGKILL mid-run. Its
// remaining attempts are gone for this run (the pool starts a fresh worker for
// the next); the runner records the end of its beliefs as lapses, so a later
// holder is no double holder, and what the lock does with the dead holder's
// hold is the test: a lease frees it, a unique-key row never does (liveness).
import fc from 'fast-check';
import type { KindDef } from '../fault.ts';
import { atPoint } from '../band.ts';
import { at, single, someClient, targetText } from '../words.ts';
import { resolveClients } from '../targets.ts';

export const clientKill: KindDef = {
  schema: {
    kind: 'client-kill',
    summary: 'kill client processes with SIGKILL (a holder that dies); they are not restarted within the run',
    target: "client ids ('c1', 'client:c1', [...]) or 'all'",
    targetRequired: true,
    oneShot: true,
    params: {},
  },
  needs: ['client-process'],
  scope: 'client',   // its own clients only: may run beside other runs (--parallel)
  create(spec, ctx) {
    return {
      async start() {
        const killed: string[] = [];
        for (const c of resolveClients(spec, ctx)) { await ctx.clients.kill(c); killed.push(c); }
        return { clients: killed };
      },
      // Nothing to heal: a dead client stays dead until the next run.
      async stop() {},
    };
  },
  // Anchored (params.point): killed the moment it reaches the point; it never goes on.
  anchored: {
    is: (f) => typeof f.params?.point === 'string',
    async fire(_f, a) {
      a.record('client-kill-start', { client: a.client, point: a.point });
      await a.kill();
      a.record('client-kill-stop', { client: a.client, point: a.point });
    },
  },
  // Drawn anchored at the critical section:
  // a holder that dies holding is where locks without an expiry break (liveness).
  generate: (o) => single(fc.record({
    kind: fc.constant('client-kill'), at_ms: fc.integer({ min: 0, max: Math.floor(o.ttlMs / 2) }),
    target: someClient(o),
    params: fc.record({ point: fc.constant('in-critical-section') }),
  })),
  clientVerb: 'was killed',
  band: (b) => `kill ${b.who}${atPoint(b)}`,
  describe: (f) => (typeof f.params?.point === 'string'
    ? `from ${f.at_ms} ms: kill -9 client ${targetText(f)} the next time it reaches '${f.params.point}'`
    : `${at(f)}: kill -9 client ${targetText(f)}`),
};
