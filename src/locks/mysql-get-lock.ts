/**
 * mysql-get-lock — MySQL's named user-level locks, the session-bound variant of
 * the database-lock post's database locks (the catalogue's row of session-bound locks,
 * "MySQL SELECT FOR UPDATE / GET_LOCK"): SELECT GET_LOCK(name, timeout) → 1 held,
 * 0 timed out; unlock = SELECT RELEASE_LOCK(name) → 1 released, 0 (someone
 * else's) or NULL (no such lock) → 'lost'. The lock belongs to the session, so
 * like FOR UPDATE it goes when the server ends a silent client's session
 * (wait_timeout, option waitTimeoutS) while the client still believes it holds.
 * The wait is GET_LOCK's own (fractional seconds allowed). Dedicated connection per hold.
 */
import type { RowDataPacket } from 'mysql2/promise';
import type { AcquireOptions, Held, Lock, LockContext, LockRecipe } from './lock.ts';
import { DefiniteFailure } from './lock.ts';
import { isServerError } from './mysql-client.ts';
import { SessionHolds, SESSION_OPTIONS_HELP } from './mysql-session.ts';

const NAME = 'mysql-get-lock';

/** Lock names are at most 64 characters: longer keys are shortened with a hash. */
function lockName(key: string): string {
  if (key.length <= 64) return key;
  let h = 0;
  for (const ch of key) h = (Math.imul(h, 31) + ch.charCodeAt(0)) | 0;
  return `${key.slice(0, 54)}#${(h >>> 0).toString(16)}`;
}

async function create(ctx: LockContext): Promise<Lock> {
  const holds = new SessionHolds(ctx, NAME);
  return {
    name: NAME,
    async acquire(key: string, a: AcquireOptions): Promise<Held | null> {
      const c = await holds.open();
      const waitS = a.waitMs / 1000;
      try {
        const rows = await c.exec<RowDataPacket[]>('SELECT GET_LOCK(?, ?) AS got', [lockName(key), waitS], a.waitMs);
        if (Number(rows[0]?.got) === 1) return holds.hold(key, c);
        c.destroy();
        return null;
      } catch (err) {
        c.destroy();
        if (isServerError(err)) throw new DefiniteFailure(`${NAME} lock ${key}: ${err.message}`);
        throw err;
      }
    },
    release: (h) => holds.end(h, 'SELECT RELEASE_LOCK(?) AS released', [lockName(h.key)], (rows) => Number((rows as RowDataPacket[])[0]?.released) === 1),
    async close() {
      holds.close();
    },
  };
}

export const recipe: LockRecipe = {
  name: NAME,
  summary: 'MySQL/MariaDB: SELECT GET_LOCK(name, wait) on a dedicated session; unlock = RELEASE_LOCK; the lock dies with the session',
  source: 'the database-lock post (database locks, session-bound); MySQL GET_LOCK documentation',
  topology: { kind: 'mariadb' },
  model: 'mutex',
  fencing: false,
  optionsHelp: { waitTimeoutS: SESSION_OPTIONS_HELP.waitTimeoutS!, database: SESSION_OPTIONS_HELP.database! },
  optionValues: { waitTimeoutS: 'number', database: 'text' },
  create,
};
