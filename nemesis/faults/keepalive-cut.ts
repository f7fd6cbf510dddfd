// keepalive-cut: the holder's lease keep-alives stop reaching the servers while the rest of
// its traffic flows. A lock whose lease is kept alive over a connection of its own
// (LockRecipe.channels 'keepalive': etcd's Lease service) has its client links of that
// connection cut (links.ts: disabled, or a black hole), so its keep-alive stream fails or
// stalls while its reads, writes and unlock still get through; `links: 'all'` cuts every
// link of the client instead (the holder cut off entirely, as a partition would). Anchored
// in the holder's critical section, it goes on working for as long as the cut lasts: its
// lease lapses at the server and another client may take the lock under it.
import fc from 'fast-check';
import type { KindDef } from '../fault.ts';
import { atPoint, forDur } from '../band.ts';
import type { FaultSpec, NemesisContext } from '../types.ts';
import { at, beyondLease, lasting, paramsText, single, someClient, targetText } from '../words.ts';
import { CUT_MODES, cutLinks, silencedClients, type CutMode } from '../links.ts';
import { param } from '../spec.ts';
import { resolveClients } from '../targets.ts';
import type { Link } from '../../src/env/types.ts';

const CHANNEL = 'keepalive';

/** The client's links to cut: those of its keep-alive connection (made when its run started), or all of them. */
function linksOf(spec: FaultSpec, ctx: NemesisContext): Link[] {
  const clients = resolveClients(spec, ctx).map((c) => `client:${c}`);
  const all = param<string>(spec, 'links', CHANNEL) === 'all';
  const links = ctx.env.links.filter((l) => clients.includes(l.from) && (all || l.channel === CHANNEL));
  // No such link: the lock keeps no lease alive over a connection of its own. Not a fault that happened.
  if (!links.length) throw new Error(`keepalive-cut: ${clients.join(', ')} has no '${all ? 'client' : CHANNEL}' link (the lock declares no '${CHANNEL}' connection: LockRecipe.channels)`);
  return links;
}

export const keepaliveCut: KindDef = {
  schema: {
    kind: 'keepalive-cut',
    summary: "cut a client's lease keep-alive connection (its lock's 'keepalive' channel) while its other traffic flows; anchored in its critical section, it works on while its lease lapses",
    target: "client ids ('c1', 'client:c1', [...]): whose keep-alives are cut",
    targetRequired: true,
    params: {
      mode: { type: 'string', values: CUT_MODES, doc: "'disable' (default): the keep-alive connection is closed and refused; 'blackhole': it stays open and nothing gets through; 'drop-replies': keep-alives arrive, their answers do not" },
      links: { type: 'string', values: ['keepalive', 'all'], doc: "'keepalive' (default): only the keep-alive connection's links; 'all': every link of the client (its other traffic stops too)" },
      point: { type: 'string', doc: "anchored (one client): from at_ms on, cut when the client next reaches this named point (e.g. 'in-critical-section'); it goes on holding for duration_ms" },
    },
  },
  needs: ['client-link'],
  scope: 'server',   // a client link's proxy is named by client id, the same in every run
  silences: true,
  lockChannel: CHANNEL,
  create(spec, ctx, id) {
    let undo: (() => Promise<void>) | undefined;
    const mode = param<CutMode>(spec, 'mode', 'disable');
    return {
      async start() {
        const links = linksOf(spec, ctx);
        undo = await cutLinks(ctx.env, links, mode, id);
        // Its keep-alives no longer arrive: for a lease kept alive over that connection, a silence.
        const all = param<string>(spec, 'links', CHANNEL) === 'all';
        const silenced = silencedClients(ctx.env, links, mode, all ? undefined : CHANNEL);
        // Only with all its links cut is a client cut off from every server (checkers/phantom-grant.ts).
        return { mode, links: links.map((l) => l.name), ...(silenced.length ? { silenced, ...(all ? { cut_off: silenced } : {}) } : {}) };
      },
      async stop() { await undo?.(); },
    };
  },
  // The client is cut while it holds and goes on, told to hold for as long as the cut lasts.
  anchored: {
    is: (f) => typeof f.params?.point === 'string' && typeof f.target === 'string',
    fire: (f, a) => a.startThenGo(f, f.duration_ms ?? 0),
  },
  // In the holder's critical section, past its lease: the lease lapses while it works.
  generate: (o) => single(fc.record({
    kind: fc.constant('keepalive-cut'), at_ms: fc.integer({ min: 0, max: Math.floor(o.ttlMs / 2) }), duration_ms: beyondLease(o),
    target: someClient(o),
    params: fc.constantFrom<Record<string, string>>({ point: 'in-critical-section' }, { point: 'in-critical-section', mode: 'blackhole' }),
  })),
  clientVerb: 'had its lease keep-alives cut',
  band: (b) => `keep-alives of ${b.who} cut${b.params.links === 'all' ? ' (all its links)' : ''}${forDur(b)}${atPoint(b)}`,
  describe: (f) => (typeof f.params?.point === 'string'
    ? `from ${f.at_ms} ms: cut the lease keep-alives of client ${targetText(f)}${lasting(f)} the next time it reaches '${f.params.point}' (it goes on)${paramsText(f, ['point'])}`
    : `${at(f)}: cut the lease keep-alives of client ${targetText(f)}${lasting(f)}${paramsText(f)}`),
};
