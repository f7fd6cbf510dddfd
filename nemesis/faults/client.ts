// Client faults: a client worker process stopped with SIGSTOP (a GC pause:
// its timers and watchdogs stop too), and a skewed client wall clock.
import fc from 'fast-check';
import { at, beyondSession, lasting, single, someClient, startAt, targetText } from '../words.ts';
import { param } from '../spec.ts';
import { resolveClients } from '../targets.ts';
import { sleep, type FaultGenOptions, type KindDef } from '../fault.ts';
import { atPoint, finite, fmtMs, forDur, signedMs, vsLease } from '../band.ts';
import { expandIoPoints, freeAcquirePoint, IO_POINT_MAX, ioPointName, parseIoPoint, type IoPointKind, type IoPointOp } from '../points.ts';

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
  scope: 'client',   // its own clients only: may run beside other runs (--parallel)
  silences: true,
  create(spec, ctx) {
    const paused: string[] = [];
    return {
      async start() {
        for (const c of resolveClients(spec, ctx)) { paused.push(c); await ctx.clients.pause(c); }
        // Stopped whole (its timers, its keep-alives): nothing of theirs reaches a server.
        return { clients: [...paused], silenced: [...paused] };
      },
      async stop() {
        for (const c of paused.splice(0)) await ctx.clients.resume(c);
      },
    };
  },
  // Anchored (params.point): SIGSTOPped the moment it reaches the point, for duration_ms, then it goes on.
  anchored: {
    is: (f) => typeof f.params?.point === 'string',
    async fire(f, a) {
      const ms = f.duration_ms ?? 0;
      a.record('client-pause-start', { client: a.client, point: a.point, duration_ms: ms, silenced: [a.client], ...(a.command ? { command: a.command } : {}) });
      a.pause();
      await sleep(ms);
      // 'go' waits in the pipe before the process runs again, and on waking a timer that ran out
      // during the pause waits for the next I/O poll (src/runner/late-timers.ts), so the held send
      // or reply goes before any timer that ran out during the pause fires: a reply that
      // arrived during a pause is read, as a real paused process would find it in its socket,
      // rather than the client library's command timeout firing first on a reply already there.
      a.go();
      a.resume();
      a.record('client-pause-stop', { client: a.client, point: a.point });
    },
  },
  // Drawn anchored at a named point: a pause in the critical section
  // longer than the lease is the classic GC-pause failure; recipe points (e.g.
  // 'after-compare') too. Around the lease: resuming just after it ran out finds the
  // next holder still holding (what a stale unlock needs). And at I/O points, which need
  // no recipe's help: just before a command goes out or just after a reply comes in
  // (src/runner/io-points.ts), so a pause lands between a user lock's GET and DEL too.
  generate: (o) => {
    const io = o.ioPoints ?? [];
    const named = o.points.length || !io.length ? [pauseAt(o, namedPointArb(o.points.length ? o.points : ['in-critical-section']))] : [];
    if (!io.length) return single(named[0]!);
    // Named points keep three draws in four: a pause in the critical section (or at a recipe's
    // own point) longer than the lease is what breaks most locks, and halving its share made
    // redis-set-px-del's median detection (no --pause-at) go from 6.2 s to 11.0 s.
    return single(fc.oneof(...named.map((a) => ({ weight: 3, arbitrary: a })), { weight: 1, arbitrary: pauseAt(o, ioPointArb(io)) }));
  },
  clientVerb: 'was paused',
  band: (b) => `pause ${b.who} ${b.durMs === undefined ? '' : fmtMs(b.durMs)}${vsLease(b)}${atPoint(b)}`.replace(/\s+/g, ' ').trim(),
  describe: (f) => {
    if (typeof f.params?.point !== 'string') return `${at(f)}: pause client ${targetText(f)}${lasting(f)}`;
    return `from ${f.at_ms} ms: pause client ${targetText(f)}${lasting(f)} ${pointWords(f.params.point)}`;
  },
};

/**
 * The worker's points inside a hold: a pause there while the client believes it holds is the
 * classic failure (the GC pause), and where the lock reports its validity it is what tests that
 * promise, so they weigh twice any other named point (a late unlock, a recipe's own point).
 */
const HOLD_POINTS: readonly string[] = ['in-critical-section', 'before-write'];
const namedPointArb = (points: readonly string[]) =>
  fc.oneof(...points.map((p) => ({ weight: HOLD_POINTS.includes(p) ? 2 : 1, arbitrary: fc.constant(p) })));

/**
 * Around the lease: long enough for it to run out (and for a server that revokes late to do so),
 * short enough that runs stay short. Where the hold lives in a session (FaultGenOptions.sessionMs),
 * half the pauses outlast the session instead: a paused holder's session ends under it.
 */
const pauseMs = (o: FaultGenOptions) => {
  const lease = fc.integer({ min: o.ttlMs - Math.floor(o.ttlMs / 4), max: o.ttlMs + Math.floor(o.ttlMs / 2) + (o.leaseLagMs ?? 0) });
  return o.sessionMs ? fc.oneof(lease, beyondSession(o)) : lease;
};

/** A pause anchored at a point: from at_ms on, the first time the client reaches it. */
const pauseAt = (o: FaultGenOptions, point: fc.Arbitrary<string>) => fc.record({
  kind: fc.constant('client-pause'), at_ms: fc.integer({ min: 0, max: Math.floor(o.ttlMs / 2) }),
  duration_ms: pauseMs(o), target: someClient(o), params: fc.record({ point }),
});

export { IO_POINT_MAX };

/**
 * An I/O point (src/runner/io-points.ts) among the entries: the operation kind and the kind of
 * I/O drawn alike, then N among those reached (learned entries) or up to IO_POINT_MAX (a bare
 * 'send' / 'reply'). N shrinks toward 1; the unmapper lets a stored plan's point shrink without
 * context.
 */
export const ioPointArb = (entries: readonly string[]) => {
  const groups = new Map<string, { kind: IoPointKind; op: IoPointOp; ns: number[] }>();
  for (const name of expandIoPoints(entries)) {
    const p = parseIoPoint(name)!;
    const g = groups.get(`${p.kind}:${p.op}`) ?? { kind: p.kind, op: p.op, ns: [] };
    g.ns.push(p.n);
    groups.set(`${p.kind}:${p.op}`, g);
  }
  return fc.oneof(...[...groups.values()].map(({ kind, op, ns }) => fc.constantFrom(...ns.sort((a, b) => a - b))
    .map((n) => ioPointName(kind, op, n), (v) => {
      const p = typeof v === 'string' ? parseIoPoint(v) : undefined;
      if (!p || p.kind !== kind || p.op !== op || !ns.includes(p.n)) throw new Error('not an I/O point drawn here');
      return p.n;
    })));
};

const ordinal = (n: number) => `${n}${n % 100 >= 11 && n % 100 <= 13 ? 'th' : ['th', 'st', 'nd', 'rd'][n % 10] ?? 'th'}`;

export const clientClock: KindDef = {
  schema: {
    kind: 'client-clock',
    summary: "skew clients' wall clocks (Date.now(), new Date(), performance.timeOrigin, ctx.clock.wallMs) by delta_ms, at a time or the moment a client reaches a point; healing sets them back",
    target: CLIENT_TARGETS,
    targetRequired: true,
    params: {
      delta_ms: { type: 'number', required: true, doc: 'skew in ms (negative = behind)' },
      point: { type: 'string', doc: "anchored (one client; lockpick run does these): from at_ms on, step the client's clock the next time it reaches this point (an I/O point such as 'reply:acquire:2', inside its acquire, or a named one), before it goes on; the step lasts duration_ms" },
    },
  },
  needs: ['client-process'],
  scope: 'client',   // its own clients only: may run beside other runs (--parallel)
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
  // Anchored (params.point): the clock steps while the client waits at its point, so it lands
  // exactly there, e.g. between two sends of an acquire whose validity is the TTL minus the time
  // it took, measured on the wall clock; set back duration_ms later.
  anchored: {
    is: (f) => typeof f.params?.point === 'string',
    async fire(f, a) {
      const ms = f.duration_ms ?? 0;
      a.record('client-clock-start', { client: a.client, point: a.point, duration_ms: ms, ...(f.params ? { params: f.params } : {}) });
      a.setClockOffsetMs(finite(f.params?.delta_ms) ?? 0);
      a.go();
      // Back when it is due or when the clients are done, whichever comes first: a step that
      // outlives them changes nothing more, and the run would wait for it.
      await Promise.race([sleep(ms), a.ended]);
      a.setClockOffsetMs(0);
      a.record('client-clock-stop', { client: a.client, point: a.point });
    },
  },
  // At a random time: a skew larger than the lease makes other holders' expiry timestamps look
  // past (or its own stale). Anchored at a point a client reaches (learned): a step inside an
  // acquire (its few ms are where a wall-clock validity is measured, which random times never
  // hit), or at a recipe's point, its release or in its hold, both ways, sized by the lease.
  generate: (o) => {
    const timed = fc.record({
      kind: fc.constant('client-clock'), at_ms: startAt(o), target: someClient(o),
      params: fc.record({ delta_ms: fc.oneof(fc.integer({ min: o.ttlMs + 100, max: 4 * o.ttlMs }), fc.integer({ min: -4 * o.ttlMs, max: -(o.ttlMs + 100) })) }),
    });
    const where = stepPoints(o);
    if (!where) return single(timed);
    return single(fc.oneof({ weight: 1, arbitrary: timed }, { weight: 2, arbitrary: fc.record({
      kind: fc.constant('client-clock'), at_ms: fc.integer({ min: 0, max: Math.floor(o.ttlMs / 2) }),
      duration_ms: fc.integer({ min: o.ttlMs, max: 3 * o.ttlMs }), target: someClient(o),
      params: fc.record({ delta_ms: clockStepMs(o.ttlMs), point: where }),
    }) }));
  },
  clientVerb: 'had its clock moved',
  band: (b) => `clock of ${b.who} ${signedMs(finite(b.params.delta_ms) ?? 0)}${forDur(b)}${atPoint(b)}`,
  describe: (f) => (typeof f.params?.point === 'string'
    ? `from ${f.at_ms} ms: step client ${targetText(f)}'s clocks by ${String(f.params?.delta_ms)} ms${lasting(f)} ${pointWords(f.params.point)}`
    : `${at(f)}: move client ${targetText(f)}'s clocks by ${String(f.params?.delta_ms)} ms${lasting(f)}`),
};

/** A clock step sized by the lease, either way: a quarter of a lease to two leases, behind or ahead. */
export const clockStepMs = (ttlMs: number) => {
  const size = fc.integer({ min: Math.floor(ttlMs / 4), max: 2 * ttlMs });
  return fc.oneof(size.map((d) => -d, (v) => -(v as number)), size);
};

/**
 * Where an anchored clock step may land: the I/O points every acquire of a free lock reaches weigh
 * most (between its sends, after a reply: where a validity is measured; all of an acquire's when
 * that is not known), then the named points (a recipe's own, the hold, the release) and the other
 * I/O points (a waiting acquire's, a release's); undefined when there are none.
 */
function stepPoints(o: FaultGenOptions): fc.Arbitrary<string> | undefined {
  const io = expandIoPoints(o.ioPoints ?? []);
  const acquire = io.filter((p) => freeAcquirePoint(p, { sends: o.grantedAcquireSends, replies: o.grantedAcquireReplies }));
  const rest = [...o.points, ...io.filter((p) => !acquire.includes(p))];
  const arbs: fc.WeightedArbitrary<string>[] = [];
  if (acquire.length) arbs.push({ weight: 3, arbitrary: ioPointArb(acquire) });
  if (rest.length) arbs.push({ weight: 1, arbitrary: fc.constantFrom(...rest) });
  return arbs.length ? fc.oneof(...arbs) : undefined;
}

/** Where an anchored client fault waits, in words. */
function pointWords(point: string): string {
  const io = parseIoPoint(point);
  return io
    ? `just ${io.kind === 'send' ? `before the ${ordinal(io.n)} command` : `after the ${ordinal(io.n)} reply`} of its next ${io.op} (${point})`
    : `the next time it reaches '${point}'`;
}
