// Shared plumbing of the one-node Redis recipes: the node's client and its lifetime, what their
// LockRecipes say alike, and the SET key value NX PX ttl acquisition (the Redis source posts)
// they all start with.
import type { Redis } from 'ioredis';
import type { Held, Lock, LockContext } from './lock.ts';
import { openRedis, whenReady } from './redis-client.ts';
import { numberOption } from './options.ts';
import { reportsValidity, validityFields, validUntil } from './reported-validity.ts';
import { pollAcquire } from './retry.ts';
import { COMPARE_AND_DELETE } from './lua.ts';

/** Connects to ctx.endpoints[0], the recipe's single Redis node. */
export async function connectSingle(ctx: LockContext, recipe: string): Promise<Redis> {
  const ep = ctx.endpoints[0];
  if (!ep) throw new Error(`lock ${recipe}: the lock context of client ${ctx.clientId} has no endpoints; it needs one Redis node (topology redis, masters 1)`);
  const r = await openRedis(ctx, ep);
  await whenReady(r, Math.max(1000, ctx.commandTimeoutMs));
  return r;
}

export const RETRY_HELP = { retryMs: 'pause between acquire attempts while the lock is taken (default 50 ms)' };

/** The LockRecipe fields every one-node recipe shares: one master, and the retry option. */
export const SINGLE_NODE = { topology: { kind: 'redis', masters: 1 }, optionsHelp: RETRY_HELP, optionValues: { retryMs: 'number' } } as const;

/** A lock on the single node: `ops` acquire and release over the connection, which close() ends. */
export async function singleNodeLock(ctx: LockContext, recipe: string, ops: (r: Redis) => Pick<Lock, 'acquire' | 'release'>): Promise<Lock> {
  const r = await connectSingle(ctx, recipe);
  return { name: recipe, ...ops(r), async close() { r.disconnect(false); } };
}

export function retryMs(ctx: LockContext, recipe: string): number {
  return numberOption(ctx, recipe, 'retryMs', 50);
}

/** The LockRecipe fields of the recipes that acquire with setNxPx: SINGLE_NODE and the validity option (reported-validity.ts). */
const V = validityFields('SET');
export const SET_NX_PX = {
  ...SINGLE_NODE,
  optionsHelp: { ...RETRY_HELP, validity: V.help },
  optionValues: { retryMs: 'number', validity: V.values },
  clockDriftMs: V.clockDriftMs,
} as const;

/** What setNxPx took: the validity's end on the client's monotonic clock when the lock reports one. */
export interface SetGrant { validUntilMs?: number }

/** `SET key value NX PX ttl`, retried within the wait budget: the grant when this client set it, else null. */
export async function setNxPx(r: Redis, ctx: LockContext, recipe: string, key: string, value: string, ttlMs: number, waitMs: number): Promise<SetGrant | null> {
  const reported = reportsValidity(ctx, recipe);
  return pollAcquire(ctx, waitMs, retryMs(ctx, recipe), async (): Promise<SetGrant | null> => {
    // Read before the SET is sent: the server starts its PX after it arrives, so the lease there
    // ends no sooner than this + TTL (on one clock rate, within the drift).
    const t0 = ctx.clock.monoMs();
    if ((await r.set(key, value, 'PX', ttlMs, 'NX')) !== 'OK') return null;
    if (!reported) return {};
    const validUntilMs = validUntil(t0, ttlMs);
    if (validUntilMs > ctx.clock.monoMs()) return { validUntilMs };
    // Granted already over (the reply came late: a pause, a slow link): give the key back, try again.
    await r.eval(COMPARE_AND_DELETE, 1, key, value);
    return null;
  });
}

/** The Held for a setNxPx grant (null: not taken): the key, the value when the unlock needs it, the validity when reported. */
export function grantOf(key: string, value: string | undefined, g: SetGrant | null): Held | null {
  if (!g) return null;
  return { key, ...(value !== undefined ? { value } : {}), ...(g.validUntilMs !== undefined ? { validUntilMs: g.validUntilMs } : {}) };
}
