// A failure's cause, and whether it is inherent to the lock's design or a bug of this
// implementation. Read from one run (its history, nemesis records included) and what the recipe
// and its topology declare (LockDesign), never from a lock's name:
// - a double holder where an overlapping belief had outlived its lease (time since its last
//   grant or renewal ok beyond the lease, or past its own reported validity): inherent to a lease;
// - a double holder a design-breaking fault explains (a restart that forgets: topology
//   `restartForgets`; a failover over asynchronous replication: `asyncFailover`; a server clock
//   jump beyond the drift the lock declares: `LockRecipe.clockDriftMs`): inherent to that design;
// - a double holder where every overlapping belief was within its lease and no such fault explains
//   it, a stale release (an unlock that succeeded on a lock no longer its own), an expired or overstated grant, a crash
//   of the lock's own code, a fencing failure of a fenced lock: a bug of this implementation;
// - a lease the lock keeps alive itself counts as outlived only when a fault silenced its holder
//   longer than the lease (a pause, a cut link); with no fault at all, a double holder is its bug;
// - a resource failure with no lock anomaly and no fencing, its writer silenced by a fault (a
//   pause between its last check and its write): inherent to an unfenced lock;
// - anything else (no lease figures, a kept-alive lease under other faults): unknown, said so.
// A run's classes: one per nature its causes show, each named by those causes only, so a run with
// a lease outlived and a stale release beside it shows both an inherent class and a bug class
// (by cause, not by anomaly set: the one does not hide the other).
import type { Anomaly } from '../../checkers/types.ts';
import type { HistoryEvent, Op } from '../history/types.ts';
import type { LockRecipe } from '../locks/lock.ts';
import type { RunPlan } from '../workload/plan.ts';
import { scanKey, findOverlaps, type Belief } from '../../checkers/holds.ts';
import { leaseNs } from '../../checkers/lease.ts';
import { OVERLAPS } from '../../checkers/anomaly-kinds.ts';
import { silencesOf } from '../../checkers/silences.ts';
import { faultPeriods, type FaultPeriod } from '../report/cause.ts';
import { runHistory, type RunHistory } from './session.ts';
import { topologyDef } from '../env/topologies.ts';
import { kindDef } from '../../nemesis/kinds.ts';
import type { DesignProperty } from '../../nemesis/fault.ts';

/** What the recipe and its topology declare about the lock's design. */
export interface LockDesign {
  leased: boolean;
  fencing: boolean;
  /** Its lease is kept alive out of sight (a watchdog): no renew in the history to date it from. */
  keepsAlive: boolean;
  /** A restart of its servers, as they were started, forgets the lock. */
  restartForgets: boolean;
  /** A restart without persistence forgets it (a kill that says `persistence: none`); default: restartForgets. */
  canForget?: boolean;
  asyncFailover: boolean;
  /** How far the servers' clocks may jump without breaking it (ms); 0 unless the recipe declares it. */
  driftMs: number;
  /** A session lock: how long the server keeps a silent client's hold. */
  sessionMs?: number;
  /** Its sessions are the clients' connections: a fault that closes them ends the session at once (TopologyDef.sessionEndsWithConnection). */
  sessionEndsWithConnection?: boolean;
}

/** Whether a restart of the lock's servers, as they were started (the recipe's persistence), forgets its holds. */
export function forgetsAsStarted(recipe: Pick<LockRecipe, 'topology'>): boolean {
  const forgets = topologyDef(recipe.topology.kind)?.restartForgets;
  return forgets === 'always' || (forgets === 'without-persistence' && (recipe.topology.persistence ?? 'none') === 'none');
}

export function lockDesign(recipe: LockRecipe, ttlMs: number, lockOptions?: Record<string, unknown>): LockDesign {
  const topo = topologyDef(recipe.topology.kind);
  return {
    leased: recipe.lease ?? topo?.leased ?? false,
    fencing: recipe.fencing,
    keepsAlive: recipe.keepsAlive === true,
    restartForgets: forgetsAsStarted(recipe),
    canForget: (topo?.restartForgets ?? 'never') !== 'never',
    asyncFailover: topo?.asyncFailover === true,
    driftMs: recipe.clockDriftMs?.(ttlMs, lockOptions) ?? 0,
    ...(recipe.sessionMs ? { sessionMs: recipe.sessionMs(lockOptions) } : {}),
    ...(topo?.sessionEndsWithConnection ? { sessionEndsWithConnection: true } : {}),
  };
}

export type Nature = 'bug' | 'inherent' | 'unknown';

/** One anomaly's cause. */
export interface Cause {
  anomaly: string;
  nature: Nature;
  /** The mechanism, a stable word: lease-outlived, restart-forgets, stale-release, within-lease, ... */
  why: string;
  /** The fault kind that made it possible ('no fault' when none overlaps it). */
  fault: string;
  /** What that fault hit: the operation its client was in ('acquire', 'release', 'holding', 'idle') or 'server'. */
  hit: string;
  /** In words a user reads at a glance. */
  words: string;
  /** A consequence of another cause of the run (a double holder a stale release on its key let in): left out of the class. */
  explained?: boolean;
}

export interface CauseClass {
  /** Stable: equal keys are the same class (anomaly · why · fault @ hit, of the weightiest nature). */
  key: string;
  nature: Nature;
  /** The class in words: "a bug in this lock: …" / "inherent to …: …" / "not classified: …". */
  words: string;
  causes: Cause[];
}

type RunLike = { plan?: RunPlan; events: readonly HistoryEvent[]; history?: RunHistory; check: { anomalies: Anomaly[] }; resource: { anomalies: Anomaly[] } };

const RESOURCE = new Set(['lost-update', 'stale-write', 'stale-token']);
/** Whether a fault of this kind keeps a client from reaching its servers while it lasts (KindDef.silences). */
const silences = (kind: string) => kindDef(kind)?.silences === true;
/** What breaking each design property (KindDef.breaks) does to this design, if anything. */
const BREAKS: Record<DesignProperty, (d: LockDesign, f: FaultPeriod) => string | undefined> = {
  // A restart (a kill, a graceful stop) brings the server back as started, or as its params say.
  restart: (d, f) => (forgets(d, f) ? 'restart-forgets' : undefined),
  failover: (d) => (d.asyncFailover ? 'async-failover' : undefined),
  'server-clock': (d, f) => (f.nodes.length && jump(f) > d.driftMs ? 'server-clock' : undefined),
};
/** The design property fault f broke here, as its kind declares what it can break. */
const broken = (d: LockDesign, f: FaultPeriod) => {
  const b = kindDef(f.kind)?.breaks;
  return b ? BREAKS[b](d, f) : undefined;
};
/** Whether the restart of fault f forgot the lock: its `persistence` param when it has one, else the servers as started. */
const forgets = (d: LockDesign, f: FaultPeriod) => {
  const p = (f.value.params as Record<string, unknown> | undefined)?.persistence ?? f.value.persistence;
  return p === undefined ? d.restartForgets : p === 'none' && (d.canForget ?? d.restartForgets);
};
/** A clock fault's jump in ms (unknown: as large as can be). */
const jump = (f: FaultPeriod) => {
  const d = (f.value.params as Record<string, unknown> | undefined)?.delta_ms ?? f.value.delta_ms;
  return typeof d === 'number' ? Math.abs(d) : Infinity;
};

const INHERENT_WORDS: Record<string, string> = {
  'lease-outlived': 'a holder {verb} past its lease',
  'validity-outlived': 'a holder kept the lock past the validity it was told',
  'restart-forgets': 'a restarted server forgot the lock (it kept it in memory only, or without persistence)',
  'async-failover': 'a failover promoted a replica the lock had not reached (asynchronous replication)',
  'server-clock': 'a server\'s clock jumped further than the lock allows for, so its lease ended early',
  'session-outlived': 'the holder\'s session ended under it',
  'delayed-write': 'a write held up (its writer {verb}) reached the resource after its hold had ended',
};
const DESIGN_WORDS: Record<string, (d: LockDesign) => string> = {
  'lease-outlived': (d) => `inherent to ${d.fencing ? 'a lease (fencing protects the resource)' : 'an unfenced lease'}`,
  'validity-outlived': (d) => `inherent to ${d.fencing ? 'a lease' : 'an unfenced lease'}`,
  'restart-forgets': () => 'inherent to a server that forgets its locks on restart',
  'async-failover': () => 'inherent to asynchronous replication',
  'server-clock': () => 'inherent to a lease timed by the server\'s clock',
  'session-outlived': (d) => `inherent to ${d.fencing ? 'a session lock' : 'an unfenced session lock'}`,
  'delayed-write': () => 'inherent to an unfenced lock',
};
const BUG_WORDS: Record<string, string> = {
  'stale-release': 'its release succeeded on a lock it no longer held',
  'stale-renew': 'its renewal extended another client\'s lock',
  'within-lease': 'it let a second client in while the first held the lock within its lease',
  'no-fault': 'two clients held the lock at once with no fault to explain it',
  'expired-grant': 'it handed out (or renewed) a lock whose validity was already over',
  'overstated-validity': 'it reported more validity than it can have had',
  'phantom-grant': 'it answered held while it could reach no server',
  'client-crash': 'its own code crashed the client process',
  'fencing': 'its fencing let a stale write through',
};

/** The run's classes by cause, the weightiest first (bug, then unknown, then inherent). */
export function classifyRun(o: RunLike, d: LockDesign): CauseClass[] {
  return classesOf(runCauses(o, d));
}

/** The cause of each anomaly of the run (the lock's anomalies, else the resource's). */
export function runCauses(o: RunLike, d: LockDesign): Cause[] {
  const h = o.history ?? runHistory(o.events);
  const ops = h.parsed.ops;
  const periods = faultPeriods(h.parsed.nemesis);
  const quiet = silencesOf(h.parsed.nemesis);
  const clientOf = h.clients;
  const lock = o.check.anomalies;
  const anomalies = lock.length ? lock : o.resource.anomalies;
  const scans = new Map<string, { beliefs: Belief[]; overlaps: ReturnType<typeof findOverlaps> }>();
  const scanOf = (key: string) => {
    let s = scans.get(key);
    if (!s) {
      const { beliefs } = scanKey(ops.filter((x) => x.key === key), false, quiet);
      s = { beliefs, overlaps: findOverlaps(beliefs) };
      scans.set(key, s);
    }
    return s;
  };
  const causes = anomalies.map((a) => causeOf(a));
  // A double holder within both leases on a key where a release was stale: that release let the
  // second holder in (as the report's cause says), so it is the release's class, not one of its own.
  const staleKeys = new Set(anomalies.filter((a, i) => causes[i]!.why === 'stale-release').map((a) => a.key));
  anomalies.forEach((a, i) => { if (causes[i]!.why === 'within-lease' && staleKeys.has(a.key)) causes[i]!.explained = true; });
  // A count of lost updates (no writer of its own) beside stale writes a rule explained: those writes lost them.
  if (anomalies.some((a, i) => RESOURCE.has(a.type) && a.type !== 'lost-update' && causes[i]!.nature !== 'unknown')) {
    anomalies.forEach((a, i) => { if (a.type === 'lost-update' && causes[i]!.nature === 'unknown') causes[i]!.explained = true; });
  }
  // An overlap one of whose holds was a phantom grant (an acquire no server answered): that grant is its cause, and its class.
  const phantom = new Set(anomalies.filter((a) => a.type === 'phantom-grant').flatMap((a) => a.ops ?? []));
  if (phantom.size) anomalies.forEach((a, i) => { if (OVERLAPS.has(a.type) && (a.ops ?? []).some((id) => phantom.has(id))) causes[i]!.explained = true; });
  return causes;

  function causeOf(a: Anomaly): Cause {
    const procs = a.processes.filter((p) => typeof p === 'number');
    // Clients holding at once beyond what the lock allows (a semaphore's over-admission, a writer's overlap): the double holder's rules, pair by pair.
    if (OVERLAPS.has(a.type)) return doubleHolder(a, procs);
    if (a.type === 'exposure') return exposure(a, procs);
    const at = times(a);
    const { fault, hit } = blame(procs, at.from, at.to);
    if (a.type === 'stale-release') {
      // The model calls a release stale when another process's acquire took the lock over (the
      // anomaly's second process). When that acquire's grant came back after its own lease could
      // have run out (a late grant: a lease outlived, inherent), the takeover is the model's
      // conservative reading, not the server's: the release may have freed only its own lock.
      const late = procs.length === 2 && a.lines[0] !== undefined ? lateGrant(a.key, procs[1]!, a.lines[0]) : undefined;
      if (late) return cause(a.type, 'inherent', late.why, late.fault, late.hit);
      return cause(a.type, 'bug', 'stale-release', fault, hit);
    }
    if (BUG_WORDS[a.type]) return cause(a.type, 'bug', a.type, fault, hit);
    if (RESOURCE.has(a.type) && d.fencing) return cause(a.type, 'bug', 'fencing', fault, hit);
    // No lock anomaly, no fencing, and a fault that silenced the writer: its write was held up past
    // the end of its hold (Kleppmann's pause between the check and the write), which nothing but
    // a fencing token can stop: inherent to an unfenced lock.
    // A stale write names its writer, then the client whose update it overwrote: either may be the one
    // held up (the late write lands inside the next holder's section, before or after that holder's own).
    if (RESOURCE.has(a.type) && lock.length === 0) {
      for (const p of procs) {
        const who = clientOf.get(p);
        const held = periods.find((f) => silences(f.kind) && who !== undefined && f.clients.includes(who));
        if (held) return cause(a.type, 'inherent', 'delayed-write', held.kind, phase(ops, p, held));
      }
    }
    return cause(a.type, 'unknown', a.type, fault, hit, `no rule for a ${a.type}${RESOURCE.has(a.type) ? ' without fencing and without a lock anomaly' : ''}`);
  }

  function doubleHolder(a: Anomaly, procs: number[]): Cause {
    const s = scanOf(a.key);
    const at = a.times?.[0];
    const mine = s.overlaps.filter((x) => procs.includes(x.first.process) && procs.includes(x.second.process));
    const named = mine.filter((x) => at === undefined || x.second.acquire.completeTime === at);
    let candidates = named.length ? named : mine.slice(0, 1);
    // The sweep pairs the newcomer with one earlier holder only (the one reaching furthest); a
    // semaphore's or read-write lock's anomaly is against every holder beside it: pair it with each.
    const late = candidates[0]?.second;
    if (late && a.type !== 'double-holder') {
      const beside = s.beliefs.filter((b) => b.process !== late.process && procs.includes(b.process) && b.start < late.end && b.end > late.start);
      if (beside.length) candidates = beside.map((first) => ({ first, second: late }));
    }
    if (!candidates.length) { const b = blame(procs, times(a).from, times(a).to); return cause(a.type, 'unknown', 'unmatched', b.fault, b.hit, 'the overlap the checker named was not found again'); }
    // Over-admission names every holder at once: the cause is that of the pair a rule explains (the
    // holder cut off past its session beside its waiter), not of a filler that held by right.
    const all = candidates.map((ov) => overlapCause(a, procs, ov));
    return all.find((c) => c.nature === 'inherent') ?? all.find((c) => c.nature === 'bug') ?? all[0]!;
  }

  function overlapCause(a: Anomaly, procs: number[], ov: ReturnType<typeof findOverlaps>[number]): Cause {
    const t = ov.second.acquire.completeTime;
    const from = ov.first.acquire.invokeTime;
    if (t === undefined || from === undefined) return cause(a.type, 'unknown', 'no-times', 'no fault', 'idle', 'the history has no times');
    // 1. A belief that outlived its lease (or its reported validity).
    for (const b of [ov.first, ov.second]) {
      const out = outlived(b, t);
      if (out) {
        const { fault, hit } = blame([b.process], b.acquire.invokeTime ?? from, t);
        return cause(a.type, 'inherent', out, fault, hit);
      }
    }
    // 2. A fault that breaks a declared property of the design, in the window.
    for (const f of periods) {
      if (f.start > t || (f.end ?? Infinity) < from) continue;
      const why = broken(d, f);
      if (why) return cause(a.type, 'inherent', why, f.kind, 'server');
    }
    // 3. A session lock: the holder's session ended under it (a kind that ends sessions, a cut that closed the connection
    // that is its session, or cut off past the session timeout).
    // The session runs out sessionMs after the server last heard from the holder, which can be
    // before the cut began: its last answer (ZooKeeper once granted the waiter 1964 ms into a cut
    // of a 2000 ms session, 2022 ms after the holder's acquire had returned).
    const fb = blame([ov.first.process], from, t);
    if (!d.leased) {
      const cut = periods.find((f) => f.start <= t && (f.end ?? Infinity) >= from && f.clients.includes(clientOf.get(ov.first.process) ?? '\0')
        && (kindDef(f.kind)?.endsSessions === true || (d.sessionEndsWithConnection === true && kindDef(f.kind)?.closesConnections?.(f.value) === true)
          || (d.sessionMs !== undefined && (Math.min(f.end ?? t, t) - lastAnswer(ov.first.process, f.start)) / 1e6 >= d.sessionMs)));
      if (cut) return cause(a.type, 'inherent', 'session-outlived', cut.kind, fb.hit);
      const any = periods.some((f) => f.start <= t && (f.end ?? Infinity) >= from);
      return any ? cause(a.type, 'unknown', 'session', fb.fault, fb.hit, 'a fault overlapped it, but not one that ends a session') : cause(a.type, 'bug', 'no-fault', 'no fault', fb.hit);
    }
    // A lease the lock keeps alive itself: with no fault at all in the window, its keeping failed (a bug); else unknown.
    if (d.keepsAlive) {
      const any = periods.some((f) => f.start <= t && (f.end ?? Infinity) >= from);
      return any ? cause(a.type, 'unknown', 'kept-alive', fb.fault, fb.hit, 'its lease is kept alive out of sight, so whether it ran out is not in the history')
        : cause(a.type, 'bug', 'within-lease', 'no fault', fb.hit);
    }
    const lease = leaseOf(ov.first) ?? leaseOf(ov.second);
    if (lease === undefined) return cause(a.type, 'unknown', 'no-lease', fb.fault, fb.hit, 'the history records no lease for it');
    // 4. Both within their leases, no design-breaking fault: the lock itself let the second in.
    const b = blame(procs, from, t, true);
    return cause(a.type, 'bug', 'within-lease', b.fault, b.hit);
  }

  /**
   * A client acted as the holder after its lease (checkers/holds.ts): inherent to an unfenced lease
   * (or to a lease, with fencing guarding the resource), the fault that held it named; a lease the
   * lock keeps alive is not judged by its length, so never an exposure here.
   */
  function exposure(a: Anomaly, procs: number[]): Cause {
    const p = procs[0];
    // The checker's own belief decided what it outlived (holds.ts sets exposedBy): read it, not a second rule.
    const b = scanOf(a.key).beliefs.find((x) => x.process === p && x.acquire.completeLine === a.lines[0] && x.exposedBy);
    if (!b) { const w = blame(procs, times(a).from, times(a).to); return cause(a.type, 'unknown', 'exposure', w.fault, w.hit, 'the hold it outlived was not found again'); }
    // Silent longer than the server keeps a hold it does not hear about: its session or kept-alive lease ended.
    if (b.exposedSilence && b.heardFor) {
      const { fault, hit } = blame(procs, b.exposedSilence.from, b.exposedSilence.to);
      return cause(a.type, 'inherent', b.heardFor.what === 'session' ? 'session-outlived' : 'lease-outlived', fault, hit);
    }
    const { fault, hit } = blame(procs, b.acquire.invokeTime ?? times(a).from, b.exposedBy!.invokeTime ?? times(a).to);
    return cause(a.type, 'inherent', 'lease-outlived', fault, hit);
  }

  /** The taker's last grant on key before line `line` (the release), when it came back with its lease already outlived. */
  function lateGrant(key: string, taker: number, line: number): { why: string; fault: string; hit: string } | undefined {
    const b = scanOf(key).beliefs.filter((x) => x.process === taker && x.acquire.completeLine !== undefined && x.acquire.completeLine < line).at(-1);
    const granted = b?.acquire.completeTime;
    const why = b && granted !== undefined ? outlived(b, granted) : undefined;
    if (!b || !why) return undefined;
    return { why, ...blame([taker], b.acquire.invokeTime ?? granted!, granted!) };
  }

  /** 'lease-outlived' / 'validity-outlived' when belief b was still held at t past its lease. */
  function outlived(b: Belief, t: number): string | undefined {
    if (b.validUntil !== undefined && t >= b.validUntil) return 'validity-outlived';
    if (!d.leased) return undefined;
    const lease = leaseOf(b);
    if (lease === undefined) return undefined;
    // Kept alive out of sight: outlived only when a fault silenced its client longer than the lease while it held.
    if (d.keepsAlive) return silenced(b, t, lease) ? 'lease-outlived' : undefined;
    // Since its last grant or renewal ok: beyond the lease, outlived. When in that operation the
    // server started the lease is not recorded: its own round trip counts too, up to a twentieth
    // of the lease (a waiting acquire's whole wait would hide a lock's bug).
    const last = ops.filter((x) => x.process === b.process && x.key === b.acquire.key && x.outcome === 'ok' && (x.f === 'renew' || x === b.acquire)
      && x.completeSeq >= b.acquire.completeSeq && x.completeTime !== undefined && x.completeTime <= t)
      .reduce<Op>((m, x) => (x.completeTime! > m.completeTime! ? x : m), b.acquire);
    const granted = leaseNs(last) ?? lease;
    const trip = last.invokeTime !== undefined && last.completeTime !== undefined ? Math.min(last.completeTime - last.invokeTime, granted / 20) : 0;
    if (last.completeTime !== undefined && t - last.completeTime + trip > granted) return 'lease-outlived';
    // Its grant came back after its lease could have run out, while a fault held its client (a pause inside its acquire).
    const a = b.acquire;
    if (a.invokeTime !== undefined && a.completeTime !== undefined && a.completeTime - a.invokeTime > lease && t >= a.completeTime) {
      const c = clientOf.get(b.process);
      if (periods.some((f) => c !== undefined && f.clients.includes(c) && f.start < a.completeTime! && (f.end ?? Infinity) > a.invokeTime!)) return 'lease-outlived';
    }
    // A fault silenced its client on a reply inside the acquire (the grant may have come in and
    // waited, unread): the server can have started the lease before the fault, so past a lease
    // from the fault's start it may have run out while the client slept.
    if (a.invokeTime !== undefined && a.completeTime !== undefined && t >= a.completeTime) {
      const c = clientOf.get(b.process);
      if (periods.some((f) => c !== undefined && silences(f.kind) && f.clients.includes(c) && f.point?.startsWith('reply:acquire:') === true
        && f.start > a.invokeTime! && f.start < a.completeTime! && t - f.start > lease)) return 'lease-outlived';
    }
    return undefined;
  }

  /** Whether a fault that silences a client (KindDef.silences) held b's client longer than `lease` (ns) between its grant and t. */
  function silenced(b: Belief, t: number, lease: number): boolean {
    const c = clientOf.get(b.process);
    const from = b.acquire.completeTime ?? Infinity;
    return c !== undefined && periods.some((f) => silences(f.kind) && f.clients.includes(c) && Math.min(f.end ?? t, t) - Math.max(f.start, from) > lease);
  }

  /** When the server last surely heard from process p by time `at`: the latest answer (an ok) p had by then, else `at`. */
  function lastAnswer(p: number, at: number): number {
    let last = -Infinity;
    for (const o of ops) {
      const c = o.completeTime;
      if (o.process === p && o.outcome === 'ok' && c !== undefined && c <= at && c > last) last = c;
    }
    return last === -Infinity ? at : last;
  }

  /** The fault that made it possible: one on these clients first, else any in the window; and what it hit. */
  function blame(procs: number[], from: number, to: number, anyFirst = false): { fault: string; hit: string } {
    const over = periods.filter((f) => f.start <= to && (f.end ?? Infinity) >= from);
    const names = procs.map((p) => clientOf.get(p)).filter((c): c is string => c !== undefined);
    const own = over.find((f) => f.clients.some((c) => names.includes(c)));
    const f = (anyFirst ? undefined : own) ?? over.find((x) => x.clients.length > 0) ?? own ?? over[0];
    if (!f) return { fault: 'no fault', hit: 'idle' };
    const c = f.clients[0];
    if (c === undefined) return { fault: f.kind, hit: 'server' };
    const p = [...clientOf].find(([, id]) => id === c)?.[0];
    return { fault: f.kind, hit: p === undefined ? 'idle' : phase(ops, p, f) };
  }

  function cause(anomaly: string, nature: Nature, why: string, fault: string, hit: string, reason?: string): Cause {
    const by = fault === 'no fault' ? '' : ` (${fault}${hit === 'server' ? '' : `, ${hitWords(hit)}`})`;
    const words = nature === 'bug' ? `a bug in this lock: ${BUG_WORDS[why] ?? why}${by}`
      : nature === 'inherent' ? `${DESIGN_WORDS[why]?.(d) ?? 'inherent to its design'}: ${(INHERENT_WORDS[why] ?? why).replace('{verb}', hit === 'server' ? 'kept the lock' : kindDef(fault)?.clientVerb ?? 'kept the lock')}${by}`
      : `not classified: a ${anomaly}${reason ? `, ${reason}` : ''}${by}`;
    return { anomaly, nature, why, fault, hit, words };
  }
}

/** The lease a belief was granted (ns), from its acquire. */
function leaseOf(b: Belief): number | undefined {
  return b.acquire.completeTime === undefined ? undefined : leaseNs(b.acquire);
}

function times(a: Anomaly): { from: number; to: number } {
  const t = a.times ?? [];
  return t.length ? { from: Math.min(...t), to: Math.max(...t) } : { from: -Infinity, to: Infinity };
}

/** Where the client was when the fault began: in an acquire or a release, holding the lock, or idle. */
function phase(ops: readonly Op[], p: number, f: FaultPeriod): string {
  if (f.point) {
    const io = /^(?:send|reply):(\w+):\d+$/.exec(f.point);
    if (io) return io[1] === 'acquire' || io[1] === 'release' ? io[1] : 'holding';
    return f.point === 'before-release' ? 'release' : 'holding';
  }
  const mine = ops.filter((o) => o.process === p && o.invokeTime !== undefined && o.invokeTime <= f.start);
  const last = mine[mine.length - 1];
  if (!last) return 'idle';
  if (last.completeTime === undefined || last.completeTime >= f.start) return last.f === 'acquire' || last.f === 'release' ? last.f : 'holding';
  return last.f === 'acquire' && last.outcome === 'ok' || last.f === 'renew' ? 'holding' : 'idle';
}

const hitWords = (hit: string) => (hit === 'holding' ? 'while it held the lock' : hit === 'idle' ? 'between its operations' : `during its ${hit}`);

const RANK: Record<Nature, number> = { bug: 0, unknown: 1, inherent: 2 };

/** One class per nature the causes show, the weightiest first; each names its own causes once, sorted. */
export function classesOf(causes: readonly Cause[]): CauseClass[] {
  const own = causes.filter((c) => !c.explained);
  // A violation with no lock or resource anomaly (liveness alone): said so, never left without a class.
  if (own.length === 0) return [{ key: 'unknown: no anomaly', nature: 'unknown', words: 'not classified: a violation with no lock or resource anomaly', causes: [] }];
  const natures = [...new Set(own.map((c) => c.nature))].sort((a, b) => RANK[a] - RANK[b]);
  return natures.map((nature) => {
    const mine = own.filter((c) => c.nature === nature);
    const keys = new Map<string, Cause>();
    for (const c of mine) keys.set(`${c.anomaly} · ${c.why} · ${c.fault}@${c.hit}`, c);
    const sorted = [...keys.keys()].sort();
    return { key: `${nature}: ${sorted.join(' + ')}`, nature, words: [...new Set(sorted.map((k) => keys.get(k)!.words))].join('; '), causes: mine };
  });
}
