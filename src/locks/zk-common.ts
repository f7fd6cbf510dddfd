// What the two ZooKeeper recipes share: their options, the client's current
// session (replaced when it dies), and release/renew of an ephemeral node.
// Release is the ZooKeeper posts' "delete the node I created" (删除自己创建的那个子节点):
//   live session, delete ok → 'released'; NO_NODE → 'lost';
//   session expired (or abandoned) → its ephemeral node is gone: 'lost'
//   (a Java client's delete on an expired handle throws SessionExpiredException);
//   cut off → it waits up to the session timeout for one of those answers.
// onDisconnect decides what the client does with what its session tells it:
//   'ignore'        — the sloppy client: no renew, it acts as holder until release;
//   'treat-as-loss' — Curator's advice for SUSPENDED/LOST: a hold made before a
//                     Disconnected/Expired (or a silent link) is gone; renew()
//                     and release() answer 'lost' then (deleting the node if
//                     the session still can, so waiters need not wait for expiry).
import type { Held, Lock, LockContext, LockRecipe } from './lock.ts';
import { isDefiniteFailure } from './lock.ts';
import { choiceOption, numberOption } from './options.ts';
import { isAnswer, isNoNode, ZkSession, zookeeperAddon } from './zookeeper-client.ts';

export const ON_DISCONNECT = ['ignore', 'treat-as-loss'] as const;
export type OnDisconnect = (typeof ON_DISCONNECT)[number];

export const ZK_OPTIONS_HELP: Record<string, string> = {
  sessionTimeoutMs: 'ZooKeeper session timeout asked for (default 2000; the server grants 1000..60000 with tickTime 500)',
  onDisconnect: "'treat-as-loss' (default: a hold seen through Disconnected/Expired is lost; renew says so) or 'ignore' (keeps believing it holds)",
};

export const ZK_OPTION_VALUES = { sessionTimeoutMs: 'number', onDisconnect: ON_DISCONNECT } as const;

export interface ZkOptions { sessionTimeoutMs: number; onDisconnect: OnDisconnect }

export function zkOptions(ctx: LockContext, recipe: string): ZkOptions {
  const sessionTimeoutMs = numberOption(ctx, recipe, 'sessionTimeoutMs', zkSessionMs(undefined));
  if (sessionTimeoutMs < 1000 || sessionTimeoutMs > 60_000) {
    throw new Error(`lock ${recipe}: option sessionTimeoutMs=${sessionTimeoutMs} is outside what the server grants (1000..60000 with tickTime 500); pass e.g. --lock-opt sessionTimeoutMs=2000`);
  }
  return { sessionTimeoutMs, onDisconnect: choiceOption(ctx, recipe, 'onDisconnect', ON_DISCONNECT, 'treat-as-loss') };
}

/** The session timeout the recipes ask for, from --lock-opt (LockRecipe.sessionMs). */
export const zkSessionMs = (options: Record<string, unknown> | undefined) => Number(options?.sessionTimeoutMs ?? 2000);

/** A node under /locks for the key (any characters, one path segment). */
export const lockPath = (key: string) => `/locks/${encodeURIComponent(key)}`;

/** What a ZooKeeper hold remembers: its node, the session that made it, the loss count then. */
export interface ZkHeld extends Held { path: string; session: ZkSession; epoch: number }

/**
 * What one client counts for the herd-effect figure (Lock.stats, summed per run
 * into the coverage): watch notifications the server sent it, create requests
 * it made (a NODE_EXISTS counts: it was one more request on the ensemble), and
 * wake-ups (waits ended by a notification, after which the waiter looks again).
 */
export interface ZkCounts { watchNotifications: number; creates: number; wakeups: number; [name: string]: number }

/** The client's session: one at a time, replaced lazily after it died or was abandoned. */
export class SessionHolder {
  private current: ZkSession | undefined;
  private readonly all = new Set<ZkSession>();
  readonly counts: ZkCounts = { watchNotifications: 0, creates: 0, wakeups: 0 };

  constructor(private readonly ctx: LockContext, private readonly recipe: string, readonly o: ZkOptions) {
    zookeeperAddon(); // an unbuilt addon fails create() in words, not every acquire as unknown
  }

  /** A live session (connecting a new one if needed); DefiniteFailure when none can be had in time. */
  async get(): Promise<ZkSession> {
    if (this.current && !this.current.dead) return this.current;
    const s = await ZkSession.open(this.ctx, this.recipe, this.o.sessionTimeoutMs, Math.max(1000, this.ctx.commandTimeoutMs));
    this.all.add(s);
    this.current = s;
    return s;
  }

  /** After an unknown outcome: end the session so any node it may have made goes away. */
  abandon(s: ZkSession): void {
    s.close();
  }

  /** Runs `op`; an unknown outcome abandons the session before the error goes on. */
  async guarded<T>(s: ZkSession, op: () => Promise<T>): Promise<T> {
    try {
      return await op();
    } catch (err) {
      if (!isDefiniteFailure(err) && !isAnswer(err)) this.abandon(s);
      throw err;
    }
  }

  /** Deletes the hold's own node: 'released', or 'lost' when it (or its session) is gone. */
  async release(h: ZkHeld): Promise<'released' | 'lost'> {
    if (this.o.onDisconnect === 'treat-as-loss' && this.lapsed(h)) {
      // The client gave the hold up when it saw the loss; tidy up behind it.
      if (!h.session.dead) void this.delete(h).catch(() => {});
      return 'lost';
    }
    // Cut off: wait until the session is back or certainly gone (≤ its timeout).
    await h.session.whenConnected(this.o.sessionTimeoutMs + this.ctx.commandTimeoutMs);
    return this.delete(h);
  }

  private lapsed(h: ZkHeld): boolean {
    return h.session.dead || h.session.lossEpoch !== h.epoch;
  }

  private async delete(h: ZkHeld): Promise<'released' | 'lost'> {
    if (h.session.dead) return 'lost';
    try {
      await this.guarded(h.session, () => h.session.remove(h.path));
      return 'released';
    } catch (err) {
      if (isNoNode(err)) return 'lost';
      if (h.session.dead) return 'lost'; // expired while we asked: the node went with it
      throw err;
    }
  }

  /** treat-as-loss: still held only if no loss was seen since the grant and the node is still this session's. */
  async renew(h: ZkHeld): Promise<'renewed' | 'lost'> {
    if (!this.lapsed(h)) {
      try {
        const stat = await this.guarded(h.session, () => h.session.exists(h.path));
        if (stat && stat.ephemeralOwner === h.session.sessionId() && !this.lapsed(h)) return 'renewed';
      } catch {
        // No answer: a careful client stops believing (and the session was abandoned).
      }
    }
    // Given up: free the node in the background if the session still can, so
    // waiters need not wait for the expiry (no answer abandons the session: same effect).
    if (!h.session.dead) void this.delete(h).catch(() => {});
    return 'lost';
  }

  /** A create request, counted (the herd figure's "creates per acquire"). */
  create(s: ZkSession, path: string, mode: number): Promise<string> {
    this.counts.creates++;
    return s.create(path, mode);
  }

  /**
   * Waits until `path` is deleted (an exists() watch: checks and registers in
   * one request, so no deletion is missed), the session changes, or `ms` pass.
   * True when a watch notification ended the wait. Every notification counts,
   * also one that arrives after the wait ran out: the server sent it all the same.
   */
  async awaitDeletion(s: ZkSession, path: string, ms: number): Promise<boolean> {
    let notified = false;
    await waitForChange(s, ms, (wake) => {
      const watcher = () => { this.counts.watchNotifications++; notified = true; wake(); };
      s.exists(path, watcher).then((st) => { if (!st) wake(); }, wake);
    });
    if (notified) this.counts.wakeups++;
    return notified;
  }

  async close(): Promise<void> {
    for (const s of this.all) s.close();
    this.all.clear();
    this.current = undefined;
  }
}

/**
 * Waits until `wake` fires, the session changes, or `ms` pass. The watch set
 * before calling fires `wake`; the session's change covers a watch lost with
 * a dead connection.
 */
/** What both ZooKeeper recipes' locks do alike once held: release, renew (a careful client only), counters, close. */
export function sessionLockMethods(sessions: SessionHolder, o: ZkOptions): Pick<Lock, 'release' | 'stats' | 'close'> & Partial<Pick<Lock, 'renew'>> {
  return {
    release: (h: Held) => sessions.release(h as ZkHeld),
    ...(o.onDisconnect === 'treat-as-loss' ? { renew: (h: Held) => sessions.renew(h as ZkHeld) } : {}),
    stats: () => ({ ...sessions.counts }),
    close: () => sessions.close(),
  };
}

/** The recipe fields both ZooKeeper recipes declare alike. */
export const ZK_RECIPE = {
  topology: { kind: 'zookeeper', nodes: 3 },
  packages: ['zookeeper'],   // the addon: an optional dependency
  renews: true,             // with onDisconnect=treat-as-loss
  sessionMs: zkSessionMs,
} satisfies Partial<LockRecipe>;

export function waitForChange(s: ZkSession, ms: number, arm: (wake: () => void) => void): Promise<void> {
  return new Promise((resolve) => {
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(t);
      off();
      resolve();
    };
    const t = setTimeout(finish, Math.max(0, ms));
    const off = s.onChange(finish);
    arm(finish);
  });
}
