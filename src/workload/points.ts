// Points learned, not guessed: where a fault anchored at a client's point can land is what the
// lock's clients actually reached. Before the search, a short fault-free calibration run
// (calibrationPlan: two contending clients, renewing and re-entering when the lock can) reports
// per operation kind the most sends and replies one operation made (src/runner/io-points.ts)
// and the named points (the critical section, the recipe's ctx.point()s) its clients reached;
// learnPoints turns the points list a run draws from ('send', 'reply' and named points) into
// exactly those: a one-command release has 'send:release:1' and no 2nd command to pause before,
// a lock whose client does its I/O outside Node's net (ZooKeeper's C client) gets the send points
// the fault proxy counted (src/runner/proxy-points.ts), or none at all where it frames no
// protocol, and a recipe point on a path the lock never takes is not drawn.
import {
  BEFORE_RELEASE, BEFORE_WRITE, CRITICAL_SECTION, IO_POINT_KINDS, IO_POINT_MAX, IO_POINT_OPS, anchorPoint, anchoredClient, clientId, ioPointName, isAnchoredPause, parseIoPoint,
  type Attempt, type IoPointKind, type IoPointOp, type RunPlan,
} from './plan.ts';
import { expandIoPoints } from '../../nemesis/points.ts';

export { expandIoPoints };

/** The most sends and replies one operation of a kind made. */
export interface IoCounts {
  sends: number; replies: number;
  /** Acquires only: the fewest sends and replies of one that returned the lock (a free lock's acquire reaches these every time). */
  grantedSends?: number;
  grantedReplies?: number;
}

/** What the clients of a run reached: per operation kind its I/O counts, and the named points. */
export interface ReachedPoints {
  io: Partial<Record<IoPointOp, IoCounts>>;
  named: string[];
  /** An acquire reported the validity it left (valid_ms): plans may hold until it runs out (set by the calibration). */
  validity?: boolean;
}

/** The points a search draws from, and what they were learned from (stored in test.json as `points_learned`). */
export interface LearnedPoints {
  points: string[];
  reached: ReachedPoints;
}

/**
 * Learned I/O points go up to this N per operation kind: an acquire that polls sends its SET
 * again and again under contention, and pausing before its 20th try tests nothing its 5th does
 * not; a release of WATCH, GET, MULTI/DEL/EXEC is three sends.
 */
export const LEARNED_IO_MAX = 5;

export function emptyReached(): ReachedPoints {
  return { io: {}, named: [] };
}

/** Both together: the larger count per operation kind and kind of I/O, the named points of either. */
export function mergeReached(a: ReachedPoints, b: ReachedPoints): ReachedPoints {
  const io: ReachedPoints['io'] = {};
  for (const op of IO_POINT_OPS) {
    const x = a.io[op];
    const y = b.io[op];
    if (!x && !y) continue;
    io[op] = { sends: Math.max(x?.sends ?? 0, y?.sends ?? 0), replies: Math.max(x?.replies ?? 0, y?.replies ?? 0) };
    for (const f of ['grantedSends', 'grantedReplies'] as const) {
      const granted = [x?.[f], y?.[f]].filter((n): n is number => n !== undefined);
      if (granted.length) io[op]![f] = Math.min(...granted);
    }
  }
  return { io, named: [...new Set([...a.named, ...b.named])], ...(a.validity || b.validity ? { validity: true } : {}) };
}

const countOf = (kind: IoPointKind, c: IoCounts | undefined) => (kind === 'send' ? c?.sends : c?.replies) ?? 0;

/**
 * The points list narrowed to what was reached: a named point of `base` only if a client reached
 * it, and for 'send' / 'reply' in `base` the concrete 'send:<op>:N' for N from 1 to the most one
 * operation of that kind reached (at most LEARNED_IO_MAX). Undefined when the run reached nothing
 * (no acquire got the lock): the caller keeps `base`.
 */
export function learnPoints(base: readonly string[], reached: ReachedPoints): string[] | undefined {
  const anything = reached.named.length > 0 || Object.values(reached.io).some((c) => c.sends + c.replies > 0);
  if (!anything) return undefined;
  const out = base.filter((p) => !isIoPointEntry(p) && reached.named.includes(p));
  for (const kind of IO_POINT_KINDS) {
    if (!base.includes(kind)) continue;
    for (const op of IO_POINT_OPS) {
      const n = Math.min(LEARNED_IO_MAX, countOf(kind, reached.io[op]));
      for (let i = 1; i <= n; i++) out.push(ioPointName(kind, op, i));
    }
  }
  return out.length ? out : undefined;
}

/** The learned points in one line: `acquire sends 1..1 replies 1..1, release sends 1..2 ..., named: after-compare`. */
export function describeLearned(base: readonly string[], reached: ReachedPoints, ioWhy = "the client's I/O is not on Node's sockets"): string {
  const parts: string[] = [];
  for (const op of IO_POINT_OPS) {
    const kinds = IO_POINT_KINDS.filter((k) => base.includes(k) && countOf(k, reached.io[op]) > 0).map((k) => {
      const n = countOf(k, reached.io[op]);
      return `${k === 'send' ? 'sends' : 'replies'} 1..${Math.min(n, LEARNED_IO_MAX)}${n > LEARNED_IO_MAX ? ` (of ${n})` : ''}`;
    });
    if (kinds.length) parts.push(`${op} ${kinds.join(' ')}`);
  }
  const ioAsked = IO_POINT_KINDS.filter((k) => base.includes(k));
  if (ioAsked.length && parts.length === 0) parts.push(`no ${ioAsked.join('/')} (${ioWhy})`);
  const named = base.filter((p) => !isIoPointEntry(p));
  const reachedNamed = named.filter((p) => reached.named.includes(p));
  if (named.length) parts.push(`named: ${reachedNamed.join(', ') || 'none'}`);
  const missed = named.filter((p) => !reached.named.includes(p));
  if (missed.length) parts.push(`not reached: ${missed.join(', ')}`);
  return parts.join(', ');
}

/** 'send', 'reply' or a concrete 'send:release:2': an I/O entry of a points list, not a named point. */
export function isIoPointEntry(p: string): boolean {
  return (IO_POINT_KINDS as readonly string[]).includes(p) || parseIoPoint(p) !== undefined;
}

/** The named points of a list (neither I/O kinds nor concrete I/O points). */
export function namedPointsOf(points: readonly string[]): string[] {
  return points.filter((p) => !isIoPointEntry(p));
}

/**
 * Whether a points list lets a fault anchor at `name`: it is in the list, or it is an I/O point
 * and the list has its bare kind ('send': any N, as before points were learned).
 */
export function allowsPoint(points: readonly string[] | undefined, name: string): boolean {
  if (!points) return name === CRITICAL_SECTION;
  if (points.includes(name)) return true;
  const io = parseIoPoint(name);
  return io !== undefined && points.includes(io.kind);
}

/** The I/O entries of a points list (bare kinds and concrete points), for a kind's generator. */
export function ioPointsOf(points: readonly string[] | undefined): string[] {
  return (points ?? []).filter(isIoPointEntry);
}


/**
 * Whether every fault anchored at a client's point could take effect: its client has an attempt
 * (a point of a renew: an attempt that renews). A pause anchored in a client that shrank to no
 * attempts never fires, and its run is inconclusive: such a plan is not drawn.
 */
export function anchorsReachable(plan: RunPlan): boolean {
  return plan.faults.every((f) => {
    if (!isAnchoredPause(f)) return true;
    const i = plan.clients.findIndex((_, j) => clientId(j) === anchoredClient(f));
    const attempts = plan.clients[i]?.attempts ?? [];
    return parseIoPoint(anchorPoint(f) ?? '')?.op === 'renew' ? attempts.some((a) => a.renew) : attempts.length > 0;
  });
}

/** Points a client reaches only once its acquire returned the lock (a recipe's own points may be anywhere). */
const HOLDER_POINTS: readonly string[] = [CRITICAL_SECTION, BEFORE_WRITE, BEFORE_RELEASE];
/** A release and the next acquire's poll, beside the hold a waiter sits out. */
const HOLD_SLACK_MS = 50;

/**
 * Whether one fault is due while its clients still act, as far as the plan tells. A point only a
 * holder reaches (its critical section, its write, its release or renew) needs an attempt of its
 * client that starts once the fault is armed and gets the lock: the first one, before every
 * other client's (the lock is free), or one that waits longer than any other client holds; a client
 * that waits behind long holds and gives up never reaches it (a Redisson-style lock under
 * in-critical-section pauses: one run in five, 2026-11-26). A fault timed from the run's start
 * must be due before the clients can all be done: the longest client's attempts each last at
 * least their delay and the shorter of their wait and hold (a kill due at 399 ms found the
 * clients done at 247 ms).
 */
export function faultDue(plan: RunPlan, f: RunPlan['faults'][number]): boolean {
  if (!isAnchoredPause(f)) {
    const busyMs = Math.max(0, ...plan.clients.map((c) => c.attempts.reduce((t, a) => t + a.delayMs + Math.min(a.waitMs, a.holdMs), 0)));
    return f.at_ms < busyMs;
  }
  const point = anchorPoint(f) ?? '';
  const io = parseIoPoint(point);
  if (!(io ? io.op !== 'acquire' : HOLDER_POINTS.includes(point))) return true;
  const i = plan.clients.findIndex((_, j) => clientId(j) === anchoredClient(f));
  const attempts = plan.clients[i]?.attempts ?? [];
  const others = plan.clients.filter((_, j) => j !== i).map((c) => c.attempts);
  // Outwaiting the longest hold of another client: a waiter that gives up before one holder has
  // let go never holds (the sum of all holds would be surer, and drops plans that do hold).
  const heldAhead = Math.max(0, ...others.flat().map((a) => a.holdMs)) + HOLD_SLACK_MS;
  // Attempt k starts no sooner than the delays and the shorter of wait and hold before it:
  // armed by then, it reaches the point if it gets the lock.
  let startsMs = 0;
  return attempts.some((a, k) => {
    startsMs += a.delayMs;
    const gets = (k === 0 && others.every((o) => o.length === 0 || o[0]!.delayMs > a.delayMs)) || a.waitMs >= heldAhead;
    const armed = f.at_ms <= startsMs;
    startsMs += Math.min(a.waitMs, a.holdMs);
    return gets && armed;
  });
}

/**
 * Whether the plan can test every fault kind it has: its anchored faults can fire at all
 * (anchorsReachable), and each kind has a fault that is due while the clients act (faultDue).
 * A kind none of whose faults took effect leaves the run inconclusive; a fault that misses
 * beside another of its kind that lands costs nothing.
 */
export function faultsCanTakeEffect(plan: RunPlan): boolean {
  if (!anchorsReachable(plan)) return false;
  return [...new Set(plan.faults.map((f) => f.kind))].every((k) => plan.faults.some((f) => f.kind === k && faultDue(plan, f)));
}

/**
 * The calibration run: no fault, two clients on one key, the second arriving while the first
 * holds and waiting until it can take the lock, so acquires retry as under contention; each
 * holds long enough to renew (when the lock can) and re-enters (when it is reentrant).
 */
export function calibrationPlan(o: { ttlMs: number; renew?: boolean; reentrant?: boolean; sessionMs?: number }): RunPlan {
  const ttl = o.ttlMs;
  const attempt = (delayMs: number): Attempt => ({
    // renew undefined (a user lock that does not say): ask, and the run shows whether it has renew().
    key: 'k0', delayMs, waitMs: 2 * ttl + (o.sessionMs ?? 0), holdMs: Math.floor(ttl / 4), renew: o.renew !== false,
    ...(o.reentrant ? { reenter: true } : {}),
  });
  return { ttlMs: ttl, clients: [{ attempts: [attempt(0)] }, { attempts: [attempt(Math.floor(ttl / 8))] }], faults: [] };
}
