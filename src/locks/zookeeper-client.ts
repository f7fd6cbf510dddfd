// A ZooKeeper session for lock recipes (node-zookeeper-client), set up so every
// request has one of three outcomes the runner can record honestly:
//   answer            → it happened (or the server refused it: NODE_EXISTS, NO_NODE, ...);
//   never sent        → the session did not (re)connect within the budget, so the
//                       request is refused here (DefiniteFailure), never queued;
//   sent, no answer   → timeout or CONNECTION_LOSS: unknown. The caller then
//                       abandons the session, so its ephemeral nodes go with it.
// It also keeps what a careful client knows about its session: every
// Disconnected/Expired bumps `lossEpoch`, and a connection the server has been
// silent on for 2/3 of the session timeout counts as lost too (the Java client's
// read timeout; node-zookeeper-client itself never notices a black-holed link),
// and silence for a whole session timeout ends the session on the client side.
import { createRequire } from 'node:module';
import type { EventEmitter } from 'node:events';
import { DefiniteFailure, type LockContext } from './lock.ts';

interface ZkState { name: string; code: number }
interface ZkException extends Error { getCode(): number }
export interface ZkStat { ephemeralOwner: Buffer }
type Cb<T> = (err: ZkException | null, result: T) => void;
interface ZkClient extends EventEmitter {
  connect(): void;
  close(): void;
  getState(): ZkState;
  getSessionId(): Buffer;
  create(path: string, data: Buffer, mode: number, cb: Cb<string>): void;
  remove(path: string, version: number, cb: (err: ZkException | null) => void): void;
  exists(path: string, watcher: ((event: unknown) => void) | undefined, cb: Cb<ZkStat | null>): void;
  getChildren(path: string, watcher: ((event: unknown) => void) | undefined, cb: Cb<string[]>): void;
  mkdirp(path: string, cb: Cb<string>): void;
}
interface ZkModule {
  createClient(connectionString: string, o: { sessionTimeout: number; spinDelay: number; retries: number }): ZkClient;
  CreateMode: { EPHEMERAL: number; EPHEMERAL_SEQUENTIAL: number };
  State: { SYNC_CONNECTED: ZkState; DISCONNECTED: ZkState; EXPIRED: ZkState };
  Exception: { NO_NODE: number; NODE_EXISTS: number; SESSION_EXPIRED: number; CONNECTION_LOSS: number };
}

// The package ships no types; the surface above is all the recipes use.
const zk = createRequire(import.meta.url)('node-zookeeper-client') as ZkModule;
export const CreateMode = zk.CreateMode;

/** A ZooKeeper error code, or undefined for anything else (timeouts, ...). */
export function zkCode(err: unknown): number | undefined {
  return typeof (err as ZkException)?.getCode === 'function' ? (err as ZkException).getCode() : undefined;
}
export const isNoNode = (err: unknown) => zkCode(err) === zk.Exception.NO_NODE;
export const isNodeExists = (err: unknown) => zkCode(err) === zk.Exception.NODE_EXISTS;

export class ZkSession {
  /** Bumped on every Disconnected/Expired/silence seen after being connected. */
  lossEpoch = 0;
  /** Expired or closed: its ephemeral nodes are gone (or going); open a new session. */
  dead = false;
  private lastHeardMs: number;
  private readonly wakers = new Set<() => void>();
  private readonly heartbeat: NodeJS.Timeout;
  private suspect = false; // counted the current silence already

  private constructor(private readonly client: ZkClient, private readonly ctx: LockContext, readonly sessionTimeoutMs: number) {
    this.lastHeardMs = ctx.clock.monoMs();
    client.on('state', (s: ZkState) => this.onState(s));
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
    const client = zk.createClient(hosts, { sessionTimeout: sessionTimeoutMs, spinDelay: 100, retries: 0 });
    const s = new ZkSession(client, ctx, sessionTimeoutMs);
    const connected = new Promise<boolean>((resolve) => {
      const t = setTimeout(() => resolve(false), budgetMs);
      client.once('connected', () => { clearTimeout(t); resolve(true); });
    });
    client.connect();
    if (!(await connected)) {
      s.close();
      throw new DefiniteFailure(`${recipe}: no ZooKeeper session within ${budgetMs} ms (${hosts})`);
    }
    s.lastHeardMs = ctx.clock.monoMs();
    return s;
  }

  connected(): boolean {
    return !this.dead && this.client.getState().code === zk.State.SYNC_CONNECTED.code;
  }

  sessionId(): Buffer {
    return this.client.getSessionId();
  }

  /** Wakes `fn` on every change of what this session knows (state, loss); returns the unsubscribe. */
  onChange(fn: () => void): () => void {
    this.wakers.add(fn);
    return () => this.wakers.delete(fn);
  }

  create(path: string, mode: number): Promise<string> {
    return this.call(`create ${path}`, (cb) => this.client.create(path, Buffer.alloc(0), mode, cb));
  }
  remove(path: string): Promise<void> {
    return this.call(`delete ${path}`, (cb) => this.client.remove(path, -1, (e) => cb(e, undefined)));
  }
  exists(path: string, watcher?: () => void): Promise<ZkStat | null> {
    return this.call(`exists ${path}`, (cb) => this.client.exists(path, watcher, cb));
  }
  children(path: string): Promise<string[]> {
    return this.call(`getChildren ${path}`, (cb) => this.client.getChildren(path, undefined, cb));
  }
  mkdirp(path: string): Promise<string> {
    return this.call(`mkdirp ${path}`, (cb) => this.client.mkdirp(path, cb));
  }

  /** Ends the session: the server drops its ephemeral nodes now (if it hears us) or at expiry. */
  close(): void {
    clearInterval(this.heartbeat);
    if (!this.dead) {
      this.dead = true;
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
   */
  private async call<T>(what: string, issue: (cb: Cb<T>) => void): Promise<T> {
    if (!(await this.whenConnected(this.ctx.commandTimeoutMs))) {
      throw new DefiniteFailure(`zookeeper ${what}: session ${this.dead ? 'expired or closed' : 'not connected'}`);
    }
    return new Promise<T>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`zookeeper ${what}: no answer within ${this.ctx.commandTimeoutMs} ms`)), this.ctx.commandTimeoutMs);
      issue((err, result) => {
        clearTimeout(t);
        if (err && zkCode(err) === zk.Exception.CONNECTION_LOSS) return reject(err); // sent, answer lost: unknown
        this.heard();
        if (err) reject(err);
        else resolve(result);
      });
    });
  }

  private heard(): void {
    this.lastHeardMs = this.ctx.clock.monoMs();
    this.suspect = false;
  }

  private onState(s: ZkState): void {
    if (s.code === zk.State.SYNC_CONNECTED.code) {
      this.heard();
    } else if (s.code === zk.State.DISCONNECTED.code || s.code === zk.State.EXPIRED.code) {
      this.lossEpoch++;
      if (s.code === zk.State.EXPIRED.code) this.close();
    }
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
    this.client.exists('/', undefined, (err) => { if (!err) this.heard(); });
  }

  private wake(): void {
    for (const w of [...this.wakers]) w();
  }
}
