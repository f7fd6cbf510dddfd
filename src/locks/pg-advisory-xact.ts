/**
 * pg-advisory-xact — PostgreSQL's transaction-level advisory lock, held by an open
 * transaction: BEGIN; SELECT pg_try_advisory_xact_lock(id) (polled while taken, the
 * transaction kept open); unlock = COMMIT, which ends the lock with the transaction.
 * A transaction stays on one server connection even behind PgBouncer in transaction
 * pooling, so this is the lock that survives a pooler (the recipe runs through one).
 * A failed try rolls back and begins again, so no waiter keeps a transaction open.
 */
import type { AcquireOptions, Held, Lock, LockContext, LockRecipe } from './lock.ts';
import { PgHolds, PG_OPTIONS_HELP, pgRetryMs, LOCK_ID } from './pg-client.ts';
import { pollAcquire } from './retry.ts';

const NAME = 'pg-advisory-xact';

function create(ctx: LockContext): Lock {
  const holds = new PgHolds(ctx, NAME);
  return {
    name: NAME,
    async acquire(key: string, a: AcquireOptions): Promise<Held | null> {
      const c = await holds.open();
      try {
        const got = await pollAcquire(ctx, a.waitMs, pgRetryMs(ctx, NAME), async () => {
          await c.rows('BEGIN');
          if (await c.bool(`SELECT pg_try_advisory_xact_lock(${LOCK_ID}) AS v`, [key])) return true;
          await c.rows('ROLLBACK');
          return null;
        });
        if (!got) { c.destroy(); return null; }
        return holds.hold(key, c);
      } catch (err) {
        c.destroy();
        throw err;
      }
    },
    // COMMIT of a transaction that had failed answers ROLLBACK: then the lock was not held to the end.
    release: (h) => holds.end(h, async (c) => (await c.query('COMMIT')).command === 'COMMIT'),
    async close() { holds.close(); },
  };
}

export const recipe: LockRecipe = {
  name: NAME,
  summary: 'PostgreSQL through PgBouncer (transaction pooling): BEGIN; pg_try_advisory_xact_lock(id); held by the open transaction; unlock = COMMIT',
  source: 'PostgreSQL docs, Advisory Locks (13.3.5); PgBouncer feature matrix; issue 22',
  topology: { kind: 'postgres-pgbouncer' },
  model: 'mutex',
  fencing: false,
  optionsHelp: PG_OPTIONS_HELP,
  optionValues: { retryMs: 'number', database: 'text' },
  create,
};
