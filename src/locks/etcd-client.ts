// etcd3 (gRPC, pure JS) clients for the etcd lock recipes: every unary call has the
// command budget as its deadline and no retries of the library's own (a retried
// write would hide what the first attempt did), so a call either answers, fails
// with the server's error, or times out (unknown). Streams (lease keep-alives)
// have no deadline. The Lease service (grant, keep-alives, revoke) goes over a connection of
// its own when the run gives one (LockContext.channels.keepalive: the recipes declare it), so
// the nemesis can cut a holder's keep-alives while its other calls go through (keepalive-cut).
// etcd3 and its cockatiel load on the first client (ARCHITECTURE: client libraries load lazily).
import type { Etcd3 } from 'etcd3';
import type { Endpoint } from '../env/types.ts';
import type { LockContext } from './lock.ts';
import { numberOption } from './options.ts';

/** The connection the recipes' lease keep-alives go over (LockRecipe.channels). */
export const ETCD_CHANNELS = ['keepalive'];

type Etcd3Lib = typeof import('etcd3');

function connectTo(lib: Etcd3Lib, noop: typeof import('cockatiel').noop, ctx: LockContext, eps: Endpoint[]): Etcd3 {
  return new lib.Etcd3({
    hosts: eps.map((ep) => `http://${ep.host}:${ep.port}`),
    dialTimeout: Math.max(1000, ctx.commandTimeoutMs),
    defaultCallOptions: (c) => (c.isStream ? {} : { deadline: Date.now() + ctx.commandTimeoutMs }),
    faultHandling: { host: () => noop, global: noop },
  });
}

/** What the etcd3 client calls through (its connection pool; Etcd3.mock replaces it wholesale). */
interface Callable {
  exec(service: string, method: string, payload: unknown): Promise<unknown>;
  withConnection(service: string, fn: (c: unknown) => unknown): Promise<unknown>;
}

export async function etcdClient(ctx: LockContext, recipe: string): Promise<Etcd3> {
  if (!ctx.endpoints.length) throw new Error(`lock ${recipe}: the lock context of client ${ctx.clientId} has no endpoints; it needs the 'etcd' topology`);
  const [lib, { noop }] = await Promise.all([import('etcd3'), import('cockatiel')]);
  const connect = (eps: Endpoint[]) => connectTo(lib, noop, ctx, eps);
  const main = connect(ctx.endpoints);
  const keepalive = ctx.channels?.keepalive;
  if (!keepalive?.length) return main;
  // The client the recipe uses routes each call by service through its pool's replacement
  // (the package's own hook, Etcd3.mock): Lease to the keep-alive connection, the rest to the main one.
  const lease = connect(keepalive);
  const pool = (c: Etcd3) => (c as unknown as { pool: Callable }).pool;
  const via = (service: string) => pool(service === 'Lease' ? lease : main);
  const routed = connect(ctx.endpoints);
  routed.mock({
    exec: (service: string, method: string, payload: unknown) => via(service).exec(service, method, payload),
    withConnection: (service: string, fn: (c: unknown) => unknown) => via(service).withConnection(service, fn),
  } as never);
  const close = routed.close.bind(routed);
  routed.close = () => { close(); main.close(); lease.close(); };
  return routed;
}

/** etcd leases are whole seconds (at least 1; the members allow 1 s with lockpick's election timeout). */
export function leaseSeconds(ttlMs: number): number {
  return Math.max(1, Math.ceil(ttlMs / 1000));
}

export const ETCD_OPTIONS_HELP: Record<string, string> = {
  retryMs: 'pause between acquire attempts while the lock is taken (default 25 ms)',
};

export function etcdRetryMs(ctx: LockContext, recipe: string): number {
  return numberOption(ctx, recipe, 'retryMs', 25);
}
