// Shared plumbing of the one-node Redis recipes: the node's client and its lifetime, what their
// LockRecipes say alike, and the SET key value NX PX ttl acquisition (seeds 000, 002, 003) they
// all start with.
import type { Redis } from 'ioredis';
import type { Lock, LockContext } from './lock.ts';
import { openRedis, whenReady } from './redis-client.ts';
import { numberOption } from './options.ts';
import { pollAcquire } from './retry.ts';

/** Connects to ctx.endpoints[0], the recipe's single Redis node. */
export async function connectSingle(ctx: LockContext, recipe: string): Promise<Redis> {
  const ep = ctx.endpoints[0];
  if (!ep) throw new Error(`lock ${recipe}: the lock context of client ${ctx.clientId} has no endpoints; it needs one Redis node (topology redis, masters 1)`);
  const r = openRedis(ctx, ep);
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

/** `SET key value NX PX ttl`, retried within the wait budget; true when this client set it. */
export async function setNxPx(r: Redis, ctx: LockContext, recipe: string, key: string, value: string, ttlMs: number, waitMs: number): Promise<boolean> {
  const got = await pollAcquire(ctx, waitMs, retryMs(ctx, recipe), async () =>
    (await r.set(key, value, 'PX', ttlMs, 'NX')) === 'OK' ? true : null);
  return got === true;
}
