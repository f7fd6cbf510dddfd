/**
 * zk-semaphore and zk-rwlock — ZooKeeper's classic recipes beside its lock, with sequential
 * ephemeral nodes under /locks/<key> (the ZooKeeper recipes page: "Shared Locks"; the
 * semaphore as Curator's and kazoo's count their leases):
 *   semaphore: create "<client>-lease-" EPHEMERAL_SEQUENTIAL; getChildren; admitted when fewer
 *     than N children come before mine; otherwise wait for one of them to go, and look again.
 *   rwlock: a reader creates "<client>-read-", a writer "<client>-write-". A reader is admitted
 *     when no write node comes before its node (it waits for the last one that does); a writer
 *     when its node is the lowest (it waits for the one just before).
 * Release deletes the node; the session rules (Disconnected, Expired; onDisconnect) are
 * zk-common.ts's, as for zk-ephemeral-sequential. A waiter that runs out of time deletes its node.
 */
import { isDefiniteFailure, type AcquireOptions, type Held, type Lock, type LockContext, type LockRecipe } from './lock.ts';
import { lockPath, SessionHolder, sessionLockMethods, ZK_OPTIONS_HELP, ZK_OPTION_VALUES, ZK_RECIPE, zkOptions, type ZkHeld } from './zk-common.ts';
import { CreateMode, isNoNode, type ZkSession } from './zookeeper-client.ts';
import { sequenceOf } from './zk-ephemeral-sequential.ts';

/** Which nodes `mine` (at index i of the sorted children) waits for: none when admitted. */
type Blockers = (kids: readonly string[], i: number, o: AcquireOptions) => string[];

/** A semaphore of N: admitted among the first N; else any node before it may free a permit. */
const leaseBlockers: Blockers = (kids, i, o) => (i < (o.limit ?? 1) ? [] : kids.slice(0, i));

/** A read-write lock: a reader waits for the last writer before it, a writer for the node just before. */
const modeBlockers: Blockers = (kids, i) => {
  if (!kids[i]!.includes('-read-')) return i === 0 ? [] : [kids[i - 1]!];
  const writers = kids.slice(0, i).filter((k) => k.includes('-write-'));
  return writers.length ? [writers[writers.length - 1]!] : [];
};

function make(name: string, label: (o: AcquireOptions) => string, blockers: Blockers) {
  return async (ctx: LockContext): Promise<Lock> => {
    const o = zkOptions(ctx, name);
    const sessions = new SessionHolder(ctx, name, o);
    await sessions.get().catch(() => {}); // connect early; acquire retries if this failed
    const ours = (k: string) => /-(lease|read|write)-\d{10}$/.test(k);

    /** Until admitted (true) or out of budget (false, node deleted). */
    async function queue(s: ZkSession, dir: string, mine: string, a: AcquireOptions, deadline: number): Promise<boolean> {
      for (;;) {
        const kids = (await s.children(dir)).filter(ours).sort((x, y) => sequenceOf(x) - sequenceOf(y));
        const i = kids.indexOf(mine);
        if (i < 0) throw new Error(`${name}: my node ${dir}/${mine} vanished while its session lives`);
        const wait = blockers(kids, i, a);
        if (wait.length === 0) return true;
        const left = deadline - ctx.clock.monoMs();
        if (left <= 0) {
          await s.remove(`${dir}/${mine}`).catch((err: unknown) => { if (!isNoNode(err)) throw err; });
          return false;
        }
        // Any of them going may let this node in: look again when the first does.
        await Promise.race(wait.map((k) => sessions.awaitDeletion(s, `${dir}/${k}`, left)));
        if (s.dead) throw new Error(`${name}: session expired while waiting in ${dir}`);
      }
    }

    return {
      name,
      async acquire(key: string, a: AcquireOptions): Promise<Held | null> {
        const deadline = ctx.clock.monoMs() + a.waitMs;
        const s = await sessions.get();
        const dir = lockPath(key);
        await sessions.guarded(s, () => s.mkdirp(dir));
        const path = await sessions.guarded(s, () => sessions.create(s, `${dir}/${encodeURIComponent(ctx.clientId)}-${label(a)}-`, CreateMode.EPHEMERAL_SEQUENTIAL));
        try {
          if (!(await queue(s, dir, path.slice(dir.length + 1), a, deadline))) return null;
        } catch (err) {
          // The node may still sit in the queue: end the session so it goes (whether it was admitted is unknown).
          sessions.abandon(s);
          throw isDefiniteFailure(err) ? new Error((err as Error).message) : err;
        }
        const held: ZkHeld = { key, path, session: s, epoch: s.lossEpoch };
        return held;
      },
      ...sessionLockMethods(sessions, o),
    };
  };
}

const common = { ...ZK_RECIPE, fencing: false, optionsHelp: ZK_OPTIONS_HELP, optionValues: ZK_OPTION_VALUES } as const;

export const semaphoreRecipe: LockRecipe = {
  ...common,
  name: 'zk-semaphore',
  summary: 'ZooKeeper counting semaphore (N=2): EPHEMERAL_SEQUENTIAL lease nodes under /locks/<key>; admitted when fewer than N come before mine',
  source: 'the ZooKeeper recipes page (Locks, Shared Locks) with N holders; Curator InterProcessSemaphoreV2, kazoo Semaphore',
  model: 'semaphore',
  semaphore: { limit: 2 },
  create: make('zk-semaphore', () => 'lease', leaseBlockers),
};

export const rwlockRecipe: LockRecipe = {
  ...common,
  name: 'zk-rwlock',
  summary: 'ZooKeeper read-write lock: EPHEMERAL_SEQUENTIAL read-/write- nodes; a reader waits only for write nodes before it, a writer for every node before it',
  source: 'the ZooKeeper recipes page (Shared Locks)',
  model: 'rwlock',
  modes: ['exclusive', 'shared'],
  create: make('zk-rwlock', (a) => (a.mode === 'shared' ? 'read' : 'write'), modeBlockers),
};
