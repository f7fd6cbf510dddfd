// The server ends a client's session, as an administrator, a pooler or a timeout
// would: PostgreSQL's pg_terminate_backend, MySQL's KILL CONNECTION, asked over the
// server's real port (TopologyDef.endSessions finds the client's sessions by the
// address and port the server lists for them, which are the upstream ends of the
// client's proxied connections: no tag in the lock's code). A lock that lives in the session (an advisory lock,
// GET_LOCK, an open transaction's row lock) goes with it, silently: the holder
// still believes it holds until it next speaks to the server.
import fc from 'fast-check';
import type { KindDef } from '../fault.ts';
import { at, single, someClient, targetText } from '../words.ts';
import { resolveClients } from '../targets.ts';
import { atPoint } from '../band.ts';
import { TOPOLOGY_DEFS, topologyDef } from '../../src/env/topologies.ts';

export const sessionKill: KindDef = {
  schema: {
    kind: 'session-kill',
    summary: "the server ends client sessions (PostgreSQL pg_terminate_backend, MySQL KILL CONNECTION); a lock held by the session goes with it",
    target: "client ids ('c1', 'client:c1', [...]) or 'all': whose server sessions end",
    targetRequired: true,
    oneShot: true,
    // The topologies that say how to end a client's session (TopologyDef.endSessions).
    get topologies() { return TOPOLOGY_DEFS.filter((t) => t.endSessions).map((t) => t.name); },
    params: {},
  },
  // A statement to the server as its administrator: lockpick's own servers, or a user's login allowed to.
  needs: ['session-end'],
  // Client ids name the same sessions in every run on the server: it runs alone.
  scope: 'server',
  endsSessions: true,
  create(spec, ctx) {
    return {
      async start() {
        const end = topologyDef(ctx.env.topology)?.endSessions;
        if (!end) throw new Error(`session-kill: the ${ctx.env.topology} topology cannot end a client's session (TopologyDef.endSessions)`);
        const clients = resolveClients(spec, ctx);
        const { ended, said } = await end(ctx.env, clients);
        // No session to end is no fault: recorded as start-failed, so the run cannot pass as tested.
        if (ended === 0) throw new Error(`session-kill: no server session of ${clients.join(', ')} to end (${said})`);
        return { clients, sessions: ended, said };
      },
      async stop() {},
    };
  },
  // Anchored in the holder's critical section: its session ends while it believes it holds.
  generate: (o) => single(someClient(o).chain((c) => fc.record({
    kind: fc.constant('session-kill'), at_ms: fc.integer({ min: 0, max: Math.floor(o.ttlMs / 2) }),
    target: fc.constant(c),
    anchor: fc.constant({ client: c, point: 'in-critical-section' }),
  }))),
  // "the server ends c2's session (KILL CONNECTION 17 on n1) at in-critical-section": what its start record says, in words.
  band: (b) => {
    const n = typeof b.value.sessions === 'number' ? b.value.sessions : undefined;
    const said = typeof b.value.said === 'string' ? ` (${b.value.said})` : '';
    return `the server ends ${b.who}'s session${n !== undefined && n > 1 ? `s (${n})` : ''}${said}${atPoint(b)}`;
  },
  describe: (f) => (f.anchor
    ? `from ${f.at_ms} ms: the server ends the session(s) of client ${targetText(f)} when client ${f.anchor.client} next reaches '${f.anchor.point}'`
    : `${at(f)}: the server ends the session(s) of client ${targetText(f)}`),
};
