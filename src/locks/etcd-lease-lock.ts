/**
 * etcd-lease-lock — the `etcd3` package's own Lock: grant a lease (TTL in whole
 * seconds, kept alive by the client while held), then a transaction puts the lock
 * key with that lease if the key's create revision is 0; unlock = revoke the
 * lease (which deletes the key). Jepsen's etcd 3.4.3 analysis: such locks "did not,
 * and can not, guarantee mutual exclusion": a holder paused (or cut off) past its
 * lease loses the key while it still works, and nothing tells it in time.
 */
import type { AcquireOptions, Held, Lock, LockContext, LockRecipe } from './lock.ts';
import { etcdClient, etcdRetryMs, leaseSeconds } from './etcd-client.ts';
import { ETCD_RECIPE } from './etcd-recipe.ts';
import { pollAcquire } from './retry.ts';

const NAME = 'etcd-lease-lock';

async function create(ctx: LockContext): Promise<Lock> {
  const client = await etcdClient(ctx, NAME);
  const { EtcdLeaseInvalidError, EtcdLockFailedError } = await import('etcd3');
  return {
    name: NAME,
    acquire: (key: string, a: AcquireOptions): Promise<Held | null> => pollAcquire(ctx, a.waitMs, etcdRetryMs(ctx, NAME), async () => {
      const lock = client.lock(key).ttl(leaseSeconds(a.ttlMs));
      try {
        await lock.acquire();
        return { key, lock };
      } catch (err) {
        if (err instanceof EtcdLockFailedError) return null; // taken (the package revoked its lease)
        throw err;
      }
    }),
    async release(h) {
      try {
        await (h.lock as ReturnType<typeof client.lock>).release();
        return 'released';
      } catch (err) {
        if (err instanceof EtcdLeaseInvalidError) return 'lost'; // the lease had expired: the key was gone
        throw err;
      }
    },
    async close() { client.close(); },
  };
}

export const recipe: LockRecipe = {
  ...ETCD_RECIPE,
  name: NAME,
  summary: "etcd: the etcd3 package's Lock: a lease (kept alive while held) and a put if the key's create revision is 0; unlock = revoke the lease",
  source: 'etcd3 npm package (Lock); Jepsen, etcd 3.4.3 (2020); issue 22',
  model: 'mutex',
  fencing: false,
  create,
};
