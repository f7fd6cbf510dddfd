// --lock-opt validity, for lease locks whose seeds write no validity. 'none' (the default, as the
// seeds write it): the client believes it holds until it releases, so a pause past the TTL outlives
// the lease. 'reported': acquire reports the validity the distlock page gives a careful client, the
// TTL counted from before the request that took the key, less the drift; the worker's careful client
// stops using the hold when it runs out (docs/history-format.md `valid_ms`). Shared by every backend's recipes.
import type { LockContext } from './lock.ts';
import { choiceOption } from './options.ts';

/** The drift the Redis reference code allows a lease of ttlMs (Redlock's: 1 % of the TTL + 2 ms). */
export const referenceDriftMs = (ttlMs: number): number => Math.round(ttlMs * 0.01) + 2;

export const VALIDITY = ['none', 'reported'] as const;

/** The LockRecipe fields for the option: its help (`request` names what took the key), its values, the drift it declares. */
export function validityFields(request: string) {
  return {
    help: `none (default: held until released) or reported: acquire reports its validity, TTL − time since before the ${request} − drift (1 % + 2 ms)`,
    values: VALIDITY,
    // The servers' clock drift the lock allows for: only a lock that reports its validity allows any.
    clockDriftMs: (ttlMs: number, options?: Record<string, unknown>) => (options?.validity === 'reported' ? referenceDriftMs(ttlMs) : 0),
  } as const;
}

/** Whether this client's lock reports its validity (--lock-opt validity=reported). */
export const reportsValidity = (ctx: LockContext, recipe: string): boolean => choiceOption(ctx, recipe, 'validity', VALIDITY, 'none') === 'reported';

/** The validity's end on the client's monotonic clock, for a key taken by a request sent at t0 with ttlMs. */
export const validUntil = (t0: number, ttlMs: number): number => t0 + ttlMs - referenceDriftMs(ttlMs);
