// Lock models with several holds at once (docs/history-format.md "Semaphores and read-write
// locks"): a counting semaphore of `limit` permits and a read-write lock. The state is the holds
// the server keeps, sorted by process; each is owner-aware as the mutex is (checkers/models/mutex.ts):
// a failed release keeps the hold, a lease may run out, a release or renew needs its own hold,
// a process holds a key once (no nesting). The sweep (checkers/permit-sweep.ts) applies the same rules.
import type { Op } from '../../src/history/types.ts';
import type { Inconsistent } from '../types.ts';
import { leaseEnd, leaseNs, ranOut, releaseKind } from '../lease.ts';
import { inconsistent } from './inconsistent.ts';
import type { DescribedModel } from './lockpick-model.ts';

/** One hold at the server. */
export interface PermitHold {
  readonly process: number;
  readonly permits: number;                 // semaphore: permits taken; rwlock: 1
  readonly shared: boolean;                 // rwlock: a read hold
  readonly deadline: number;                // ns: the server may drop it from then on; Infinity: never
  readonly lease: number | undefined;       // ns, for renews that record no lease_ms of their own
  readonly since: number;                   // completeSeq of its acquire (-1: no lease, so equal states hash alike)
}

export type PermitState = readonly PermitHold[];

/** What a hold of op needs: how many permits of how many (semaphore), or its mode (rwlock). */
export const permitsOf = (op: Op): number => op.permits ?? 1;
export const limitOf = (op: Op): number => op.limit ?? 1;
export const isShared = (op: Op): boolean => op.mode === 'shared';

/** Whether a new hold of op fits beside the standing holds. */
export type Fits = (holds: PermitState, op: Op) => boolean;

export const semaphoreFits: Fits = (holds, op) => {
  let used = permitsOf(op);
  for (const h of holds) used += h.permits;
  return used <= limitOf(op);
};

export const rwlockFits: Fits = (holds, op) => (isShared(op) ? holds.every((h) => h.shared) : holds.length === 0);

function hold(op: Op, prev?: PermitHold): PermitHold {
  const deadline = leaseEnd(op);
  const lease = leaseNs(op);
  const leased = deadline !== Infinity || lease !== undefined;
  return { process: op.process, permits: permitsOf(op), shared: isShared(op), deadline, lease: lease ?? prev?.lease, since: leased ? op.completeSeq : -1 };
}

const withHold = (s: PermitState, h: PermitHold): PermitState => [...s, h].sort((a, b) => a.process - b.process);

/**
 * One step. An answered acquire that finds no room drops every hold whose lease had run out by
 * its return (the lenient reading of checkers/lease.ts: a hold outlives its lease until another
 * acquire needs its room), then needs room.
 */
function permitStep(s: PermitState, op: Op, fits: Fits, what: (holds: PermitState) => string): PermitState | Inconsistent {
  const p = op.process;
  const mine = s.find((h) => h.process === p);
  if (op.f === 'acquire') {
    if (mine && !ranOut(mine.deadline, mine.since, op)) return inconsistent(`process ${p} acquired again while it held the lock; a process holds a semaphore or read-write lock once`);
    const rest = mine ? s.filter((h) => h !== mine) : s;
    if (fits(rest, op)) return withHold(rest, hold(op));
    // Only an answered acquire makes room: an unanswered one takes effect only where there is room
    // (it could only block), as the sweep reads it; else it would evict holds nobody saw go.
    const standing = op.outcome === 'ok' ? rest.filter((h) => !ranOut(h.deadline, h.since, op)) : rest;
    if (standing.length < rest.length && fits(standing, op)) return withHold(standing, hold(op));
    return inconsistent(`process ${p}'s acquire${describeNeed(op, fits)} does not fit: ${what(standing)}`);
  }
  if (op.f === 'release') {
    if (releaseKind(op) !== 'plain') return mine ? s.filter((h) => h !== mine) : s; // lost or lapse: legal whoever holds it
    if (!mine) return inconsistent(`process ${p} released while it held no permit (${what(s)})`);
    return s.filter((h) => h !== mine);
  }
  if (!mine) return inconsistent(`process ${p} renewed while it held no permit (${what(s)})`);
  const deadline = Math.max(mine.deadline, leaseEnd(op, mine.lease));
  if (deadline === mine.deadline) return s;
  return s.map((h) => (h === mine ? { ...h, deadline, since: Math.max(h.since, 0) } : h));
}

function describeNeed(op: Op, fits: Fits): string {
  if (fits === rwlockFits) return isShared(op) ? ' (shared)' : ' (exclusive)';
  return ` of ${permitsOf(op)} permit${permitsOf(op) === 1 ? '' : 's'} (limit ${limitOf(op)})`;
}

const lease = (h: PermitHold) => (h.deadline === Infinity ? '' : `, lease to ${Math.round(h.deadline / 1e6)} ms`);

function describeSemaphore(s: PermitState): string {
  if (s.length === 0) return 'no permits held';
  const used = s.reduce((n, h) => n + h.permits, 0);
  return `${used} permit${used === 1 ? '' : 's'} held (${s.map((h) => `process ${h.process}: ${h.permits}${lease(h)}`).join('; ')})`;
}

function describeRwlock(s: PermitState): string {
  if (s.length === 0) return 'free';
  return s[0]!.shared ? `read by ${s.map((h) => `process ${h.process}${lease(h)}`).join(', ')}` : `written by process ${s[0]!.process}${lease(s[0]!)}`;
}

const hashHolds = (s: PermitState) => (s.length === 0 ? '-' : s.map((h) => `${h.process}/${h.permits}/${h.shared ? 's' : 'x'}/${h.deadline}/${h.since}/${h.lease}`).join(','));

function describeOp(op: Op): string {
  if (op.f !== 'acquire') return op.f;
  if (op.mode !== undefined) return `acquire (${op.mode})`;
  return op.permits === undefined ? 'acquire' : `acquire of ${op.permits} permits`;
}

const LOCK_OPS = ['acquire', 'release', 'renew'] as const;

/** Counting semaphore: the holds' permits sum to at most the acquires' `limit`. */
export const semaphore: DescribedModel<PermitState> = {
  name: 'semaphore',
  description: 'counting semaphore: acquire of `permits` (default 1) needs the standing holds plus its own to be at most `limit`; release and renew need the caller to hold',
  operations: LOCK_OPS,
  validate: (op) => (op.f === 'acquire' && op.mode === 'shared' ? 'a semaphore hold has no shared mode ("mode": "shared" is a read-write lock\'s read hold: check with --model rwlock)' : undefined),
  init: () => [],
  step: (s, op) => permitStep(s, op, semaphoreFits, describeSemaphore),
  partition: (op) => op.key,
  hash: hashHolds,
  describe: describeSemaphore,
  describeOp,
};

/** Read-write lock: shared holds together, or one exclusive hold alone. */
export const rwlock: DescribedModel<PermitState> = {
  name: 'rwlock',
  description: 'read-write lock: a shared acquire needs no exclusive hold standing, an exclusive one needs no hold at all; release and renew need the caller to hold',
  operations: LOCK_OPS,
  validate: (op) => (op.f === 'acquire' && (permitsOf(op) > 1 || limitOf(op) > 1)
    ? 'a read-write lock\'s hold takes no permits ("permits" and "limit" above 1 are a semaphore\'s: check with --model semaphore)' : undefined),
  init: () => [],
  step: (s, op) => permitStep(s, op, rwlockFits, describeRwlock),
  partition: (op) => op.key,
  hash: hashHolds,
  describe: describeRwlock,
  describeOp,
};
