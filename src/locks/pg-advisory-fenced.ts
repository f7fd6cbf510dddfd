/**
 * pg-advisory-fenced — the session advisory lock (pg-advisory-session) plus a fencing
 * token the protected resource checks: once the lock is held, the same session bumps
 * the key's row in lockpick_fence (INSERT ... ON CONFLICT DO UPDATE SET version =
 * version + 1 RETURNING version). A holder whose session ended unnoticed still writes
 * with its old version, and the resource refuses it (Kleppmann 2016). The row is
 * durable, so versions keep growing across a server restart, unlike the lock.
 */
import type { LockRecipe } from './lock.ts';
import { PG_OPTIONS_HELP, type PgConn } from './pg-client.ts';
import { sessionLock } from './pg-advisory.ts';

const NAME = 'pg-advisory-fenced';

/** Creates the version table once per connection's server (two clients racing to create it is no error). */
async function fenceTable(c: PgConn): Promise<void> {
  try {
    await c.rows('CREATE TABLE IF NOT EXISTS lockpick_fence (key text PRIMARY KEY, version bigint NOT NULL)');
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code !== '23505' && code !== '42P07') throw err; // unique_violation / duplicate_table: another client made it
  }
}

export const recipe: LockRecipe = {
  name: NAME,
  summary: 'pg-advisory-session plus a fencing token: the key row\'s version, bumped by the holder\'s session, checked by the resource',
  source: 'PostgreSQL docs, Advisory Locks; Kleppmann 2016 (fencing tokens); issue 22',
  topology: { kind: 'postgres' },
  model: 'fenced-mutex',
  fencing: true,
  optionsHelp: PG_OPTIONS_HELP,
  optionValues: { retryMs: 'number', database: 'text' },
  create: (ctx) => {
    let made = false;
    return sessionLock(ctx, NAME, async (c, key) => {
      if (!made) { await fenceTable(c); made = true; }
      const [row] = await c.rows<{ version: string }>(
        'INSERT INTO lockpick_fence AS f (key, version) VALUES ($1, 1) ON CONFLICT (key) DO UPDATE SET version = f.version + 1 RETURNING version', [key]);
      return { token: Number(row!.version) };
    });
  },
};
