// What kind of lock a recipe declares (LockRecipe.semaphore, LockRecipe.modes) and what follows
// from it: the checker's model, the fields an acquire records (docs/history-format.md: `mode`,
// `permits`, `limit`), and the problems of a declaration. Read from the declaration, never the name.
import type { AcquireOptions, HoldMode, LockRecipe, SemaphoreShape } from './lock.ts';

export const HOLD_MODES: readonly HoldMode[] = ['exclusive', 'shared'];

/** The model a run checks its history by: 'semaphore' or 'rwlock' when declared so, else the recipe's model. */
export function lockModel(r: Pick<LockRecipe, 'model' | 'semaphore' | 'modes'>): string {
  if (r.semaphore) return 'semaphore';
  if (r.modes) return 'rwlock';
  return r.model;
}

/** What a run tells each client of the lock's kind (RunJob.shape): the semaphore's limit, or the read-write modes. */
export interface LockShape { semaphore?: SemaphoreShape; modes?: readonly HoldMode[] }

export function shapeOf(r: Pick<LockRecipe, 'semaphore' | 'modes'>): LockShape | undefined {
  if (r.semaphore) return { semaphore: r.semaphore };
  if (r.modes) return { modes: r.modes };
  return undefined;
}

/** The acquire options of one attempt for a lock of this shape: mode for a read-write lock, permits and limit for a semaphore. */
export function shapedAcquire(shape: LockShape | undefined, a: { mode?: HoldMode; permits?: number }): Pick<AcquireOptions, 'mode' | 'permits' | 'limit'> {
  if (shape?.semaphore) return { permits: a.permits ?? 1, limit: shape.semaphore.limit };
  if (shape?.modes) return { mode: a.mode ?? 'exclusive' };
  return {};
}

/** The history fields of an acquire (its invoke and its completion): the same as the options, in the history's names. */
export function acquireFields(o: Pick<AcquireOptions, 'mode' | 'permits' | 'limit'>): Record<string, unknown> {
  return { ...(o.mode ? { mode: o.mode } : {}), ...(o.permits !== undefined ? { permits: o.permits } : {}), ...(o.limit !== undefined ? { limit: o.limit } : {}) };
}

/** What is wrong with a recipe's declaration of its kind (empty: nothing). */
export function shapeProblems(r: Pick<LockRecipe, 'model' | 'semaphore' | 'modes'>): string[] {
  const out: string[] = [];
  if (r.semaphore && r.modes) out.push('semaphore and modes: a lock is a semaphore or a read-write lock, not both');
  if (r.semaphore) {
    const n = r.semaphore.limit;
    if (!(Number.isSafeInteger(n) && n >= 1)) out.push('semaphore.limit: an integer ≥ 1 (the permits there are)');
    if (r.semaphore.multiPermit !== undefined && typeof r.semaphore.multiPermit !== 'boolean') out.push('semaphore.multiPermit: true or false');
    if (r.model !== 'semaphore') out.push(`model: 'semaphore' for a lock that declares semaphore (it says '${r.model}')`);
  } else if (r.model === 'semaphore') out.push('semaphore: { limit: N } for a lock whose model is semaphore');
  if (r.modes) {
    if (!(Array.isArray(r.modes) && r.modes.length > 0 && r.modes.every((m) => HOLD_MODES.includes(m)))) out.push(`modes: a list of ${HOLD_MODES.join(', ')}`);
    if (r.model !== 'rwlock') out.push(`model: 'rwlock' for a lock that declares modes (it says '${r.model}')`);
  } else if (r.model === 'rwlock') out.push("modes: [\"exclusive\", \"shared\"] for a lock whose model is rwlock");
  return out;
}
