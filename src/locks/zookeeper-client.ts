// A ZooKeeper session for lock recipes on the `zookeeper` npm package (the
// Apache C client as a Node addon, built from the tarball it ships), set up so
// every request has one of three outcomes the runner can record honestly:
//   answer            → it happened (or the server refused it: ZNODEEXISTS, ZNONODE, ...);
//   never sent        → the session did not (re)connect within the budget, or the C
//                       client refused the call at once (a closed/expired handle):
//                       refused here (DefiniteFailure), never queued;
//   sent, no answer   → timeout, ZCONNECTIONLOSS, ZOPERATIONTIMEOUT, ZCLOSING: unknown.
//                       The caller then abandons the session, so its ephemeral nodes go with it.
// It also keeps what a careful client knows about its session: every
// disconnect ('connecting' after being connected) or expiry ('close' we did not
// ask for) bumps `lossEpoch`, a connection the server has been silent on for
// 2/3 of the session timeout counts as lost too (the C client's own read
// timeout is the same), and silence for a whole session timeout ends the session
// on the client side: the C client never declares expiry until a server says so.
import type { EventEmitter } from 'node:events';
import { DefiniteFailure, type LockContext } from './lock.ts';
import { requireOptional } from '../optional.ts';

/** What an exists() answer carries that the recipes read: the owning session, as the C client's hex id. */
export interface ZkStat { ephemeralOwner: string }
type Done<T> = (rc: number, error: string, result: T) => void;
// The addon's callback API (lib/zookeeper.js); every a_* call returns the C
// client's own rc: non-zero means the request was not queued and `done` never runs.
interface ZkClient extends EventEmitter {
  init(config: object): ZkClient;
  close(): void;
  readonly client_id: string;
  a_create(path: string, data: Buffer, flags: number, done: Done<string>): number;
  a_delete_(path: string, version: number, done: Done<undefined>): number;
  a_exists(path: string, watch: boolean, done: Done<ZkStat | null>): number;
  aw_exists(path: string, watcher: (type: number, state: number, path: string) => void, done: Done<ZkStat | null>): number;
  a_get_children(path: string, watch: boolean, done: Done<string[]>): number;
}
interface ZkModule {
  new (config: { connect: string; timeout: number; debug_level: number; host_order_deterministic: boolean }): ZkClient;
  constants: Record<string, number>;
}

// The numbers of the C client's zookeeper.h (the protocol's own), so this module
// loads without the addon: `lockpick list` or a Redis run must not need it built.
// test/unit/zookeeper-client.test.ts checks them against the addon.
export const ZK_CODES = {
  ZOK: 0, ZCONNECTIONLOSS: -4, ZOPERATIONTIMEOUT: -7, ZNONODE: -101, ZNODEEXISTS: -110, ZCLOSING: -116,
  ZOO_PERSISTENT: 0, ZOO_EPHEMERAL: 1, ZOO_EPHEMERAL_SEQUENTIAL: 3,
  ZOO_CREATED_EVENT: 1, ZOO_DELETED_EVENT: 2, ZOO_CHANGED_EVENT: 3, ZOO_CHILD_EVENT: 4,
} as const;
const C = ZK_CODES;
export const CreateMode = { PERSISTENT: C.ZOO_PERSISTENT, EPHEMERAL: C.ZOO_EPHEMERAL, EPHEMERAL_SEQUENTIAL: C.ZOO_EPHEMERAL_SEQUENTIAL };
const OK: number = C.ZOK, NO_NODE: number = C.ZNONODE, NODE_EXISTS: number = C.ZNODEEXISTS;
/** Sent, but no answer came back: the request may or may not have taken effect. */
const NO_ANSWER = new Set<number>([C.ZCONNECTIONLOSS, C.ZOPERATIONTIMEOUT, C.ZCLOSING]);
/** Watch events the server sends (a node created, deleted, changed, its children); not session events. */
const NODE_EVENTS = new Set<number>([C.ZOO_CREATED_EVENT, C.ZOO_DELETED_EVENT, C.ZOO_CHANGED_EVENT, C.ZOO_CHILD_EVENT]);

let addon: ZkModule | undefined;
/**
 * The `zookeeper` package (its lib/ loads the addon at once): an optional
 * dependency, built at install time (node-gyp, from the C client tarball it
 * ships). An install without a compiler, with --omit=optional or with
 * --ignore-scripts has none: MissingPackageError says the install line (exit 3).
 */
export function zookeeperAddon(): ZkModule {
  return (addon ??= requireOptional<ZkModule>('zookeeper'));
}

/** A ZooKeeper result code as an error (the code is the C client's, e.g. -101 ZNONODE). */
export class ZkError extends Error {
  constructor(readonly code: number, what: string, text: string) {
    super(`zookeeper ${what}: ${text} (${code})`);
  }
  getCode(): number { return this.code; }
}

/** A ZooKeeper error code, or undefined for anything else (timeouts, ...). */
export function zkCode(err: unknown): number | undefined {
  return err instanceof ZkError ? err.code : undefined;
}
export const isNoNode = (err: unknown) => zkCode(err) === NO_NODE;
export const isNodeExists = (err: unknown) => zkCode(err) === NODE_EXISTS;
/** A ZooKeeper answer (ZNONODE, ZNODEEXISTS, ZSESSIONEXPIRED, ...): the request was decided. */
export function isAnswer(err: unknown): boolean {
  const code = zkCode(err);
  return code !== undefined && !NO_ANSWER.has(code);
}

export class ZkSession {
  /** Bumped on every disconnect/expiry/silence seen after being connected. */
  lossEpoch = 0;
  /** Expired or closed: its ephemeral nodes are gone (or going); open a new session. */
  dead = false;
  private isConnected = false;
  private lastHeardMs: number;
  private readonly wakers = new Set<() => void>();
  private readonly heartbeat: NodeJS.Timeout;
  private suspect = false; // counted the current silence already

  private constructor(private readonly client: ZkClient, private readonly ctx: LockContext, readonly sessionTimeoutMs: number) {
    this.lastHeardMs = ctx.clock.monoMs();
    client.on('connect', () => { this.isConnected = true; this.heard(); this.wake(); });
    client.on('connecting', () => this.lost());
    // 'close' with a code we did not ask for: ZOO_EXPIRED_SESSION_STATE (a server
    // said so, or the addon gave up on a connection that kept saying nothing).
    client.on('close', () => { if (!this.dead) { this.lost(); this.close(); } });
    // Ping at a third of the timeout; count 2/3 of silence as a loss.
    this.heartbeat = setInterval(() => this.beat(), Math.max(50, Math.floor(sessionTimeoutMs / 3)));
    this.heartbeat.unref();
  }

  /** Connects to every endpoint of ctx (one connection string); DefiniteFailure if not connected within budgetMs. */
  static async open(ctx: LockContext, recipe: string, sessionTimeoutMs: number, budgetMs: number): Promise<ZkSession> {
    if (ctx.endpoints.length === 0) {
      throw new Error(`lock ${recipe}: the lock context of client ${ctx.clientId} has no endpoints; it needs the 'zookeeper' topology`);
    }
    const hosts = ctx.endpoints.map((e) => `${e.host}:${e.port}`).join(',');
    // debug_level 0: the C client logs nothing (its stderr would land in the worker's output).
    const client = new (zookeeperAddon())({ connect: hosts, timeout: sessionTimeoutMs, debug_level: 0, host_order_deterministic: false });
    const s = new ZkSession(client, ctx, sessionTimeoutMs);
    client.init({});
    if (!(await s.whenConnected(budgetMs))) {
      s.close();
      throw new DefiniteFailure(`${recipe}: no ZooKeeper session within ${budgetMs} ms (${hosts})`);
    }
    return s;
  }

  connected(): boolean {
    return !this.dead && this.isConnected;
  }

  /** The session id as the C client prints it (hex), comparable with ZkStat.ephemeralOwner. */
  sessionId(): string {
    return this.client.client_id;
  }

  /** Wakes `fn` on every change of what this session knows (state, loss); returns the unsubscribe. */
  onChange(fn: () => void): () => void {
    this.wakers.add(fn);
    return () => this.wakers.delete(fn);
  }

  create(path: string, mode: number): Promise<string> {
    return this.call(`create ${path}`, (done) => this.client.a_create(path, Buffer.alloc(0), mode, done));
  }
  remove(path: string): Promise<void> {
    return this.call<undefined>(`delete ${path}`, (done) => this.client.a_delete_(path, -1, done));
  }
  /** The node's stat, or null when there is none; `watcher` hears the node's next change (not session events). */
  exists(path: string, watcher?: () => void): Promise<ZkStat | null> {
    const issue = watcher
      ? (done: Done<ZkStat | null>) => this.client.aw_exists(path, (type) => { if (NODE_EVENTS.has(type)) watcher(); }, done)
      : (done: Done<ZkStat | null>) => this.client.a_exists(path, false, done);
    return this.call(`exists ${path}`, issue, NO_NODE);
  }
  children(path: string): Promise<string[]> {
    return this.call(`getChildren ${path}`, (done) => this.client.a_get_children(path, false, done));
  }
  /** Creates every missing persistent node of `path` (one at a time; an existing one is fine). */
  async mkdirp(path: string): Promise<string> {
    const parts = path.split('/').filter(Boolean);
    for (let i = 1; i <= parts.length; i++) {
      const p = `/${parts.slice(0, i).join('/')}`;
      await this.create(p, CreateMode.PERSISTENT).catch((err: unknown) => { if (!isNodeExists(err)) throw err; });
    }
    return path;
  }

  /** Ends the session: the server drops its ephemeral nodes now (if it hears us) or at expiry. */
  close(): void {
    clearInterval(this.heartbeat);
    if (!this.dead) {
      this.dead = true;
      this.isConnected = false;
      this.client.close();
    }
    this.wake();
  }

  /** Resolves true once connected, false when the session died or `ms` passed. */
  whenConnected(ms: number): Promise<boolean> {
    if (this.connected()) return Promise.resolve(true);
    if (this.dead) return Promise.resolve(false);
    return new Promise((resolve) => {
      const done = () => { clearTimeout(t); off(); resolve(this.connected()); };
      const t = setTimeout(done, ms);
      const off = this.onChange(() => { if (this.connected() || this.dead) done(); });
    });
  }

  /**
   * One request with the command budget. While disconnected it waits for the
   * connection within that budget; if none comes it is refused here (nothing
   * sent: DefiniteFailure). Sent and unanswered within the budget: unknown.
   * `empty` is a result code that means "no such thing" (resolves null).
   */
  private async call<T>(what: string, issue: (done: Done<T>) => number, empty?: number): Promise<T> {
    if (!(await this.whenConnected(this.ctx.commandTimeoutMs))) {
      throw new DefiniteFailure(`zookeeper ${what}: session ${this.dead ? 'expired or closed' : 'not connected'}`);
    }
    return new Promise<T>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`zookeeper ${what}: no answer within ${this.ctx.commandTimeoutMs} ms`)), this.ctx.commandTimeoutMs);
      let rc: number;
      try {
        rc = issue((code, text, result) => {
          clearTimeout(t);
          if (NO_ANSWER.has(code)) return reject(new ZkError(code, what, text)); // sent, answer lost: unknown
          this.heard();
          if (code === OK) resolve(result);
          else if (code === empty) resolve(null as T);
          else reject(new ZkError(code, what, text));
        });
      } catch (err) {
        // The addon throws on arguments it cannot take: nothing was sent.
        clearTimeout(t);
        return reject(new DefiniteFailure(`zookeeper ${what}: refused by the client: ${(err as Error).message}`));
      }
      if (rc !== OK) {
        // Refused before anything was queued (e.g. -9 ZINVALIDSTATE: the handle is closed or expired).
        clearTimeout(t);
        reject(new DefiniteFailure(`zookeeper ${what}: refused by the client (${rc})`));
      }
    });
  }

  private heard(): void {
    this.lastHeardMs = this.ctx.clock.monoMs();
    this.suspect = false;
  }

  private lost(): void {
    this.lossEpoch++;
    this.isConnected = false;
    this.wake();
  }

  private beat(): void {
    if (this.dead) return;
    const silentMs = this.ctx.clock.monoMs() - this.lastHeardMs;
    // Not a word for a whole session timeout: the server has expired us by now
    // (Curator 3's client-side LOST); close, so the client stops waiting for it.
    if (silentMs > this.sessionTimeoutMs) {
      this.lossEpoch++;
      this.close();
      return;
    }
    if (!this.connected()) return;
    if (!this.suspect && silentMs > (2 * this.sessionTimeoutMs) / 3) {
      this.suspect = true;
      this.lossEpoch++;
      this.wake();
    }
    this.client.a_exists('/', false, (rc) => { if (rc === OK) this.heard(); });
  }

  private wake(): void {
    for (const w of [...this.wakers]) w();
  }
}
