/**
 * mysql-for-update — the database-lock post, 数据库 分布式锁, 实现方式二:
 *   "利用for update加显式的行锁，这样就能利用这个行级的排他锁来实现分布式锁了，
 *    同时unlock的时候只要释放commit这个事务，就能达到释放锁的目的"
 *   — connection.setAutoCommit(false); SELECT id FROM test_lock WHERE id = ? FOR UPDATE;
 *   the row's exclusive lock is the distributed lock; unlock = connection.commit().
 * Each hold gets its own connection (the transaction is the lock). The waiting
 * is the server's: innodb_lock_wait_timeout is set from the wait budget (whole
 * seconds, the server's unit), and the sub-second rest is polled (retryMs) as the
 * post's loop does. The row is made to exist first (INSERT IGNORE): FOR UPDATE on
 * a missing row takes only a gap lock, which two transactions can share.
 * What the post admits and runs show: "由于事务是有超时时间的，过了超时时间，事务自动回滚，
 * 会导致锁的释放" — when the client is paused or cut off past the session's
 * wait_timeout (option waitTimeoutS), the server ends the session, InnoDB rolls
 * back, a waiter gets the row, and the old holder still believes it holds until
 * its COMMIT finds the connection gone ('lost'). Also 连接池爆满: one connection
 * stays busy per holder. Table: test_lock_row(id) (separate from mysql-unique-key's).
 */
import type { RowDataPacket } from 'mysql2/promise';
import type { AcquireOptions, Held, Lock, LockContext, LockRecipe } from './lock.ts';
import { DefiniteFailure } from './lock.ts';
import { ER_LOCK_WAIT_TIMEOUT, isServerError, mysqlRetryMs, type MysqlConn } from './mysql-client.ts';
import { SessionHolds, SESSION_OPTIONS_HELP } from './mysql-session.ts';
import { sleep } from './retry.ts';

const NAME = 'mysql-for-update';

const CREATE_TABLE = 'CREATE TABLE IF NOT EXISTS test_lock_row (id VARCHAR(191) NOT NULL PRIMARY KEY) ENGINE=InnoDB';

async function create(ctx: LockContext): Promise<Lock> {
  const retryMs = mysqlRetryMs(ctx, NAME);
  const holds = new SessionHolds(ctx, NAME);
  let tableReady = false;

  /** Blocks on the row lock within the budget: true when this transaction holds it. */
  async function lockRow(c: MysqlConn, key: string, deadline: number): Promise<boolean> {
    let waitS = -1;
    for (;;) {
      const s = Math.max(0, Math.floor((deadline - ctx.clock.monoMs()) / 1000));
      if (s > 0 && s !== waitS) {
        await c.exec(`SET SESSION innodb_lock_wait_timeout = ${s}`);
        waitS = s;
      }
      try {
        // Under a second left: NOWAIT (innodb_lock_wait_timeout = 0 still waits a while).
        await c.exec(`SELECT id FROM test_lock_row WHERE id = ? FOR UPDATE${s > 0 ? '' : ' NOWAIT'}`, [key], s * 1000);
        return true;
      } catch (err) {
        if (!(isServerError(err) && err.errno === ER_LOCK_WAIT_TIMEOUT)) throw err;
      }
      const left = deadline - ctx.clock.monoMs();
      if (left <= 0) return false;
      await sleep(Math.min(retryMs, left));
    }
  }

  /**
   * Makes the row exist. Looked at first with a plain (non-locking) read: an
   * INSERT IGNORE of an existing key waits for the holder's row lock.
   */
  async function ensureRow(c: MysqlConn, key: string): Promise<void> {
    if ((await c.exec<RowDataPacket[]>('SELECT id FROM test_lock_row WHERE id = ?', [key])).length > 0) return;
    await c.exec('SET SESSION innodb_lock_wait_timeout = 1');
    try {
      await c.exec('INSERT IGNORE INTO test_lock_row (id) VALUES (?)', [key], 1000);
    } catch (err) {
      // Someone inserted it and locked it meanwhile: the row exists now.
      if (!(isServerError(err) && err.errno === ER_LOCK_WAIT_TIMEOUT)) throw err;
    }
  }

  return {
    name: NAME,
    async acquire(key: string, a: AcquireOptions): Promise<Held | null> {
      const deadline = ctx.clock.monoMs() + a.waitMs;
      const c = await holds.open();
      try {
        if (!tableReady) {
          await c.exec(CREATE_TABLE);
          tableReady = true;
        }
        await ensureRow(c, key);
        await c.exec('START TRANSACTION');
        if (await lockRow(c, key, deadline)) return holds.hold(key, c);
        c.destroy(); // ends the transaction (rollback)
        return null;
      } catch (err) {
        c.destroy();
        if (isServerError(err)) throw new DefiniteFailure(`${NAME} lock ${key}: ${err.message}`);
        throw err;
      }
    },
    // "unlock的时候只要释放commit这个事务".
    release: (h) => holds.end(h, 'COMMIT', [], () => true),
    async close() {
      holds.close();
    },
  };
}

export const recipe: LockRecipe = {
  name: NAME,
  summary: 'MySQL/MariaDB: SELECT ... FOR UPDATE on the lock row in an open transaction (one connection per hold); unlock = COMMIT',
  source: 'the database-lock post (数据库分布式锁, 实现方式二: for update 行锁, a row lock)',
  topology: { kind: 'mariadb' },
  model: 'mutex',
  fencing: false,
  optionsHelp: SESSION_OPTIONS_HELP,
  optionValues: { waitTimeoutS: 'number', retryMs: 'number', database: 'text' },
  create,
};
