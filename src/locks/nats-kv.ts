/**
 * Locks on a NATS JetStream key-value bucket (the `nats` package, loaded when a lock is made):
 * `kv.create` takes the lock (it writes only if the key has no value, or only a delete marker),
 * and the bucket's `ttl` (its stream's max_age) is the lease: the entry ages out of the bucket
 * by itself. NATS 2.9 has no per-key TTL (message TTLs came in 2.11), so each lease length has a
 * bucket of its own (`lockpick_ttl_<ms>`); the buckets are kept in memory (a restart forgets
 * them, as the topology declares).
 *
 * nats-kv-create-delete: the unlock is a plain `kv.delete`. A holder paused past its lease
 * finds its entry aged out and another client's in its place, and deletes that one: the stale
 * release (the NATS form of redis-set-px-del).
 *
 * nats-kv-create-delete-rev: the unlock names the revision its create wrote
 * (`kv.delete(key, { previousSeq })`): the server refuses it once the key has another revision,
 * so it deletes only its own entry. An unlock begun after the lease ran out (by the client's
 * monotonic clock) says 'lost' whatever the server does: it cannot know its entry still stood.
 * What remains is inherent to any lease: a holder paused past it still believes it holds.
 *
 * nats-kv-fenced: the same, and the revision as a fencing token (one sequence per bucket that
 * only grows), for the resource to check. Caveat: the sequence starts over with the bucket when
 * the server restarts, as the locks do.
 */
import { randomBytes } from 'node:crypto';
import type { KV, NatsConnection } from 'nats';
import { DefiniteFailure, type AcquireOptions, type Held, type Lock, type LockContext, type LockRecipe } from './lock.ts';
import { rethrowClassified } from './outcome.ts';
import { pollAcquire } from './retry.ts';
import { numberOption } from './options.ts';

const TOPOLOGY = { kind: 'nats' } as const;
const RETRY = {
  optionsHelp: { retryMs: 'pause between acquire attempts while the lock is taken (default 50 ms)' },
  optionValues: { retryMs: 'number' },
} as const;

/** JetStream's error code for "wrong last sequence": the key's revision is not the one the write expected. */
const WRONG_LAST_SEQUENCE = 10071;

/** A key NATS KV takes (letters, digits, - / _ = ., no '.' at either end): any other byte as `=XX`, so lockpick's keys (with ':') fit. */
export function kvKey(key: string): string {
  const hex = (c: string) => [...Buffer.from(c)].map((b) => `=${b.toString(16).padStart(2, '0')}`).join('');
  return key.replace(/[^-/_.a-zA-Z0-9]/g, hex).replace(/^\.|\.$/g, hex);
}

/** The server answered with a JetStream error: nothing was written (never an unknown outcome). */
function apiCode(err: unknown): number | undefined {
  const code = (err as { api_error?: { err_code?: unknown } } | undefined)?.api_error?.err_code;
  return typeof code === 'number' ? code : undefined;
}

/** A JetStream refusal (or no responder at all) as a DefiniteFailure; a timeout or a dropped connection stays unknown. */
function classify(err: unknown, what: string): never {
  if (apiCode(err) !== undefined || (err as { code?: unknown })?.code === '503') throw new DefiniteFailure(`${what}: ${(err as Error).message}`);
  return rethrowClassified(err, what);
}

/** How a recipe differs: its owner value, whether the revision is its token, its unlock. */
interface Variant {
  value(ctx: LockContext): string;
  fenced?: boolean;
  release(kv: KV, h: Held, ctx: LockContext): Promise<'released' | 'lost'>;
}

/** One connection through the fault proxy to the one server; a bucket per lease length, bound on first use. */
async function natsLock(ctx: LockContext, name: string, variant: Variant): Promise<Lock> {
  const ep = ctx.endpoints[0];
  if (!ep) throw new Error(`lock ${name}: the lock context of client ${ctx.clientId} has no endpoints; it needs the 'nats' topology`);
  const nats = await import('nats');
  const timeout = Math.max(1000, ctx.commandTimeoutMs);
  // Reconnects for ever (a fault ends), never to another server than the proxied one.
  const nc: NatsConnection = await nats.connect({
    servers: `${ep.host}:${ep.port}`, name: `lockpick-${ctx.clientId}`, timeout, ignoreClusterUpdates: true,
    reconnect: true, maxReconnectAttempts: -1, reconnectTimeWait: 50,
  });
  const js = nc.jetstream({ timeout: ctx.commandTimeoutMs });
  const buckets = new Map<number, KV>();
  const bucket = async (ttlMs: number): Promise<KV> => {
    let kv = buckets.get(ttlMs);
    if (!kv) {
      kv = await js.views.kv(`lockpick_ttl_${ttlMs}`, { ttl: ttlMs, history: 1, storage: nats.StorageType.Memory });
      buckets.set(ttlMs, kv);
    }
    return kv;
  };
  // No responder: a restarted server has no memory bucket at all (not even its config), so bind it afresh next time.
  const forgetOn503 = (ttlMs: number) => (e: unknown): never => {
    if ((e as { code?: unknown })?.code === '503') buckets.delete(ttlMs);
    throw e;
  };
  const retryMs = numberOption(ctx, name, 'retryMs', 50);
  return {
    name,
    async acquire(key: string, o: AcquireOptions): Promise<Held | null> {
      const v = variant.value(ctx);
      const k = kvKey(key);
      return pollAcquire(ctx, o.waitMs, retryMs, async (): Promise<Held | null> => {
        const at = ctx.clock.monoMs();
        const kv = await bucket(o.ttlMs).catch((e: unknown) => classify(e, `${name} bucket for ${o.ttlMs} ms`));
        let rev: number;
        try {
          rev = await kv.create(k, new TextEncoder().encode(v)).catch(forgetOn503(o.ttlMs));
        } catch (e) {
          if (apiCode(e) === WRONG_LAST_SEQUENCE) return null;   // another client's entry stands
          return classify(e, `${name} create ${key}`);
        }
        return { key, value: v, rev, at, ttlMs: o.ttlMs, ...(variant.fenced ? { token: rev } : {}) };
      });
    },
    async release(h) {
      const kv = await bucket(h.ttlMs as number).catch((e: unknown) => classify(e, `${name} bucket`));
      return variant.release(kv, h, ctx).catch(forgetOn503(h.ttlMs as number)).catch((e: unknown) => classify(e, `${name} unlock ${h.key}`));
    },
    async close() { await nc.close(); },
  };
}

/** The plain unlock: delete whatever entry the key has. */
const plainRelease: Variant['release'] = async (kv, h) => {
  await kv.delete(kvKey(h.key));
  return 'released';
};

/** The owner-checked unlock: delete only the revision it created; 'lost' when another stands, or begun past the lease. */
const revisionRelease: Variant['release'] = async (kv, h, ctx) => {
  const late = ctx.clock.monoMs() - (h.at as number) >= (h.ttlMs as number);
  try {
    await kv.delete(kvKey(h.key), { previousSeq: h.rev as number });
  } catch (e) {
    if (apiCode(e) === WRONG_LAST_SEQUENCE) return 'lost';
    throw e;
  }
  return late ? 'lost' : 'released';
};

const randomValue = () => randomBytes(16).toString('hex');

const CREATE_DELETE = 'nats-kv-create-delete';

export const createDeleteRecipe: LockRecipe = {
  ...RETRY,
  name: CREATE_DELETE,
  summary: "NATS KV create key (bucket ttl = lease); unlock = plain delete (deletes another holder's entry after its own aged out)",
  source: 'the common NATS KV lock (create to lock, delete to unlock); NATS docs, JetStream key-value store',
  topology: TOPOLOGY,
  model: 'mutex',
  fencing: false,
  create: (ctx) => natsLock(ctx, CREATE_DELETE, { value: (c) => c.clientId, release: plainRelease }),
};

const CREATE_DELETE_REV = 'nats-kv-create-delete-rev';

export const createDeleteRevRecipe: LockRecipe = {
  ...RETRY,
  name: CREATE_DELETE_REV,
  summary: 'NATS KV create key (bucket ttl = lease); unlock = delete with the revision it created (previousSeq: owner-checked, atomic)',
  source: 'NATS KV create and delete with previousSeq (the nats package; JetStream expected-last-subject-sequence)',
  topology: TOPOLOGY,
  model: 'mutex',
  fencing: false,
  create: (ctx) => natsLock(ctx, CREATE_DELETE_REV, { value: randomValue, release: revisionRelease }),
};

const FENCED = 'nats-kv-fenced';

export const fencedRecipe: LockRecipe = {
  ...RETRY,
  name: FENCED,
  summary: 'nats-kv-create-delete-rev plus a fencing token: the revision its create wrote (one growing sequence per bucket)',
  source: 'NATS KV revisions + Kleppmann 2016 (fencing tokens)',
  topology: TOPOLOGY,
  model: 'fenced-mutex',
  fencing: true,
  create: (ctx) => natsLock(ctx, FENCED, { value: randomValue, fenced: true, release: revisionRelease }),
};
