/**
 * etcd-mutex — the algorithm of Go's go.etcd.io/etcd/client/v3/concurrency.Mutex: a
 * lease (kept alive while held), then a key `<lock>/<lease id>` put under the lock's
 * prefix with that lease if it does not exist yet; the holder is the key with the
 * lowest create revision under the prefix, so a client waits until every key created
 * before its own is gone (polled here; Go watches the predecessor's deletion). Unlock
 * deletes the client's own key. etcd-mutex-fenced hands out the key's create revision
 * as a fencing token (Jepsen's advice for etcd locks): a holder whose lease lapsed
 * writes with an older revision, and the resource refuses it.
 */
import type { AcquireOptions, Held, Lock, LockContext, LockRecipe } from './lock.ts';
import { etcdClient, etcdRetryMs, leaseSeconds } from './etcd-client.ts';
import { ETCD_RECIPE } from './etcd-recipe.ts';
import { sleep } from './retry.ts';

async function mutex(ctx: LockContext, name: string, fenced: boolean): Promise<Lock> {
  const client = await etcdClient(ctx, name);
  async function queue(key: string, a: AcquireOptions, start: number, lease: ReturnType<typeof client.lease>): Promise<Held | null> {
    const id = await lease.grant();
    const prefix = `${key}/`;
    const mine = `${prefix}${BigInt(id).toString(16)}`;
    const t = await client.if(mine, 'Create', '==', 0).then(client.put(mine).value('').lease(id)).else(client.get(mine)).commit();
    const rev = String(t.succeeded ? t.header.revision : t.responses[0]!.response_range.kvs[0]!.create_revision);
    for (;;) {
      // The holder is the oldest key under the prefix: ours once every earlier one is gone.
      const first = (await client.getAll().prefix(prefix).sort('Create', 'Ascend').limit(1).exec()).kvs[0];
      if (first && String(first.create_revision) === rev) return { key, mine, lease, ...(fenced ? { token: Number(rev) } : {}) };
      const left = a.waitMs - (ctx.clock.monoMs() - start);
      if (left <= 0) break;
      await sleep(Math.min(etcdRetryMs(ctx, name), left));
    }
    // Gave up waiting: take our key out of the queue (Go's Lock does so on a cancelled context).
    await client.delete().key(mine).exec();
    await lease.revoke().catch(() => {});
    return null;
  }
  return {
    name,
    async acquire(key: string, a: AcquireOptions): Promise<Held | null> {
      const start = ctx.clock.monoMs();
      const lease = client.lease(leaseSeconds(a.ttlMs));
      lease.on('lost', () => {}); // seen at unlock: the key is gone
      try {
        return await queue(key, a, start, lease);
      } catch (err) {
        // Whatever happened to our key, stop keeping its lease alive: it expires by itself, so a
        // key left in the queue by an acquire that failed cannot block the others for ever.
        lease.release();
        throw err;
      }
    },
    async release(h) {
      const lease = h.lease as ReturnType<typeof client.lease>;
      try {
        const r = await client.delete().key(h.mine as string).exec();
        await lease.revoke().catch(() => {});
        return Number(r.deleted) === 1 ? 'released' : 'lost';
      } catch (err) {
        lease.release(); // an unlock of unknown outcome: let the lease lapse rather than keep the key
        throw err;
      }
    },
    async close() { client.close(); },
  };
}

export const recipe: LockRecipe = {
  ...ETCD_RECIPE,
  name: 'etcd-mutex',
  summary: "etcd: Go concurrency.Mutex's algorithm: a leased key <lock>/<lease> under the prefix; the lowest create revision holds; unlock deletes it",
  source: 'go.etcd.io/etcd/client/v3/concurrency (Mutex); Jepsen, etcd 3.4.3 (2020); issue 22',
  model: 'mutex',
  fencing: false,
  create: (ctx) => mutex(ctx, 'etcd-mutex', false),
};

export const fencedRecipe: LockRecipe = {
  ...recipe,
  name: 'etcd-mutex-fenced',
  summary: "etcd-mutex plus a fencing token: the key's create revision, checked by the resource",
  model: 'fenced-mutex',
  fencing: true,
  create: (ctx) => mutex(ctx, 'etcd-mutex-fenced', true),
};
