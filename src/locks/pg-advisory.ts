/**
 * pg-advisory-session — PostgreSQL's session-level advisory lock, the lock of
 * migration tools, job queues and cron leaders: SELECT pg_try_advisory_lock(id)
 * on a dedicated connection, polled while taken; unlock = pg_advisory_unlock(id)
 * → true released, false (not this session's) → 'lost'. The lock belongs to the
 * server session and vanishes silently with it (pg_terminate_backend,
 * idle_session_timeout, a dropped connection) while the client still believes it
 * holds; behind PgBouncer in transaction pooling it is taken on whichever server
 * connection ran that statement, one that other clients' statements then use
 * (pg-advisory-pgbouncer). No fencing: a holder cannot tell its lock went.
 */
import type { AcquireOptions, Held, Lock, LockContext, LockRecipe } from './lock.ts';
import { PgHolds, PG_OPTIONS_HELP, pgRetryMs, LOCK_ID, type PgConn } from './pg-client.ts';
import { pollAcquire } from './retry.ts';

/** A session-lock Lock: the acquire statement `tryLock` on a fresh connection, `onHeld` adding what the hold carries (a token). */
export function sessionLock(ctx: LockContext, name: string, onHeld?: (c: PgConn, key: string) => Promise<Partial<Held>>): Lock {
  const holds = new PgHolds(ctx, name);
  return {
    name,
    async acquire(key: string, a: AcquireOptions): Promise<Held | null> {
      const c = await holds.open();
      try {
        const got = await pollAcquire(ctx, a.waitMs, pgRetryMs(ctx, name), async () => (await c.bool(`SELECT pg_try_advisory_lock(${LOCK_ID}) AS v`, [key])) || null);
        if (!got) { c.destroy(); return null; }
        return holds.hold(key, c, onHeld ? await onHeld(c, key) : {});
      } catch (err) {
        c.destroy();
        throw err;
      }
    },
    release: (h) => holds.end(h, (c) => c.bool(`SELECT pg_advisory_unlock(${LOCK_ID}) AS v`, [h.key])),
    async close() { holds.close(); },
  };
}

export const recipe: LockRecipe = {
  name: 'pg-advisory-session',
  summary: 'PostgreSQL: pg_try_advisory_lock(id) on a dedicated session; unlock = pg_advisory_unlock; the lock dies silently with the session',
  source: 'PostgreSQL docs, Advisory Locks (13.3.5); issue 22',
  topology: { kind: 'postgres' },
  model: 'mutex',
  fencing: false,
  optionsHelp: PG_OPTIONS_HELP,
  optionValues: { retryMs: 'number', database: 'text' },
  create: (ctx) => sessionLock(ctx, 'pg-advisory-session'),
};

export const pgbouncerRecipe: LockRecipe = {
  ...recipe,
  name: 'pg-advisory-pgbouncer',
  summary: 'the session advisory lock through PgBouncer in transaction pooling: taken on a pooled server connection other clients share',
  source: 'PgBouncer docs, feature matrix (session-level advisory locks need session pooling); issue 22',
  topology: { kind: 'postgres-pgbouncer' },
  create: (ctx) => sessionLock(ctx, 'pg-advisory-pgbouncer'),
};
