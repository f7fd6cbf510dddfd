// Catalogue entries where the lock lives in a server session: ZooKeeper
// ephemeral nodes (the Redis and ZooKeeper post) and MySQL/MariaDB row locks, GET_LOCK and unique keys (the database-lock post).
import type { DemoEntry } from './entry.ts';

const ZK_RELEASE_RENEW = { file: 'zk-common.ts', from: 'async renew(h: ZkHeld)', to: "return 'lost';" };
/** How the MySQL session locks are fixed, and the demo where that fix holds. */
const SESSION_FIX: Pick<DemoEntry, 'fix' | 'fixDemo'> = {
  fix: 'A session lock is lost when the session is, and the holder may not notice: treat a dropped connection as a lost lock and stop (as zk-treat-as-loss does), and let the resource check a fencing token for the writes that slip through.',
  fixDemo: 'zk-treat-as-loss',
};

export const SESSION_ENTRIES: DemoEntry[] = [
  {
    name: 'zk-ignore-disconnect',
    title: 'ZooKeeper: a client that ignores Disconnected outlives its session',
    expected: 'UNSAFE',
    lock: 'EPHEMERAL_SEQUENTIAL node under /locks/<key>; the lowest sequence holds, each waiter watches its predecessor. The node dies with the session. This client (onDisconnect=ignore) keeps believing it holds whatever its session tells it.',
    code: [{ file: 'zk-ephemeral-sequential.ts', from: 'if (i === 0) return mine;', to: 'await sessions.awaitDeletion' }],
    fault: 'c1 is cut off from ZooKeeper for 3 s in its critical section; its session timeout is 1 s.',
    story: 'ZooKeeper hears nothing from c1 for longer than its session timeout, expires the session and deletes its node. c2, next in line, is notified and holds. c1 never looked at its connection state and works on: two holders.',
    fix: 'Treat Disconnected as "maybe lost" and Expired as lost (Curator\'s advice for SUSPENDED/LOST): check before acting, give the lock up, and fence the writes.',
    fixDemo: 'zk-treat-as-loss',
    source: 'the Redis and ZooKeeper post (ZooKeeper lock), the database-lock post (ZooKeeper); Curator documentation',
  },
  {
    name: 'zk-treat-as-loss',
    title: 'ZooKeeper: a client that treats Disconnected as loss: the fix holds',
    expected: 'SAFE',
    lock: 'The same recipe with onDisconnect=treat-as-loss: a hold seen through Disconnected or Expired is lost, and the client renews (checks its node and session) every TTL/3 while it works.',
    code: [ZK_RELEASE_RENEW],
    fault: 'The same cut as zk-ignore-disconnect: c1 is cut off for 3 s in its critical section (session timeout 1 s).',
    story: 'c1\'s next check fails while it is cut off, so it stops believing and skips its write before its session can expire. c2 holds only after c1 gave up: never two holders.',
    fix: 'This is the fix for zk-ignore-disconnect.',
    fixDemo: 'zk-ignore-disconnect',
    source: 'Curator documentation (ConnectionStateListener); the Redis and ZooKeeper post',
  },
  {
    name: 'mysql-unique-key-holder-crash',
    title: 'MySQL unique-key lock: a holder that dies blocks everyone (liveness)',
    expected: 'UNSAFE',
    lock: 'INSERT a row keyed by the lock name (owner, reentrant count, time); a duplicate key means taken, retry; unlock = DELETE. Nothing ever expires the row.',
    code: [{ file: 'mysql-unique-key.ts', from: 'if ((await c.affected(\'UPDATE test_lock SET count = count + 1', to: 'if (isServerError(err) && err.errno === ER_DUP_ENTRY)' }],
    fault: 'Client c1 is killed (kill -9) in its critical section. Property checked: liveness (available again within 2 × TTL = 1.6 s after the holder is gone).',
    story: 'The row c1 inserted outlives c1. c2 and c3 retry for 3 s and get duplicate-key errors every time: the lock is unavailable forever. Safe, but stuck: a liveness violation.',
    fix: 'Give the lock a way to end without its holder: a lease (an expiry time that waiters may take over), or a lock tied to the session that dies with the client.',
    fixDemo: 'set-px-lua-holder-crash',
    source: 'the database-lock post (数据库 分布式锁, 实现方式一: a unique-key row with no expiry, so a dead holder blocks it forever)',
  },
  {
    name: 'mysql-for-update-dropped-session',
    title: 'SELECT ... FOR UPDATE: the server drops the holder\'s session',
    expected: 'UNSAFE',
    lock: 'The row lock of SELECT ... FOR UPDATE inside an open transaction is the lock; unlock = COMMIT. The lock lives as long as the server keeps the session.',
    code: [{ file: 'mysql-for-update.ts', from: '// Under a second left: NOWAIT', to: 'return true;' }],
    fault: 'c1 is cut off from the server for 3 s in its critical section (the connection drops).',
    story: 'The server sees c1\'s connection go, ends the session and rolls the transaction back: the row lock is gone. c2 gets it while c1, which has not tried to talk to the server since, works on as the holder. Its COMMIT later fails, after the damage.',
    ...SESSION_FIX,
    source: 'the database-lock post (实现方式二, SELECT … FOR UPDATE: 事务超时自动回滚, the transaction timeout rolls back and frees the lock)',
  },
  {
    name: 'mysql-get-lock-dropped-session',
    title: 'GET_LOCK: the lock dies with the session',
    expected: 'UNSAFE',
    lock: 'SELECT GET_LOCK(name, wait) on a dedicated session; unlock = RELEASE_LOCK. MySQL frees the lock when the session ends.',
    code: [{ file: 'mysql-get-lock.ts', from: "const rows = await c.exec<RowDataPacket[]>('SELECT GET_LOCK", to: 'if (Number(rows[0]?.got) === 1)' }],
    fault: 'c1 is cut off from the server for 3 s in its critical section (the connection drops).',
    story: 'The server ends c1\'s session and with it the named lock; c2\'s GET_LOCK returns 1 while c1 still works as the holder.',
    ...SESSION_FIX,
    source: 'the database-lock post (session-bound database locks); MySQL GET_LOCK documentation',
  },
];
