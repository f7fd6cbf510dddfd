// Catalogue entries where the lock lives in a server session: ZooKeeper
// ephemeral nodes (the Redis and ZooKeeper post) and MySQL/MariaDB row locks, GET_LOCK and unique keys (the database-lock post).
import type { DemoEntry } from './entry.ts';

const ZK_RELEASE_RENEW = { file: 'zk-common.ts', from: 'async renew(h: ZkHeld)', to: "return 'lost';" };
/** How the MySQL session locks are fixed, and the demo where that fix holds. */
const SESSION_FIX: Pick<DemoEntry, 'fix' | 'fixDemo'> = {
  fix: 'A session lock is lost when the session is, and the holder may not notice: treat a dropped connection as a lost lock and stop (as zk-treat-as-loss does), and let the resource check a fencing token for the writes that slip through.',
  fixDemo: 'zk-treat-as-loss',
};

/** The same in Chinese. */
const SESSION_FIX_ZH = "会话锁随会话丢失而丢失，而持有者可能毫无察觉：把断开的连接当作锁已丢失并停止工作（像 zk-treat-as-loss 那样），并让资源检查栅栏令牌，挡住漏网的写入。";

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
    zh: {
      title: "ZooKeeper：忽略 Disconnected 的客户端活得比它的会话还久",
      lock: "在 /locks/<key> 下创建 EPHEMERAL_SEQUENTIAL（临时顺序节点）；序号最小者持有锁，每个等待者监听它的前一个节点。节点随会话消失。这个客户端（onDisconnect=ignore）不管会话告诉它什么，都一直以为自己持有锁。",
      fault: "c1 在临界区中与 ZooKeeper 之间网络分区 3 s；它的会话超时为 1 s。",
      story: "ZooKeeper 在超过会话超时的时间里没有收到 c1 的任何消息，于是让会话过期并删除了它的节点。排在下一位的 c2 收到通知并持有锁。c1 从不查看自己的连接状态，继续工作：两个客户端同时持有锁。",
      fix: "把 Disconnected 当作“可能已丢失”，把 Expired 当作已丢失（Curator 对 SUSPENDED/LOST 的建议）：行动前先检查，放弃锁，并对写入加栅栏。",
      source: "Redis 与 ZooKeeper 那篇文章（ZooKeeper 锁），数据库锁那篇文章（ZooKeeper）；Curator 文档",
    },
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
    zh: {
      title: "ZooKeeper：把 Disconnected 当作锁丢失的客户端：修复有效",
      lock: "同样的实现，但 onDisconnect=treat-as-loss：经历过 Disconnected 或 Expired 的持有视为丢失，客户端工作期间每 TTL/3 续约一次（检查自己的节点和会话）。",
      fault: "与 zk-ignore-disconnect 相同的网络分区：c1 在临界区中被隔离 3 s（会话超时 1 s）。",
      story: "c1 在被隔离期间的下一次检查失败，于是它不再认为自己持有锁，并在会话过期之前放弃了写入。c2 只在 c1 放弃之后才持有锁：从未出现两个持有者。",
      fix: "这是 zk-ignore-disconnect 的修复。",
      source: "Curator 文档（ConnectionStateListener）；Redis 与 ZooKeeper 那篇文章",
    },
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
    zh: {
      title: "MySQL 唯一键锁：持有者死掉会阻塞所有人（活性）",
      lock: "以锁名为键 INSERT 一行（持有者、重入次数、时间）；唯一键冲突表示已被占用，重试；解锁 = DELETE。这一行永远不会过期。",
      fault: "客户端 c1 在临界区中被杀掉（kill -9）。检查的属性：活性（持有者消失后 2 × TTL = 1.6 s 内锁重新可用）。",
      story: "c1 插入的那一行比 c1 活得更久。c2 和 c3 重试了 3 s，每次都得到唯一键冲突错误：锁永远不可用。安全，但卡死了：违反活性。",
      fix: "让锁能在没有持有者的情况下结束：租约（一个过期时间，等待者可以在过期后接管），或者与会话绑定、随客户端一起消失的锁。",
      source: "数据库锁那篇文章（数据库分布式锁，实现方式一：没有过期时间的唯一键行，持有者死掉后永远阻塞）",
    },
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
    zh: {
      title: "SELECT ... FOR UPDATE：服务器断开了持有者的会话",
      lock: "在一个未提交的事务中 SELECT ... FOR UPDATE 得到的行锁就是这把锁；解锁 = COMMIT。服务器保留会话多久，锁就存在多久。",
      fault: "c1 在临界区中与服务器之间网络分区 3 s（连接断开）。",
      story: "服务器发现 c1 的连接断了，结束会话并回滚事务：行锁没了。c2 拿到了锁，而 c1 此后没有再与服务器通信，仍以持有者身份继续工作。它的 COMMIT 之后才失败，那时损害已经造成。",
      fix: SESSION_FIX_ZH,
      source: "数据库锁那篇文章（实现方式二，SELECT … FOR UPDATE：事务超时自动回滚，释放锁）",
    },
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
    zh: {
      title: "GET_LOCK：锁随会话一起消失",
      lock: "在专用会话上 SELECT GET_LOCK(name, wait)；解锁 = RELEASE_LOCK。会话结束时 MySQL 释放这把锁。",
      fault: "c1 在临界区中与服务器之间网络分区 3 s（连接断开）。",
      story: "服务器结束了 c1 的会话，命名锁也随之释放；c2 的 GET_LOCK 返回 1，而 c1 仍以持有者身份工作。",
      fix: SESSION_FIX_ZH,
      source: "数据库锁那篇文章（与会话绑定的数据库锁）；MySQL GET_LOCK 文档",
    },
  },
];
