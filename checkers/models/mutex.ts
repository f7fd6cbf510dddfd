// Lock models of docs/history-format.md: owner-aware mutex (default), Jepsen's owner-unaware
// knossos-mutex, reentrant-mutex and fenced-mutex. States are small immutable values.
// The owner-aware ones know what the server holds (checkers/lease.ts): a failed release keeps
// the hold, a lease may run out. The sweep (checkers/holds.ts) applies the same rules.
import type { Op } from '../../src/history/types.ts';
import type { Inconsistent } from '../types.ts';
import { leaseEnd, leaseNs, ranOut, releaseKind } from '../lease.ts';
import { tokenGreater, tokenOf } from '../values.ts';
import { inconsistent } from './inconsistent.ts';
import type { DescribedModel } from './lockpick-model.ts';

const LOCK_OPS = ['acquire', 'release', 'renew'] as const;
const NONE = -1;
const who = (h: number) => (h === NONE ? 'nobody' : `process ${h}`);
const byKey = (op: Op) => op.key;


/** The server's side of an owner-aware lock. */
export interface LockState {
  readonly holder: number;                  // NONE when free
  readonly count: number;                   // nesting depth (reentrant-mutex); 1 when held otherwise
  readonly deadline: number;                // ns: the server may drop the hold from then on; Infinity: never
  readonly lease: number | undefined;       // ns, for renews that record no lease_ms of their own
  readonly since: number;                   // completeSeq of the acquire that started the hold (-1: no lease)
  readonly last: bigint | number | null;    // fenced-mutex: the last token handed out
}

const FREE: LockState = { holder: NONE, count: 0, deadline: Infinity, lease: undefined, since: -1, last: null };

/** A hold started by acquire op (since = -1 when no lease can end it, so equal states hash alike). */
function started(op: Op, count: number, last: bigint | number | null, prev?: LockState): LockState {
  const deadline = Math.max(leaseEnd(op), prev?.deadline ?? -Infinity);
  const lease = leaseNs(op) ?? prev?.lease;
  const leased = deadline !== Infinity || lease !== undefined;
  return { holder: op.process, count, deadline, lease, since: leased ? Math.max(op.completeSeq, prev?.since ?? -1) : -1, last };
}

const free = (s: LockState): LockState => (s.last === null ? FREE : { ...FREE, last: s.last });

function stillHeld(s: LockState): string {
  return s.deadline === Infinity ? `${who(s.holder)} held the lock` : `${who(s.holder)} held the lock and its lease had not run out`;
}

/**
 * One step of an owner-aware lock. reentrant: the holder's acquire nests (count + 1, the lease
 * refreshed) rather than needing its own lease to have run out. tokens: fenced-mutex.
 */
function lockStep(s: LockState, op: Op, reentrant: boolean, tokens: boolean): LockState | Inconsistent {
  const p = op.process;
  if (op.f === 'acquire') {
    let last = s.last;
    if (tokens) {
      // An info acquire's token is unknown: leave `last` alone (the most permissive choice).
      const t = op.outcome === 'ok' ? tokenOf(op.value) : undefined;
      if (t !== undefined) {
        if (last !== null && !tokenGreater(t, last)) return inconsistent(`process ${p} got token ${t}, not greater than the earlier token ${last}`);
        last = t;
      }
    }
    if (s.holder === NONE) return started(op, 1, last);
    if (s.holder === p && reentrant) return started(op, s.count + 1, last, s);
    if (ranOut(s.deadline, s.since, op)) return started(op, 1, last);
    return inconsistent(s.holder === p
      ? `process ${p} acquired again while it held the lock${s.deadline === Infinity ? '' : ' and its lease had not run out'}; an owner-aware mutex is not reentrant`
      : `process ${p} acquired while ${stillHeld(s)}`);
  }
  if (op.f === 'release') {
    const kind = releaseKind(op);
    if (kind !== 'plain') return s.holder === p ? free(s) : s; // "not yours" / stopped believing: legal whoever holds it
    if (s.holder !== p) return inconsistent(`process ${p} released while ${who(s.holder)} held the lock`);
    return s.count > 1 ? { ...s, count: s.count - 1 } : free(s);
  }
  if (s.holder !== p) return inconsistent(`process ${p} renewed while ${who(s.holder)} held the lock`);
  const deadline = Math.max(s.deadline, leaseEnd(op, s.lease));
  return deadline === s.deadline ? s : { ...s, deadline, since: Math.max(s.since, 0) };
}

function describeLock(s: LockState): string {
  if (s.holder === NONE) return 'free';
  const depth = s.count > 1 ? ` (${s.count} deep)` : '';
  const lease = s.deadline === Infinity ? '' : `, its lease running out at ${Math.round(s.deadline / 1e6)} ms`;
  return `held by process ${s.holder}${depth}${lease}`;
}

const hashLock = (s: LockState) => (s.holder === NONE ? '-' : `${s.holder}/${s.count}/${s.deadline}/${s.since}/${s.lease}`);

/**
 * An acquire a mutex cannot read: a read hold, or a semaphore's permits (docs/history-format.md
 * "Semaphores and read-write locks"). Refused rather than judged: a reader is no second holder.
 */
export function notAMutexHold(op: Op): { rule: string; expected: string; fix: string } | undefined {
  if (op.f !== 'acquire') return undefined;
  const shared = op.mode === 'shared';
  if (!shared && (op.permits ?? 1) === 1 && (op.limit ?? 1) === 1) return undefined;
  const what = shared ? '"mode": "shared" (a read-write lock\'s read hold)' : `"permits": ${op.permits ?? 1} and "limit": ${op.limit ?? 1} (a semaphore's hold)`;
  return {
    rule: 'not-a-mutex-hold',
    expected: `this acquire carries ${what}, which a mutex model cannot judge`,
    fix: `check with --model ${shared ? 'rwlock' : 'semaphore'}`,
  };
}

/** Owner-aware mutex (default): holder, plus the lease the server may drop. */
export const mutex: DescribedModel<LockState> = {
  name: 'mutex',
  description: 'owner-aware mutex: acquire needs the lock free (or the holder\'s lease run out); release and renew need the caller to hold it',
  operations: LOCK_OPS,
  validate: notAMutexHold,
  init: () => FREE,
  step: (s, op) => lockStep(s, op, false, false),
  partition: byKey,
  hash: hashLock,
  describe: describeLock,
};

/** Jepsen's owner-unaware mutex: locked or not, whoever asks. */
export const knossosMutex: DescribedModel<boolean> = {
  name: 'knossos-mutex',
  description: "owner-unaware mutex (Jepsen's): acquire needs it free; release (and renew) need it locked, by anyone",
  operations: LOCK_OPS,
  validate: notAMutexHold,
  init: () => false,
  step(locked: boolean, op: Op): boolean | Inconsistent {
    if (op.f === 'acquire') return locked ? inconsistent(`process ${op.process} acquired while the lock was locked`) : true;
    if (!locked) return inconsistent(`process ${op.process} ${op.f === 'renew' ? 'renewed' : 'released'} while the lock was free`);
    return op.f !== 'release';
  },
  partition: byKey,
  hash: (l) => (l ? '1' : '0'),
  describe: (l) => (l ? 'locked' : 'free'),
};

export const reentrantMutex: DescribedModel<LockState> = {
  name: 'reentrant-mutex',
  description: 'reentrant mutex: the holder may acquire again (count +1); each release takes one off, the lock frees at 0',
  operations: LOCK_OPS,
  validate: notAMutexHold,
  init: () => FREE,
  step: (s, op) => lockStep(s, op, true, false),
  partition: byKey,
  hash: hashLock,
  describe: describeLock,
};

export const fencedMutex: DescribedModel<LockState> = {
  name: 'fenced-mutex',
  description: 'owner-aware mutex whose acquires return fencing tokens: each acquire ok must carry a token greater than every earlier one',
  operations: LOCK_OPS,
  validate(op) {
    const hold = notAMutexHold(op);
    if (hold) return hold;
    if (op.f !== 'acquire' || op.outcome !== 'ok' || tokenOf(op.value) !== undefined) return undefined;
    return {
      rule: 'fenced-token',
      expected: `under fenced-mutex every ok acquire must carry an integer fencing token, "value": {"token": <integer>}; got ${describeValue(op.value)}`,
      fix: 'record the token the lock handed out on the acquire\'s ok line, or check with --model mutex if the lock has no fencing tokens',
    };
  },
  init: () => FREE,
  step: (s, op) => lockStep(s, op, false, true),
  partition: byKey,
  hash: (s) => `${hashLock(s)}/${String(s.last)}`,
  describe: (s) => `${describeLock(s)}, last token ${s.last === null ? 'none' : String(s.last)}`,
};

function describeValue(v: unknown): string {
  if (v === undefined) return 'no value';
  let t: string;
  try { t = typeof v === 'bigint' ? `${v}` : JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}` : x)) ?? String(v); } catch { t = String(v); }
  return t.length > 60 ? `${t.slice(0, 57)}...` : t;
}
