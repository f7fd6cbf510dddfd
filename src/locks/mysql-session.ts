// What the MySQL recipes whose lock lives in a server session share
// (SELECT ... FOR UPDATE, GET_LOCK): one dedicated connection per hold, with
// the session timeouts that decide when the server gives up on a silent client.
// While the client holds, its session is idle; past wait_timeout the server
// ends the session and InnoDB rolls back (or GET_LOCK's lock goes) — the lock
// is free while the client still believes it holds. The client only learns
// it at unlock, from the dead connection: 'lost'.
import type { Held, LockContext } from './lock.ts';
import { HoldConns } from './session-holds.ts';
import { DATABASE_OPTION_HELP, MysqlConn, RETRY_OPTION_HELP } from './mysql-client.ts';
import { numberOption } from './options.ts';
import { sessionTag } from '../env/topology.ts';

export const SESSION_OPTIONS_HELP: Record<string, string> = {
  waitTimeoutS: 'wait_timeout, net_read_timeout, net_write_timeout (s) of the lock session: how long the server keeps a silent holder (default 1; server default 28800)',
  retryMs: RETRY_OPTION_HELP,
  database: DATABASE_OPTION_HELP,
};

/** Holds and their dedicated connections, with the session timeouts set on each. */
export class SessionHolds {
  private readonly holds = new HoldConns<MysqlConn>();
  private readonly waitTimeoutS: number;

  constructor(private readonly ctx: LockContext, private readonly recipe: string) {
    this.waitTimeoutS = numberOption(ctx, recipe, 'waitTimeoutS', 1);
    if (!Number.isInteger(this.waitTimeoutS) || this.waitTimeoutS < 1) {
      throw new Error(`lock ${recipe}: option waitTimeoutS=${this.waitTimeoutS} must be a whole number of seconds ≥ 1 (the server's unit); pass e.g. --lock-opt waitTimeoutS=1`);
    }
  }

  /** A new connection for one hold, with the session timeouts set; DefiniteFailure if none. */
  async open(): Promise<MysqlConn> {
    const c = await MysqlConn.open(this.ctx, this.recipe);
    try {
      const t = this.waitTimeoutS;
      // In the same statement, a user-level lock named by the client's session tag: how
      // 'session-kill' finds this session (IS_USED_LOCK gives its id; TopologyDef.endSessions).
      await c.exec(`SET SESSION wait_timeout = ${t}, net_read_timeout = ${t}, net_write_timeout = ${t}, @lockpick_tag = GET_LOCK(?, 0)`, [sessionTag(this.ctx.clientId)]);
    } catch (err) {
      c.destroy();
      throw err;
    }
    return c;
  }

  /** Remembers `c` as the connection of a new hold. */
  hold(key: string, c: MysqlConn): Held {
    return this.holds.hold(key, c, { session: c.threadId });
  }

  connOf(h: Held): MysqlConn | undefined {
    return this.holds.connOf(h);
  }

  /**
   * Ends a hold with `unlock` (COMMIT, RELEASE_LOCK): 'released' when it
   * succeeded, 'lost' when the session had already ended (the server released
   * the lock then). `ok` judges the statement's result.
   */
  end(h: Held, unlock: string, params: unknown[], ok: (result: unknown) => boolean): Promise<'released' | 'lost'> {
    // The connection died under the unlock: either way the session is over and its lock with it.
    return this.holds.end(h, async (c) => ok(await c.exec(unlock, params)), (err, c) => c.closed && isConnectionLost(err));
  }

  close(): void {
    this.holds.close();
  }
}

/** The server or the network ended the connection (as opposed to our own timeout). */
function isConnectionLost(err: unknown): boolean {
  const code = (err as { code?: string })?.code;
  return code === 'PROTOCOL_CONNECTION_LOST' || code === 'ECONNRESET' || code === 'EPIPE';
}
