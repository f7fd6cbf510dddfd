// Lock models from HISTORY.md: owner-aware mutex (default), Jepsen's owner-unaware
// knossos-mutex, reentrant-mutex and fenced-mutex. States are small immutable values.
import type { Op } from '../../src/history/types.ts';
import type { Inconsistent } from '../types.ts';
import { tokenGreater, tokenOf } from '../values.ts';
import { inconsistent } from './inconsistent.ts';
import type { DescribedModel } from './lockpick-model.ts';

const LOCK_OPS = ['acquire', 'release', 'renew'] as const;
const NONE = -1;
const who = (h: number) => (h === NONE ? 'nobody' : `process ${h}`);
const byKey = (op: Op) => op.key;

/** holder: the owning process, or -1 when free. */
export const mutex: DescribedModel<number> = {
  name: 'mutex',
  description: 'owner-aware mutex: acquire needs the lock free; release and renew need the caller to hold it',
  operations: LOCK_OPS,
  init: () => NONE,
  step(h: number, op: Op): number | Inconsistent {
    if (op.f === 'acquire') {
      return h === NONE ? op.process : inconsistent(`process ${op.process} acquired while ${who(h)} held the lock`);
    }
    if (h !== op.process) return inconsistent(`process ${op.process} ${op.f === 'renew' ? 'renewed' : 'released'} while ${who(h)} held the lock`);
    return op.f === 'release' ? NONE : h;
  },
  partition: byKey,
  hash: (h) => String(h),
  describe: (h) => (h === NONE ? 'free' : `held by process ${h}`),
};

/** Jepsen's owner-unaware mutex: locked or not, whoever asks. */
export const knossosMutex: DescribedModel<boolean> = {
  name: 'knossos-mutex',
  description: "owner-unaware mutex (Jepsen's): acquire needs it free; release (and renew) need it locked, by anyone",
  operations: LOCK_OPS,
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

interface Reentrant { readonly holder: number; readonly count: number }
const FREE: Reentrant = { holder: NONE, count: 0 };

export const reentrantMutex: DescribedModel<Reentrant> = {
  name: 'reentrant-mutex',
  description: 'reentrant mutex: the holder may acquire again (count +1); each release takes one off, the lock frees at 0',
  operations: LOCK_OPS,
  init: () => FREE,
  step(s: Reentrant, op: Op): Reentrant | Inconsistent {
    if (op.f === 'acquire') {
      if (s.holder === NONE) return { holder: op.process, count: 1 };
      if (s.holder === op.process) return { holder: s.holder, count: s.count + 1 };
      return inconsistent(`process ${op.process} acquired while ${who(s.holder)} held the lock`);
    }
    if (s.holder !== op.process) return inconsistent(`process ${op.process} ${op.f === 'renew' ? 'renewed' : 'released'} while ${who(s.holder)} held the lock`);
    if (op.f === 'renew') return s;
    return s.count === 1 ? FREE : { holder: s.holder, count: s.count - 1 };
  },
  partition: byKey,
  hash: (s) => `${s.holder}/${s.count}`,
  describe: (s) => (s.holder === NONE ? 'free' : `held by process ${s.holder} (${s.count} deep)`),
};

interface Fenced { readonly holder: number; readonly last: bigint | number | null }

export const fencedMutex: DescribedModel<Fenced> = {
  name: 'fenced-mutex',
  description: 'owner-aware mutex whose acquires return fencing tokens: each acquire ok must carry a token greater than every earlier one',
  operations: LOCK_OPS,
  init: () => ({ holder: NONE, last: null }),
  step(s: Fenced, op: Op): Fenced | Inconsistent {
    if (op.f === 'acquire') {
      if (s.holder !== NONE) return inconsistent(`process ${op.process} acquired while ${who(s.holder)} held the lock`);
      // An info acquire's token is unknown: leave `last` alone (the most permissive choice).
      const t = op.outcome === 'ok' ? tokenOf(op.value) : undefined;
      if (t === undefined) return { holder: op.process, last: s.last };
      if (s.last !== null && !tokenGreater(t, s.last)) {
        return inconsistent(`process ${op.process} got token ${t}, not greater than the earlier token ${s.last}`);
      }
      return { holder: op.process, last: t };
    }
    const h = mutex.step(s.holder, op);
    return typeof h === 'number' ? { holder: h, last: s.last } : h;
  },
  partition: byKey,
  hash: (s) => `${s.holder}/${String(s.last)}`,
  describe: (s) => `${s.holder === NONE ? 'free' : `held by process ${s.holder}`}, last token ${s.last === null ? 'none' : String(s.last)}`,
};
