// ioredis connections for lock recipes, configured so every command has exactly
// one of three outcomes the runner can record honestly:
//   reply            → the command happened (or Redis refused it: a ReplyError, definite);
//   never sent       → no offline queue, so a command issued while disconnected
//                      fails at once ("Stream isn't writeable"): definite;
//   sent, no reply   → commandTimeout / connection closed: unknown (the recipe throws → info).
// No automatic resend after a reconnect: a resent SET NX would make outcomes ambiguous.
// ioredis loads on the first connection (ARCHITECTURE: client libraries load lazily).
import type { Redis, RedisOptions } from 'ioredis';
import type { Endpoint } from '../env/types.ts';
import type { LockContext } from './lock.ts';

export function redisOptions(ctx: LockContext, extra: Partial<RedisOptions> = {}): RedisOptions {
  return {
    commandTimeout: ctx.commandTimeoutMs,
    connectTimeout: Math.max(1000, ctx.commandTimeoutMs),
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    retryStrategy: (times) => Math.min(20 * times, 500),
    lazyConnect: true,
    ...extra,
  };
}

/** A client for one data node; connecting starts now, commands fail fast until ready. */
export async function openRedis(ctx: LockContext, ep: Endpoint, extra: Partial<RedisOptions> = {}): Promise<Redis> {
  const { Redis } = await import('ioredis');
  const r = new Redis({ host: ep.host, port: ep.port, connectionName: `lockpick:${ctx.clientId}`, ...redisOptions(ctx, extra) });
  watch(r);
  return r;
}

/** A client for the primary that Sentinel names (ctx.roles.sentinel / ctx.settings.masterName). */
export async function openSentinelRedis(ctx: LockContext, extra: Partial<RedisOptions> = {}): Promise<Redis> {
  const sentinels = ctx.roles?.sentinel;
  const name = ctx.settings?.masterName;
  if (!sentinels?.length || !name) {
    throw new Error(`lock context for client ${ctx.clientId}: a Sentinel recipe needs ctx.roles.sentinel and ctx.settings.masterName; run it on the 'redis-sentinel' topology`);
  }
  const { Redis } = await import('ioredis');
  const r = new Redis({
    sentinels: sentinels.map((s) => ({ host: s.host, port: s.port })),
    name,
    role: 'master',
    // Keep every connection on the proxied links the environment gave us.
    updateSentinels: false,
    natMap: ctx.addressMap,
    // Follow +switch-master at once (ioredis' own option), as a production client
    // should; otherwise a connection to a paused old primary just times out.
    failoverDetector: true,
    sentinelCommandTimeout: ctx.commandTimeoutMs,
    sentinelRetryStrategy: (times) => Math.min(50 * times, 500),
    connectionName: `lockpick:${ctx.clientId}`,
    ...redisOptions(ctx, extra),
  });
  watch(r);
  return r;
}

// Connection errors surface on the commands; an unhandled 'error' event would
// only print noise.
function watch(r: Redis): void {
  r.on('error', () => {});
}

/**
 * Start connecting and wait until ready or `budgetMs` passed (a paused node must
 * not block the others); never throws: a node not ready fails its commands fast.
 */
export async function whenReady(r: Redis, budgetMs: number): Promise<boolean> {
  if (r.status === 'ready') return true;
  if (r.status === 'wait') r.connect().catch(() => {});
  return new Promise<boolean>((resolve) => {
    const done = (ok: boolean) => { clearTimeout(t); r.off('ready', onReady); resolve(ok); };
    const onReady = () => done(true);
    const t = setTimeout(() => done(r.status === 'ready'), budgetMs);
    r.on('ready', onReady);
  });
}

/** Close without waiting for servers that may be paused or partitioned. */
export async function closeAll(clients: Iterable<Redis>): Promise<void> {
  for (const c of clients) c.disconnect(false);
}
