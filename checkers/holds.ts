// Owner-aware lock histories, one key, in one pass over the events (docs/history-format.md "Beliefs and double holders"
// and "What the server holds"). Two questions, kept apart:
// - what each client BELIEVED: from its acquire ok until the invoke of its next release, whatever
//   that release's outcome, or its lapse, or the end of the history; for a lock that reported its
//   validity (`valid_ms` on the acquire ok, moved by a renew ok that reports one) no longer than
//   that: a careful client stops using the lock when it runs out, even if its lapse is recorded
//   later (it was paused). Two beliefs of
//   different processes that overlap are a double holder (findOverlaps).
// - what the SERVER held (checkers/lease.ts, the same rules as the search models in
//   checkers/models/mutex.ts): a failed release keeps the hold, an ok or info release ends it,
//   a lease may run out. Ops the server cannot have allowed are Missteps.
import type { Op } from '../src/history/types.ts';
import { keptAlive, leaseEnd, leaseNs, ranOut, releaseKind, sessionNs } from './lease.ts';
import { longestSilence, type Silences } from './silences.ts';
import { overstatedMs } from './validity.ts';
import { ProcessMap } from '../src/history/process-table.ts';

/** A client's belief that it holds the lock. */
export interface Belief {
  process: number;
  acquire: Op;          // the ok acquire that started it
  release?: Op;         // the release whose invoke ended it (any outcome); undefined: to the end
  start: number;        // acquire.completeSeq
  end: number;          // release.invokeSeq, or Infinity; or the first point at or after validUntil
  failed: boolean;      // that release failed: the lock stayed held at the server
  /** ns: acquire ok + valid_ms, when the lock reported its validity (and the history has times); a renew ok's when it reported one. */
  validUntil?: number;
  /** The op whose valid_ms set validUntil: the acquire, or the last renew ok that reported one. */
  validGrant?: Op;
  /** The belief ended because that validity ran out (at `end`), before any release. */
  expired?: boolean;
  /** Its last renew ok while it believed (the lease runs from there: the stale-unlock words). */
  renewed?: Op;
  /**
   * ns: the latest its lease can have lasted, as its contract reads: the completion of its last
   * grant (acquire ok, or renew ok while it believed) plus that grant's lease_ms. Undefined for a
   * lock without a lease in the history, or one kept alive out of sight (checkers/lease.ts keptAlive).
   */
  leaseUntil?: number;
  /** The op that set leaseUntil (its acquire, or its last renew ok). */
  leaseGrant?: Op;
  /**
   * A hold the server keeps only while it hears from the client: ns it lasts after the client
   * falls silent (a lease kept alive out of sight: its lease_ms; a session: its session_ms).
   */
  heardFor?: { ns: number; what: 'lease' | 'session' };
  /** The first act of the client (a release or renew invoke) past leaseUntil, or after a silence longer than heardFor: an exposure. */
  exposedBy?: Op;
  /** That silence (ns), when it was the cause. */
  exposedSilence?: { from: number; to: number };
}

/** A hold at the server, as the sweep tracks it. */
export interface ServerHold {
  process: number;
  count: number;        // nesting depth (reentrant-mutex)
  acquire: Op;          // the acquire that started it (the latest one, when nested)
  deadline: number;     // ns from which the server may drop it (Infinity: never)
  lease: number | undefined;
  leaseFrom: Op;        // the acquire or renew that set the deadline
  failed?: Op;          // the holder's last release that failed while it held the lock
}

/** How a process's last server hold ended: its own release, or another process took the lock after its lease. */
export type HoldEnd =
  | { hold: ServerHold; release: Op; by?: undefined }
  /** expired: the lease had run out; otherwise the acquire was itself a violation. */
  | { hold: ServerHold; by: Op; expired: boolean; release?: undefined };

/** An op the server cannot have allowed. */
export interface Misstep {
  /**
   * held: another process's acquire ok while the server still held the lock for `holder` (and
   * the beliefs do not overlap: that is a double holder). reacquire: the holder acquired again.
   * stale-release / stale-renew: a plain release ok or a renew ok by a process that did not hold it.
   * expired-grant: an acquire ok (or renew ok) whose reported validity (valid_ms) was already over.
   * overstated-validity: an acquire ok (or renew ok) reporting more validity than its lease can have left (./validity.ts).
   */
  kind: 'held' | 'reacquire' | 'stale-release' | 'stale-renew' | 'expired-grant' | 'overstated-validity';
  op: Op;
  /** held / reacquire: the hold that still stood. */
  holder?: ServerHold;
  /** overstated-validity: the lease (ms) the validity was checked against (a renew's own, else its acquire's). */
  leaseMs?: number;
  /** stale-*: how the process's last hold had ended, if it had one. */
  previous?: HoldEnd;
  /** stale-release: the hold standing at the server when the release ran (someone else's, or none). */
  current?: ServerHold;
}

export interface KeyScan {
  beliefs: Belief[];
  missteps: Misstep[];
  /** Beliefs a client still acted on after its lease (exposedBy set), in the order found. */
  exposures: Belief[];
  /** Every ok acquire the server granted, in completion order (fenced-mutex checks their tokens). */
  grants: Op[];
}

/**
 * Scans the ops of one key (any order). reentrant: the holder's acquires nest and each release
 * takes one off. Every op sits at the point that suits it best: an acquire at its completion (a
 * later point only helps), a release or renew at its invoke (an earlier one only helps); failed
 * ops never happened, info acquires and renews need not take effect (they could only block).
 * O(n log n) for the sort.
 */
export function scanKey(ops: readonly Op[], reentrant = false, silences?: Silences): KeyScan {
  const points: { at: number; op: Op }[] = [];
  for (const op of ops) {
    const at = pointOf(op);
    if (at !== undefined) points.push({ at, op });
  }
  points.sort((a, b) => a.at - b.at);
  const beliefs: Belief[] = [];
  const grants: Op[] = [];
  const scan = new KeyScanner(reentrant, (b) => beliefs.push(b), (op) => grants.push(op), silences);
  for (const { op } of points) scan.feed(op);
  return { beliefs, missteps: scan.missteps, exposures: scan.exposures, grants };
}

/**
 * The event position at which the sweep takes op (see scanKey), or undefined when it is no point at
 * all. A renew of any outcome is one: only an ok renew moves the server's hold, but any renew is
 * its client acting as the holder (an exposure when its lease is over).
 */
export function pointOf(op: Op): number | undefined {
  if (op.f === 'acquire') return op.outcome === 'ok' ? op.completeSeq : undefined;
  if (op.f === 'release' || op.f === 'renew') return op.invokeSeq;
  return undefined;
}

/** Tolerance (ns) past a lease's latest end before an act counts as an exposure: the recorder's own timing. */
export const EXPOSURE_TOLERANCE_NS = 1e6;

/** How much longer than its bound a silence must last to be an exposure (ns): the fault records' own timing around it. */
export const silenceTolerance = (boundNs: number) => 10e6 + boundNs / 50;

/**
 * The sweep's state for one key, fed the points in order (scanKey sorts them; the streaming check,
 * checkers/stream.ts, feeds them as the file is read). onBelief sees each new belief before it is
 * recorded as open, so `believing` then holds the other processes' open beliefs; onGrant sees each
 * ok acquire the server granted, in completion order.
 */
export class KeyScanner {
  /** process -> its open belief and nesting depth. */
  readonly believing = new ProcessMap<{ belief: Belief; depth: number }>();
  /** process -> how its last server hold ended. */
  readonly ended = new Map<number, HoldEnd>();
  readonly missteps: Misstep[] = [];
  /** Beliefs acted on past their lease (Belief.exposedBy), in the order found. */
  readonly exposures: Belief[] = [];
  held: ServerHold | undefined;

  /** silences: when each process was kept from the servers (checkers/silences.ts); the streaming check fills it as it reads. */
  constructor(private readonly reentrant: boolean, private readonly onBelief: (b: Belief) => void, private readonly onGrant: (op: Op) => void, private readonly silences?: Silences) {}

  private grant(op: Op, count: number, prev?: ServerHold): ServerHold {
    const own = leaseEnd(op);
    const deadline = Math.max(own, prev?.deadline ?? -Infinity);
    return {
      process: op.process, count, acquire: op, deadline, lease: leaseNs(op) ?? prev?.lease,
      leaseFrom: prev && prev.deadline >= own ? prev.leaseFrom : op,
    };
  }

  /** Open beliefs with a reported validity: they end when it runs out (few at a time). */
  private readonly valid = new Set<Belief>();

  /** Ends the open beliefs whose validity ran out by `time` (ns), at point `seq`. */
  private expire(time: number | undefined, seq: number): void {
    if (this.valid.size !== 0) endExpired(this.valid, time, seq, (b) => this.believing.delete(b.process)); // no closure made on the hot path
  }

  /** Its client acted (a release or renew invoke at op) as the holder of belief b: past its lease, an exposure. */
  private acted(b: Belief, op: Op): void {
    if (exposedBy(b, op, this.silences)) this.exposures.push(b);
  }

  /** One point: an ok acquire (at its completion), a release or a renew (any outcome, at its invoke). */
  feed(op: Op): void {
    const { believing, ended, missteps, reentrant } = this;
    const p = op.process;
    if (op.f === 'acquire') this.expire(op.completeTime, op.completeSeq);
    else this.expire(op.invokeTime, op.invokeSeq);
    const held = this.held;
    if (op.f === 'acquire') {
      const b = believing.get(p);
      const wrong = validityMisstep(op, undefined);
      if (wrong) missteps.push(wrong);
      if (!b) {
        const belief = newBelief(op);
        if (belief.validUntil !== undefined && !belief.expired) this.valid.add(belief);
        if (!belief.expired) {
          this.onBelief(belief);
          believing.set(p, { belief, depth: 1 });
        }
      } else if (reentrant) b.depth++;
      this.onGrant(op);
      if (!held) this.held = this.grant(op, 1);
      else if (held.process === p && reentrant) this.held = this.grant(op, held.count + 1, held);
      else if (ranOut(held.deadline, -1, op)) {
        if (held.process !== p) ended.set(held.process, { hold: held, by: op, expired: true });
        this.held = this.grant(op, 1);
      } else {
        // Two beliefs overlapping here are the double holder findOverlaps reports.
        if (held.process === p) missteps.push({ kind: 'reacquire', op, holder: held });
        else if (!believing.has(held.process)) missteps.push({ kind: 'held', op, holder: held });
        if (held.process !== p) ended.set(held.process, { hold: held, by: op, expired: false });
        this.held = this.grant(op, 1);
      }
    } else if (op.f === 'release') {
      const kind = releaseKind(op);
      const b = believing.get(p);
      // A lapse is the client giving up on its own clock, not an act as the holder.
      if (b && kind !== 'lapse') this.acted(b.belief, op);
      if (b && (kind !== 'plain' || --b.depth === 0)) {
        this.valid.delete(b.belief);
        b.belief.release = op;
        b.belief.end = op.invokeSeq;
        b.belief.failed = op.outcome === 'fail';
        believing.delete(p);
      }
      const mine = held?.process === p ? held : undefined;
      if (op.outcome === 'fail') { if (mine) mine.failed = op; return; }
      if (kind !== 'plain' || (mine && --mine.count === 0)) {
        if (mine) { ended.set(p, { hold: mine, release: op }); this.held = undefined; }
      } else if (!mine && op.outcome === 'ok') {
        const previous = ended.get(p);
        // After an acquire that was itself the violation (reported), an unlock is stale only
        // while the taker still holds the lock (it may have removed the taker's lock); else it
        // found the lock free and broke nothing more.
        const harmless = previous?.by !== undefined && !previous.expired && held?.process !== previous.by.process;
        if (!harmless) missteps.push({ kind: 'stale-release', op, previous, current: held });
      }
    } else {
      const mine = believing.get(p);
      if (mine) this.acted(mine.belief, op);
      if (op.outcome !== 'ok') return; // a renew that failed or has no answer moved nothing at the server
      if (held?.process === p) {
        const wrong = validityMisstep(op, mine?.belief);
        if (wrong) missteps.push(wrong);
        if (renewed(op, held, mine?.belief)) this.valid.add(mine!.belief);
      } else {
        missteps.push({ kind: 'stale-renew', op, previous: ended.get(p), current: held });
      }
    }
  }
}

/** The belief an acquire ok starts: its lease, session or kept-alive lease, and reported validity as the op records them. */
export function newBelief(op: Op): Belief {
  const belief: Belief = { process: op.process, acquire: op, start: op.completeSeq, end: Infinity, failed: false };
  const lease = leaseNs(op);
  if (lease !== undefined && op.completeTime !== undefined && !keptAlive(op)) {
    belief.leaseUntil = op.completeTime + lease;
    belief.leaseGrant = op;
  }
  const session = sessionNs(op);
  if (session !== undefined) belief.heardFor = { ns: session, what: 'session' };
  else if (lease !== undefined && keptAlive(op)) belief.heardFor = { ns: lease, what: 'lease' };
  if (op.validMs !== undefined && op.completeTime !== undefined) {
    belief.validUntil = op.completeTime + op.validMs * 1e6;
    belief.validGrant = op;
    // Handed out already over (an expired-grant misstep): the careful client never used it.
    if (op.validMs <= 0) belief.expired = true;
  }
  return belief;
}

/**
 * Its client acted (a release or renew invoke at op) as the holder of belief b: past its lease, or
 * after a silence longer than the server keeps it unheard, that is an exposure (b.exposedBy set; true the first time).
 */
export function exposedBy(b: Belief, op: Op, silences: Silences | undefined): boolean {
  if (b.exposedBy || op.invokeTime === undefined) return false;
  const from = b.acquire.completeTime;
  const pastLease = b.leaseUntil !== undefined && op.invokeTime > b.leaseUntil + EXPOSURE_TOLERANCE_NS;
  const s = pastLease || b.heardFor === undefined || from === undefined ? undefined : longestSilence(silences, b.process, from, op.invokeTime);
  const silent = s !== undefined && s.to - s.from > b.heardFor!.ns + silenceTolerance(b.heardFor!.ns);
  if (!pastLease && !silent) return false;
  b.exposedBy = op;
  if (silent) b.exposedSilence = { from: s.from, to: s.to };
  return true;
}

/** Ends the beliefs of `valid` whose reported validity ran out by `time` (ns), at point `seq`; `gone` sees each. */
export function endExpired<B extends Belief>(valid: Set<B>, time: number | undefined, seq: number, gone: (b: B) => void): void {
  if (time === undefined || valid.size === 0) return;
  for (const b of valid) {
    if (b.validUntil! > time) continue;
    valid.delete(b);
    b.end = seq;
    b.expired = true;
    gone(b);
  }
}

/**
 * What an acquire ok's or renew ok's reported validity says of the lock: none left (an expired
 * grant), or more than its lease can have left (./validity.ts; checked against its own lease, a
 * renew without one against its belief's acquire's).
 */
export function validityMisstep(op: Op, b: Belief | undefined): Misstep | undefined {
  if (op.validMs !== undefined && op.validMs <= 0) return { kind: 'expired-grant', op };
  const leaseMs = op.leaseMs ?? b?.acquire.leaseMs;
  return overstatedMs(op, leaseMs) !== undefined ? { kind: 'overstated-validity', op, leaseMs } : undefined;
}

/**
 * A renew ok by the holder: its server hold's lease extended, and its belief's lease dated from
 * it. A renew that reported its validity (`valid_ms`) moves the belief's end to it, later or
 * sooner: the careful client works on until then (true: the belief now has a reported validity,
 * for the caller's set of them). One that reported none leaves the acquire's: the client cannot
 * count on more.
 */
export function renewed(op: Op, held: ServerHold, b: Belief | undefined): boolean {
  let valid = false;
  if (b) {
    b.renewed = op;
    if (op.validMs !== undefined && op.completeTime !== undefined && !b.expired) {
      b.validUntil = op.completeTime + op.validMs * 1e6;
      b.validGrant = op;
      valid = true;
    }
    const lease = leaseNs(op) ?? leaseNs(b.acquire);
    if (b.leaseUntil !== undefined && lease !== undefined && op.completeTime !== undefined && op.completeTime + lease > b.leaseUntil) {
      b.leaseUntil = op.completeTime + lease;
      b.leaseGrant = op;
    }
  }
  const deadline = leaseEnd(op, held.lease);
  if (deadline > held.deadline) { held.deadline = deadline; held.leaseFrom = op; }
  return valid;
}

export interface Overlap { first: Belief; second: Belief }

/**
 * Overlapping beliefs of different processes, found by one pass over them in acquire-completion
 * order keeping the belief that ends last so far: every belief that overlaps an earlier one is
 * reported once, against the earlier belief that reaches furthest. O(b log b).
 */
export function findOverlaps(beliefs: Belief[]): Overlap[] {
  const sorted = beliefs.slice().sort((a, b) => a.start - b.start);
  const out: Overlap[] = [];
  let reach: Belief | undefined;
  for (const h of sorted) {
    if (reach && reach.end > h.start && reach.process !== h.process) out.push({ first: reach, second: h });
    if (!reach || h.end > reach.end) reach = h;
  }
  return out;
}
