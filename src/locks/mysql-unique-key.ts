/**
 * mysql-unique-key — the database-lock post, 数据库 分布式锁, 实现方式一:
 *   "利用主键唯一规则 ... 在争抢锁的时候向DB中写一条记录，这条记录主要包含锁的id、当前占用锁的线程名、
 *    重入的次数和创建时间等，如果插入成功表示当前线程获取到了锁，如果插入失败那么证明锁被其他人占用，
 *    等待一会儿继续争抢，直到争抢到或者超时为止"
 *   — INSERT a row (lock id as primary key, owner thread name, reentrant count,
 *   create time); success = held; duplicate key = taken, sleep and try again
 *   until the timeout. Reentry: if the row's owner is me, count + 1. Unlock:
 *   count − 1, and at 0 DELETE the row.
 * Table test_lock(id, count, thName, addtime) as in the post; the owner is the
 * client id. Unlike the post's `DELETE ... WHERE id = ?` the unlock names the
 * owner too (affected rows 0 → 'lost'), so a client never deletes another's row.
 * What the post admits and runs show: 没有超时保护机制 — there is no expiry, so
 * a holder that dies without unlocking blocks the lock forever; and the
 * waiting is polling (retryMs).
 */
import type { AcquireOptions, Held, Lock, LockContext, LockRecipe } from './lock.ts';
import { DefiniteFailure, isDefiniteFailure } from './lock.ts';
import { DATABASE_OPTION_HELP, ER_DUP_ENTRY, isServerError, MysqlConn, mysqlRetryMs, RETRY_OPTION_HELP } from './mysql-client.ts';
import { pollAcquire } from './retry.ts';

const NAME = 'mysql-unique-key';

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS test_lock (
  id VARCHAR(191) NOT NULL PRIMARY KEY,
  count INT NOT NULL,
  thName VARCHAR(191) NOT NULL,
  addtime BIGINT NOT NULL
) ENGINE=InnoDB`;

async function create(ctx: LockContext): Promise<Lock> {
  const retryMs = mysqlRetryMs(ctx, NAME);
  const owner = ctx.clientId;
  let conn: MysqlConn | undefined;

  /** The client's connection (autocommit), reconnected after it was lost. */
  async function db(): Promise<MysqlConn> {
    if (conn && !conn.closed) return conn;
    const c = await MysqlConn.open(ctx, NAME);
    try {
      await c.exec(CREATE_TABLE);
    } catch (err) {
      c.destroy();
      throw isDefiniteFailure(err) ? err : new DefiniteFailure(`${NAME}: cannot create table test_lock: ${(err as Error).message}`);
    }
    conn = c;
    return c;
  }
  await db().catch(() => {}); // connect early; operations retry if this failed

  /** A server's refusal is definite; anything else stays unknown. */
  const classify = (err: unknown, what: string): never => {
    if (isServerError(err)) throw new DefiniteFailure(`${NAME} ${what}: ${err.message}`);
    throw err;
  };

  return {
    name: NAME,
    async acquire(key: string, a: AcquireOptions): Promise<Held | null> {
      return pollAcquire(ctx, a.waitMs, retryMs, async () => {
        const c = await db();
        try {
          // Reentry: "如果锁的线程是当前线程，那么更新锁的count+1".
          if ((await c.affected('UPDATE test_lock SET count = count + 1 WHERE id = ? AND thName = ?', [key, owner])) === 1) return { key };
          await c.exec('INSERT INTO test_lock (id, count, thName, addtime) VALUES (?, 1, ?, ?)', [key, owner, ctx.clock.wallMs()]);
          return { key };
        } catch (err) {
          if (isServerError(err) && err.errno === ER_DUP_ENTRY) return null; // taken: wait and try again
          return classify(err, `lock ${key}`);
        }
      });
    },
    async release(h: Held): Promise<'released' | 'lost'> {
      const c = await db();
      try {
        // "释放的时候也要进行count-1，最后减到0时，删除锁标识释放锁".
        if ((await c.affected('UPDATE test_lock SET count = count - 1 WHERE id = ? AND thName = ? AND count > 1', [h.key, owner])) === 1) return 'released';
        return (await c.affected('DELETE FROM test_lock WHERE id = ? AND thName = ?', [h.key, owner])) === 1 ? 'released' : 'lost';
      } catch (err) {
        return classify(err, `unlock ${h.key}`);
      }
    },
    async close() {
      conn?.destroy();
    },
  };
}

export const recipe: LockRecipe = {
  name: NAME,
  summary: 'MySQL/MariaDB: INSERT a row keyed by the lock name (owner, reentrant count, time); retry on duplicate key; unlock = count-1 / DELETE by owner; no expiry',
  source: 'the database-lock post (数据库分布式锁, 实现方式一: 主键唯一, a unique-key row)',
  topology: { kind: 'mariadb' },
  model: 'reentrant-mutex',
  fencing: false,
  optionsHelp: { retryMs: RETRY_OPTION_HELP, database: DATABASE_OPTION_HELP },
  optionValues: { retryMs: 'number', database: 'text' },
  create,
};
