/**
 * zk-ephemeral — the Redis and ZooKeeper post, "另一个版本" (the other version):
 *   "某个节点尝试创建临时znode，此时创建成功了就获取了这个锁；这个时候别的客户端来创建锁会失败，
 *    只能注册个监听器监听这个锁。释放锁就是删除这个znode，一旦释放掉就会通知客户端"
 *   — create one ephemeral znode; whoever creates it holds the lock; the others
 *   fail with NODE_EXISTS and watch it; release deletes it, which notifies them.
 * Every waiter watches the same node, so each release wakes all of them and
 * all race to create it again: the herd effect the database-lock post (羊群效应) warns about.
 * The node is /locks/<key>; no fencing token. Session rules: zk-common.ts.
 */
import type { AcquireOptions, Held, Lock, LockContext, LockRecipe } from './lock.ts';
import { lockPath, SessionHolder, sessionLockMethods, ZK_OPTIONS_HELP, ZK_OPTION_VALUES, ZK_RECIPE, zkOptions, type ZkHeld } from './zk-common.ts';
import { CreateMode, isNodeExists } from './zookeeper-client.ts';

const NAME = 'zk-ephemeral';

async function create(ctx: LockContext): Promise<Lock> {
  const o = zkOptions(ctx, NAME);
  const sessions = new SessionHolder(ctx, NAME, o);
  await sessions.get().catch(() => {}); // connect early; acquire retries if this failed

  return {
    name: NAME,
    async acquire(key: string, a: AcquireOptions): Promise<Held | null> {
      const deadline = ctx.clock.monoMs() + a.waitMs;
      const s = await sessions.get();
      const path = lockPath(key);
      return sessions.guarded(s, async () => {
        await s.mkdirp('/locks');
        for (;;) {
          try {
            await sessions.create(s, path, CreateMode.EPHEMERAL);
            const held: ZkHeld = { key, path, session: s, epoch: s.lossEpoch };
            return held;
          } catch (err) {
            if (!isNodeExists(err)) throw err;
          }
          const left = deadline - ctx.clock.monoMs();
          if (left <= 0) return null;
          // Watch the holder's node; if it is already gone, try again at once.
          await sessions.awaitDeletion(s, path, left);
          if (s.dead) throw new Error(`${NAME}: session expired while waiting for ${path}`);
        }
      });
    },
    ...sessionLockMethods(sessions, o),
  };
}

export const recipe: LockRecipe = {
  name: NAME,
  summary: 'ZooKeeper: one EPHEMERAL znode /locks/<key>; waiters all watch it (herd effect); release = delete',
  source: 'the Redis and ZooKeeper post (ZooKeeper, the other version), the database-lock post (herd effect)',
  ...ZK_RECIPE,
  model: 'mutex',
  fencing: false,
  optionsHelp: ZK_OPTIONS_HELP,
  optionValues: ZK_OPTION_VALUES,
  create,
};
