/**
 * zk-ephemeral-sequential — the Redis and ZooKeeper post and the database-lock post
 * (their ZooKeeper sections). The first, step by step:
 *   1. create "locknode/guid-lock-" with CreateMode.EPHEMERAL_SEQUENTIAL;
 *   2. getChildren("locknode");
 *   3. "如果发现自己在步骤1中创建的节点是所有节点中序号最小的，那么就认为这个客户端获得了锁"
 *      (if my node has the lowest sequence number, I hold the lock);
 *   4. otherwise "监视比自己创建节点的序列号小的最大的节点" — watch the next-lower
 *      node only (no herd effect, which the database-lock post warns about), and check again
 *      when it changes.
 *   release: "删除自己创建的那个子节点" (delete the node I created).
 * Nodes live under /locks/<key>/<client>-lock-NNNNNNNNNN. The sequence number is
 * the fencing token: holders are granted in sequence order, so tokens grow.
 * An acquire that runs out of wait budget deletes its node (the post's code
 * leaves it: that waiter would then hold the lock later without knowing).
 * Option afterWait='assume-held' reproduces the post's own "不太严谨的代码"
 * (not rigorous code): waitForLock returns after the watch fires or the wait
 * times out, and acquireDistributedLock returns as if the lock were held.
 * The session rules (what a Disconnected/Expired means) are in zk-common.ts.
 */
import { isDefiniteFailure, type AcquireOptions, type Held, type Lock, type LockContext, type LockRecipe } from './lock.ts';
import { choiceOption } from './options.ts';
import { lockPath, SessionHolder, sessionLockMethods, ZK_OPTIONS_HELP, ZK_OPTION_VALUES, ZK_RECIPE, zkOptions, type ZkHeld } from './zk-common.ts';
import { CreateMode, isNoNode, type ZkSession } from './zookeeper-client.ts';

const NAME = 'zk-ephemeral-sequential';
const AFTER_WAIT = ['recheck', 'assume-held'] as const;

/** The 10-digit counter ZooKeeper appends to a sequential node's name. */
export const sequenceOf = (name: string) => Number(name.slice(-10));

async function create(ctx: LockContext): Promise<Lock> {
  const o = zkOptions(ctx, NAME);
  const afterWait = choiceOption(ctx, NAME, 'afterWait', AFTER_WAIT, 'recheck');
  const sessions = new SessionHolder(ctx, NAME, o);
  await sessions.get().catch(() => {}); // connect early; acquire retries if this failed
  const prefix = `${encodeURIComponent(ctx.clientId)}-lock-`;

  /** Steps 2–4 until held (the node's name) or out of budget (null, node deleted). */
  async function queue(s: ZkSession, dir: string, mine: string, deadline: number): Promise<string | null> {
    for (;;) {
      const kids = (await s.children(dir)).filter((c) => c.includes('-lock-')).sort((a, b) => sequenceOf(a) - sequenceOf(b));
      const i = kids.indexOf(mine);
      if (i < 0) throw new Error(`${NAME}: my node ${dir}/${mine} vanished while its session lives`);
      if (i === 0) return mine;
      const left = deadline - ctx.clock.monoMs();
      if (left <= 0 && afterWait === 'recheck') {
        await s.remove(`${dir}/${mine}`).catch((err: unknown) => { if (!isNoNode(err)) throw err; });
        return null;
      }
      // Only the predecessor: one waiter woken per release (no herd).
      await sessions.awaitDeletion(s, `${dir}/${kids[i - 1]}`, left);
      if (afterWait === 'assume-held') return mine;
      if (s.dead) throw new Error(`${NAME}: session expired while waiting in ${dir}`);
    }
  }

  return {
    name: NAME,
    async acquire(key: string, a: AcquireOptions): Promise<Held | null> {
      const deadline = ctx.clock.monoMs() + a.waitMs;
      const s = await sessions.get();
      const dir = lockPath(key);
      await sessions.guarded(s, () => s.mkdirp(dir));
      const path = await sessions.guarded(s, () => sessions.create(s, `${dir}/${prefix}`, CreateMode.EPHEMERAL_SEQUENTIAL));
      const mine = path.slice(dir.length + 1);
      try {
        if (!(await queue(s, dir, mine, deadline))) return null;
      } catch (err) {
        // Our node may still sit in the queue and be granted to nobody: end the
        // session so it goes. Whether it was ever lowest is unknown: not a definite failure.
        sessions.abandon(s);
        throw isDefiniteFailure(err) ? new Error((err as Error).message) : err;
      }
      const held: ZkHeld = { key, path, token: sequenceOf(mine), session: s, epoch: s.lossEpoch };
      return held;
    },
    ...sessionLockMethods(sessions, o),
  };
}

export const recipe: LockRecipe = {
  name: NAME,
  summary: 'ZooKeeper EPHEMERAL_SEQUENTIAL under /locks/<key>: lowest sequence holds, each waiter watches its predecessor; token = sequence',
  source: 'the Redis and ZooKeeper post (ZooKeeper section), the database-lock post (ZooKeeper, herd effect)',
  ...ZK_RECIPE,
  model: 'fenced-mutex',
  fencing: true,
  optionsHelp: {
    ...ZK_OPTIONS_HELP,
    afterWait: "'recheck' (default: after the watch fires, look again who is lowest) or 'assume-held' (the Redis and ZooKeeper post's code: proceed as holder after the watch or the wait timeout)",
  },
  optionValues: { ...ZK_OPTION_VALUES, afterWait: AFTER_WAIT },
  create,
};
