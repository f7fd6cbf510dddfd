// etcd3 (gRPC, pure JS) clients for the etcd lock recipes: every unary call has the
// command budget as its deadline and no retries of the library's own (a retried
// write would hide what the first attempt did), so a call either answers, fails
// with the server's error, or times out (unknown). Streams (lease keep-alives)
// have no deadline.
import { Etcd3, EtcdLeaseInvalidError, EtcdLockFailedError } from 'etcd3';
import { noop } from 'cockatiel';
import type { LockContext } from './lock.ts';
import { numberOption } from './options.ts';

export { EtcdLeaseInvalidError, EtcdLockFailedError };

export function etcdClient(ctx: LockContext, recipe: string): Etcd3 {
  const hosts = ctx.endpoints.map((ep) => `http://${ep.host}:${ep.port}`);
  if (!hosts.length) throw new Error(`lock ${recipe}: the lock context of client ${ctx.clientId} has no endpoints; it needs the 'etcd' topology`);
  return new Etcd3({
    hosts,
    dialTimeout: Math.max(1000, ctx.commandTimeoutMs),
    defaultCallOptions: (c) => (c.isStream ? {} : { deadline: Date.now() + ctx.commandTimeoutMs }),
    faultHandling: { host: () => noop, global: noop },
  });
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
