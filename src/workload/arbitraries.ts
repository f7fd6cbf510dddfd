// fast-check arbitraries for a run plan. Small pieces that compose: an attempt,
// a client, one fault per kind, the plan. Every number shrinks toward 0 and every
// list toward its shortest, so a violation shrinks to few attempts and few faults.
// Fault generators live with their kinds (nemesis/faults/*), aimed at where locks
// break (a pause longer than the lease, a clock jump larger than the lease).
import fc from 'fast-check';
import type { FaultSpec } from '../../nemesis/types.ts';
import { KINDS, kindDef } from '../../nemesis/kinds.ts';
import { aimsFor } from './aims.ts';
import { kindsFilling, type Aim } from './aim.ts';
import { CRITICAL_SECTION, clientId, type Attempt, type ClientPlan, type RunPlan } from './plan.ts';
import { allowsPoint, faultsCanTakeEffect, ioPointsOf, namedPointsOf } from './points.ts';
import type { WorkloadOptions } from './workload-options.ts';
import { atTheDoor, crowded } from './crowd.ts';

export type { WorkloadOptions };

export function attemptArb(o: WorkloadOptions): fc.Arbitrary<Attempt> {
  const keys = Array.from({ length: Math.max(1, o.keys ?? 1) }, (_, i) => `k${i}`);
  const waits: fc.WeightedArbitrary<number>[] = [
    // Mostly long enough to outlast a holder, so clients keep contending while a fault is on.
    { weight: 3, arbitrary: fc.integer({ min: Math.floor(o.ttlMs / 2), max: 2 * o.ttlMs }) },
    // Sometimes shorter than the queue ahead: a wait that runs out while another holds
    // (what a client that proceeds after its wait, the Redis and ZooKeeper post's ZooKeeper code, breaks on).
    { weight: 1, arbitrary: fc.integer({ min: 0, max: Math.floor(o.ttlMs / 4) }) },
  ];
  // With a session: long enough to see a silent holder's session expire and take over.
  if (o.sessionMs) waits.push({ weight: 1, arbitrary: fc.integer({ min: o.sessionMs + 1000, max: 2 * o.sessionMs + 1000 }) });
  // Well inside the lease, so a fault-free run never outlives its lease by design. Without a
  // lease, a client cut off in its critical section holds through the cut (an anchored partition).
  const short = fc.integer({ min: 0, max: Math.floor(o.ttlMs / 4) });
  // A renewing hold may span several renew periods (every TTL/3, src/runner/worker.ts): only the
  // renews keep it, which is what a watchdog's bugs need to show.
  const spanning = fc.oneof(short, fc.integer({ min: o.ttlMs, max: 3 * o.ttlMs }));
  // A session lock's careful client checks its session all through its hold, so those always renew.
  // Records, not maps: a stored plan still shrinks without its generation context (src/runner/shrink.ts).
  const plain = fc.record({ renew: fc.constant(false), holdMs: short });
  const renewing = fc.record({ renew: fc.constant(true), holdMs: spanning });
  // A lock that keeps its own lease alive holds as long with no renew call: only its watchdog keeps it.
  const kept = fc.record({ renew: fc.constant(false), holdMs: spanning });
  // A session lock (ZooKeeper) has no lease to extend: its careful client checks its session all
  // through a hold as before (a cut past the session is what outlives it, the anchored partitions).
  const sessionHold = fc.record({ renew: fc.constant(true), holdMs: short });
  const renewHold = !o.renew ? (o.keepsAlive ? kept : plain) : o.sessionMs ? sessionHold : fc.oneof(o.keepsAlive ? kept : plain, renewing);
  return fc.record({
    key: fc.constantFrom(...keys),
    delayMs: fc.integer({ min: 0, max: Math.floor(o.ttlMs / 2) }),
    waitMs: fc.oneof(...waits),
    rh: renewHold,
    // Only reentrant locks get the field at all, so other plans read as before.
    ...(o.reentrant ? { reenter: fc.boolean() } : {}),
    // A read-write lock's readers and writers (writers first: they shrink toward the mutex's case);
    // a semaphore's permits, where one hold may take more than one.
    ...(o.modes && o.modes.length > 1 ? { mode: fc.constantFrom(...o.modes) } : {}),
    ...(o.semaphore && o.semaphore.maxPermits > 1 ? { permits: fc.integer({ min: 1, max: o.semaphore.maxPermits }) } : {}),
  }).map(({ rh, ...a }) => ({ ...a, holdMs: rh.holdMs, renew: rh.renew }) as Attempt, (v) => {
    if (typeof v !== 'object' || v === null) throw new Error('not an attempt');
    const { holdMs, renew, ...rest } = v as Attempt;
    return { ...rest, rh: { renew, holdMs } };
  });
}

export function clientArb(o: WorkloadOptions): fc.Arbitrary<ClientPlan> {
  const max = Math.max(1, o.maxAttempts ?? 3);
  // Empty is allowed: shrinking silences the clients a violation does not need.
  return fc.record({ attempts: fc.array(attemptArb(o), { minLength: 0, maxLength: max, size: 'max' }) });
}

/** The kind's own generator (nemesis/faults/*): a small group of specs aimed where locks break; server-side ones sometimes anchored to a client's event. */
export function faultArb(kind: string, o: WorkloadOptions): fc.Arbitrary<FaultSpec[]> {
  // Client faults anchor by their own params.point.
  return kindDef(kind)?.scope === 'client' ? kindArb(kind, o) : anchoredSometimes(kindArb(kind, o), o);
}

/** A spec that can start at a client's point instead of a time: server-side, ending by itself, not anchored already. */
function anchorable(s: FaultSpec): boolean {
  const t = s.target === undefined ? [] : Array.isArray(s.target) ? s.target : [s.target];
  return kindDef(s.kind)?.scope !== 'client' && s.params?.point === undefined && s.duration_ms !== undefined && !t.every((x) => x.startsWith('client:') || /^c\d+$/.test(x));
}

/**
 * One time in four, the kind's faults start at an event of the run rather than a time
 * (FaultSpec.anchor): when a client's acquire has just returned ('in-critical-section'), at
 * a recipe's point, or when k servers have answered its acquire ('reply:acquire:k': the key
 * is set on some masters and not yet on others) or its release is about to be sent.
 */
function anchoredSometimes(specs: fc.Arbitrary<FaultSpec[]>, o: WorkloadOptions): fc.Arbitrary<FaultSpec[]> {
  const io = [...Array.from({ length: Math.max(1, o.nodes.length) }, (_, i) => `reply:acquire:${i + 1}`), 'send:release:1'];
  const points = [...new Set([CRITICAL_SECTION, ...namedPoints(o.points), ...io.filter((p) => allowsPoint(o.points, p))])];
  const clients = Array.from({ length: Math.max(1, o.clients) }, (_, i) => clientId(i));
  const anchor = fc.record({ client: fc.constantFrom(...clients), point: fc.constantFrom(...points) });
  const early = Math.floor(o.ttlMs / 4);
  return fc.oneof(
    { weight: 3, arbitrary: specs },
    { weight: 1, arbitrary: fc.tuple(specs, anchor).map(([ss, a]) => ss.map((s) => (anchorable(s) ? { ...s, at_ms: Math.min(s.at_ms, early), anchor: a } : s))) },
  );
}

function kindArb(kind: string, o: WorkloadOptions): fc.Arbitrary<FaultSpec[]> {
  const def = kindDef(kind);
  if (!def) throw new Error(`no fault kind '${kind}' (known: ${KINDS.map((k) => k.schema.kind).join(', ')})`);
  return def.generate({
    ttlMs: o.ttlMs,
    clients: Array.from({ length: Math.max(1, o.clients) }, (_, i) => clientId(i)),
    nodes: o.nodes.length ? o.nodes : ['n1'],
    // 'send'/'reply' or learned 'send:release:2' in the points list are I/O points (drawn by client-pause alone).
    points: namedPoints(o.points),
    ioPoints: ioPointsOf(o.points),
    topology: o.topology ?? 'redis',
    ...(o.servers ? { servers: o.servers } : {}),
    ...(o.peerLinks !== undefined ? { peerLinks: o.peerLinks } : {}),
    ...(o.sessionMs ? { sessionMs: o.sessionMs } : {}),
    ...(o.restartDelayMs !== undefined ? { restartDelayMs: o.restartDelayMs } : {}),
    ...(o.leaseLagMs ? { leaseLagMs: o.leaseLagMs } : {}),
    ...(o.grantedAcquireSends !== undefined ? { grantedAcquireSends: o.grantedAcquireSends } : {}),
    ...(o.grantedAcquireReplies !== undefined ? { grantedAcquireReplies: o.grantedAcquireReplies } : {}),
  });
}

/** The named points of a points list (not the I/O ones): none when only I/O points were asked for; no list: the critical section. */
function namedPoints(points: readonly string[] | undefined): string[] {
  if (!points?.length) return [CRITICAL_SECTION];
  return namedPointsOf(points);
}

export function faultsArb(o: WorkloadOptions): fc.Arbitrary<FaultSpec[]> {
  if (o.faults.length === 0) return fc.constant([]);
  const one = fc.oneof(...o.faults.map((k) => faultArb(k, o)));
  const max = Math.max(1, o.maxFaults ?? 2);
  const lead = leading(o);
  // A shard's plans start with a fault of a kind it leads, then up to max − 1 of any kind.
  if (lead) {
    const first = fc.oneof(...lead.map((k) => faultArb(k, o)));
    return fc.tuple(first, fc.array(one, { minLength: 0, maxLength: max - 1, size: 'max' })).map(([g, rest]) => [...g, ...rest.flat()], (v) => {
      if (!Array.isArray(v) || v.length === 0) throw new Error('faults must be a non-empty array');
      return [[v[0]], v.slice(1).map((s) => [s])];
    });
  }
  // At least one fault when faults were asked for: a run without any tests nothing new.
  // Unmapped as groups of one, so a stored plan still shrinks without its generation context.
  return fc.array(one, { minLength: 1, maxLength: max, size: 'max' }).map((groups) => groups.flat(), (v) => {
    if (!Array.isArray(v)) throw new Error('faults must be an array');
    return v.map((s) => [s]);
  });
}

/** The kinds a shard leads (WorkloadOptions.leadKinds), when they are fewer than the kinds asked for; else undefined (any kind). */
function leading(o: WorkloadOptions): string[] | undefined {
  const lead = o.leadKinds?.filter((k) => o.faults.includes(k));
  return lead?.length && lead.length < new Set(o.faults).size ? lead : undefined;
}

/**
 * A run plan: uniformly random attempts and faults, or, when the kinds asked for compose a
 * known failure of the topology (./aims.ts), a plan drawn around it: two times in three (weight 2
 * per aim against 1 per aim for the random plans; an aim may weigh less, Aim.weight). An aim
 * weighs once per fault kind it composes: asking for several kinds together asks for what they
 * do together (`--faults partition,kill`: a split whose shared master restarts), which the aims of
 * one kind alone would otherwise outnumber. A plan with a fault that could never take effect
 * (anchored where its client never goes, due after the clients are done) is not drawn.
 */
export function planArb(o: WorkloadOptions, steer?: (random: fc.Arbitrary<RunPlan>) => fc.Arbitrary<RunPlan>): fc.Arbitrary<RunPlan> {
  // `steer`: the random slot drawn another way (./cell-space.ts: toward fault cells not aimed at yet).
  const uniform = steer ? steer(randomPlanArb(o)) : randomPlanArb(o);
  // A semaphore's random plans bring every client to the door at once half the time (./crowd.ts).
  const random = o.semaphore ? fc.oneof(uniform, uniform.map(atTheDoor)) : uniform;
  // A shard that leads some kinds draws only the aims that compose one of them.
  const lead = leading(o);
  const aims = aimsFor(o).filter((a) => !lead || a.kinds.some((k) => kindsFilling(k, lead).length > 0));
  // A fault anchored where its client never goes, or due after every client is done, could never
  // take effect (./points.ts): not drawn.
  if (aims.length === 0) return random.filter(faultsCanTakeEffect);
  return fc.oneof({ weight: aims.length, arbitrary: random.filter(faultsCanTakeEffect) }, ...aims.map((a) => ({ weight: aimWeight(a), arbitrary: aimPlan(a, o) })));
}

/**
 * One plan of each aim, the most specific first (by aimWeight, then AIMS order), for the search to
 * run before it samples the mix: every strategy that fits the faults asked for is tried once early,
 * however many others share the mix. Drawn from the search's seed, so a seed gives the same plans.
 */
export function firstPlans(o: WorkloadOptions, seed: number): RunPlan[] {
  return aimsFor(o).map((a, i) => ({ a, i })).sort((x, y) => aimWeight(y.a) - aimWeight(x.a) || x.i - y.i)
    .flatMap(({ a }, i) => fc.sample(aimPlan(a, o), { seed: seed + i + 1, numRuns: 1 }));
}

/**
 * An aim's plans whose faults can take effect, with a semaphore's other permits then taken all
 * through (./crowd.ts): its c2 finds the door full. Judged before the fillers come, whose long
 * holds would read, by a mutex's rule, as a lock no other client could get.
 */
const aimPlan = (a: Aim, o: WorkloadOptions): fc.Arbitrary<RunPlan> => {
  const p = a.plan(o).filter(faultsCanTakeEffect);
  return o.semaphore ? p.map((x) => crowded(o, x)) : p;
};

/** An aim's share of the plans: its own weight (default 2) once per fault kind it composes. */
export const aimWeight = (a: Aim): number => (a.weight ?? 2) * Math.max(1, a.kinds.length);

/** A plan of uniformly random attempts and faults (no aim). */
export function randomPlanArb(o: WorkloadOptions): fc.Arbitrary<RunPlan> {
  const n = Math.max(1, o.clients);
  return fc.record({
    ttlMs: fc.constant(o.ttlMs),
    // Always all n clients, so every fault's client target exists; idle ones shrink to no attempts.
    clients: fc.array(clientArb(o), { minLength: n, maxLength: n }),
    faults: faultsArb(o),
  });
}
