/**
 * Locks on one memcached server, both acquiring with `add` (stores only if the key is absent)
 * and an expiry of whole seconds a little longer than the lease (exptimeFor).
 *
 * memcached-add-delete: the unlock is a plain `delete`. A holder stopped past its lease
 * finds its item expired and another client's in its place, and deletes that one: the
 * stale delete (the memcached form of redis-set-px-del).
 *
 * memcached-add-cas: memcached has no compare-and-delete, and `gets` then `delete` is a race
 * (the item may change hands between them). But `cas` is owner-checked and atomic: `gets`
 * returns the value and its cas unique; if the value is ours, `cas` with that unique stores
 * an already-expired item (a negative exptime), which succeeds only if nobody changed the
 * item since the `gets`. Any other client's `add` in between changes the unique, and the
 * `cas` answers EXISTS or NOT_FOUND: 'lost'. An unlock begun after the lease ran out (by
 * the client's monotonic clock) says 'lost' whatever the server does, since the item may
 * outlive the lease by the server's whole-second rounding.
 *
 * memcached-add-cas-fenced: the same, with a fencing token for the resource to check: the
 * cas unique of the item this client added, read back with `gets`. The server gives every
 * stored item a unique from one counter that only grows, so a later grant has a larger token;
 * a `gets` that finds another client's item means the grant was already lost (it is tried
 * again). Caveat: the counter starts over when the server restarts, as the locks do.
 */
import { randomBytes } from 'node:crypto';
import type { AcquireOptions, Held, Lock, LockContext, LockRecipe } from './lock.ts';
import { MemcachedClient, exptimeFor } from './memcached-client.ts';
import { rethrowClassified } from './outcome.ts';
import { pollAcquire } from './retry.ts';
import { numberOption } from './options.ts';
import { reportsValidity, validityFields, validUntil } from './reported-validity.ts';

const TOPOLOGY = { kind: 'memcached' } as const;
// validity=reported: the item lives at least the TTL (exptimeFor rounds up), so the TTL counted
// from before the add, less the drift, is a validity the client can be told.
const V = validityFields('add');
const RETRY = {
  optionsHelp: { retryMs: 'pause between acquire attempts while the lock is taken (default 50 ms)', validity: V.help },
  optionValues: { retryMs: 'number', validity: V.values },
  clockDriftMs: V.clockDriftMs,
} as const;

/** How a recipe differs: its owner value, whether it reads its item's cas unique back as a fencing token, its unlock. */
interface Variant {
  value(): string;
  fenced?: boolean;
  release(mc: MemcachedClient, h: Held): Promise<'released' | 'lost'>;
}

/** A lock over one connection to the memcached server. */
async function memcachedLock(ctx: LockContext, name: string, variant: Variant): Promise<Lock> {
  const ep = ctx.endpoints[0];
  if (!ep) throw new Error(`lock ${name}: the lock context of client ${ctx.clientId} has no endpoints; it needs one memcached server`);
  const mc = new MemcachedClient(ep, Math.max(1000, ctx.commandTimeoutMs));
  await mc.connect();
  const retryMs = numberOption(ctx, name, 'retryMs', 50);
  const reported = reportsValidity(ctx, name);
  return {
    name,
    async acquire(key: string, o: AcquireOptions): Promise<Held | null> {
      const v = variant.value();
      const at = ctx.clock.monoMs();
      return pollAcquire(ctx, o.waitMs, retryMs, async (): Promise<Held | null> => {
        const t0 = ctx.clock.monoMs();
        if (!(await mc.add(key, v, exptimeFor(o.ttlMs)))) return null;
        const valid = reported ? { validUntilMs: validUntil(t0, o.ttlMs) } : {};
        if (reported && valid.validUntilMs! <= ctx.clock.monoMs()) {
          // Granted already over (the reply came late): give the item back with its own unlock, try again.
          await variant.release(mc, { key, value: v, at, ttlMs: o.ttlMs });
          return null;
        }
        if (!variant.fenced) return { key, value: v, at, ttlMs: o.ttlMs, ...valid };
        const item = await mc.gets(key);
        return item?.value === v ? { key, value: v, at, ttlMs: o.ttlMs, token: Number(item.cas), ...valid } : null;
      });
    },
    release: (h) => variant.release(mc, h).catch((err: unknown) => rethrowClassified(err, `${name} unlock ${h.key}`)),
    async close() { mc.close(); },
  };
}

const ADD_DELETE = 'memcached-add-delete';

export const addDeleteRecipe: LockRecipe = {
  ...RETRY,
  name: ADD_DELETE,
  summary: 'memcached add key id exptime; unlock = plain delete (deletes another holder\'s item after expiry)',
  source: 'the common memcached lock (add to lock, delete to unlock)',
  topology: TOPOLOGY,
  model: 'mutex',
  fencing: false,
  create: (ctx) => memcachedLock(ctx, ADD_DELETE, {
    value: () => ctx.clientId,
    async release(mc, h) {
      await mc.delete(h.key);
      return 'released';
    },
  }),
};

const ADD_CAS = 'memcached-add-cas';

export const addCasRecipe: LockRecipe = {
  ...RETRY,
  name: ADD_CAS,
  summary: 'memcached add key <random> exptime; unlock = gets, then cas to an expired item with that cas unique (owner-checked, atomic)',
  source: 'memcached protocol.txt (add, gets, cas; a negative exptime expires at once)',
  topology: TOPOLOGY,
  model: 'mutex',
  fencing: false,
  create: (ctx) => memcachedLock(ctx, ADD_CAS, { value: randomValue, release: casRelease(ctx) }),
};

const randomValue = () => randomBytes(16).toString('hex');

/** The owner-checked unlock: gets, then cas to an expired item with that unique; 'lost' when begun past the lease. */
const casRelease = (ctx: LockContext) => async (mc: MemcachedClient, h: Held): Promise<'released' | 'lost'> => {
  const late = ctx.clock.monoMs() - (h.at as number) >= (h.ttlMs as number);
  const item = await mc.gets(h.key);
  if (!item || item.value !== h.value) return 'lost';
  const freed = (await mc.cas(h.key, '', -1, item.cas)) === 'STORED';
  return freed && !late ? 'released' : 'lost';
};

const ADD_CAS_FENCED = 'memcached-add-cas-fenced';

export const addCasFencedRecipe: LockRecipe = {
  ...RETRY,
  name: ADD_CAS_FENCED,
  summary: 'memcached-add-cas plus a fencing token: the cas unique of the item it added (one growing counter per server)',
  source: 'memcached protocol.txt (gets returns the cas unique) + Kleppmann 2016 (fencing tokens)',
  topology: TOPOLOGY,
  model: 'fenced-mutex',
  fencing: true,
  create: (ctx) => memcachedLock(ctx, ADD_CAS_FENCED, { value: randomValue, fenced: true, release: casRelease(ctx) }),
};
