// mysql2 connections for the MySQL/MariaDB lock recipes, so that every
// statement has one of three outcomes the runner can record honestly:
//   a reply                → it happened, or the server refused it with an error
//                            (duplicate key, lock wait timeout): definite;
//   never sent             → no connection could be made, or it was already
//                            closed ("Can't add new command ..."): DefiniteFailure;
//   sent, no reply in time → query timeout / connection lost: unknown; the
//                            connection is destroyed (the server then rolls back
//                            its open transaction when it notices).
// mysql2 loads on the first connection (ARCHITECTURE: client libraries load lazily).
import type { Connection, ResultSetHeader, RowDataPacket } from 'mysql2/promise';
import { DefiniteFailure, type LockContext } from './lock.ts';
import { numberOption } from './options.ts';

/** The database the 'mariadb' environment creates for lock tables (src/env/mariadb.ts). */
const DEFAULT_DATABASE = 'lockpick';

export interface MysqlError extends Error { errno?: number; sqlState?: string; code?: string; fatal?: boolean }

export const ER_DUP_ENTRY = 1062;
export const ER_LOCK_WAIT_TIMEOUT = 1205;

/** A server's error reply: the statement was refused, nothing else happened. */
export function isServerError(err: unknown): err is MysqlError {
  const e = err as MysqlError;
  return typeof e?.errno === 'number' && typeof e.sqlState === 'string' && e.fatal !== true;
}

/** One connection plus what we saw of its life: `closed` once the server or the network ended it. */
export class MysqlConn {
  closed = false;
  private constructor(readonly conn: Connection, private readonly ctx: LockContext) {
    // mysql2 emits 'error' on the connection for a fatal error with no query
    // pending (e.g. the server dropped an idle session); unhandled it would crash.
    conn.on('error', () => { this.closed = true; });
    conn.on('end', () => { this.closed = true; });
  }

  /** Connects to ctx.endpoints[0]; DefiniteFailure when that fails (nothing was sent). */
  static async open(ctx: LockContext, recipe: string): Promise<MysqlConn> {
    const ep = ctx.endpoints[0];
    if (!ep) throw new Error(`lock ${recipe}: the lock context of client ${ctx.clientId} has no endpoints; it needs the 'mariadb' topology`);
    const database = String(ctx.options?.database ?? ep.database ?? DEFAULT_DATABASE);
    try {
      const { default: mysql } = await import('mysql2/promise');
      const conn = await mysql.createConnection({
        host: ep.host, port: ep.port, user: ep.user ?? 'root', password: ep.password || undefined, database, connectTimeout: Math.max(1000, ctx.commandTimeoutMs),
      });
      return new MysqlConn(conn, ctx);
    } catch (err) {
      throw new DefiniteFailure(`${recipe}: cannot connect to ${ep.host}:${ep.port}: ${(err as Error).message}`);
    }
  }

  /** One statement within the command budget (plus `extraMs` for statements that wait on purpose). */
  async exec<T extends ResultSetHeader | RowDataPacket[]>(sql: string, params: unknown[] = [], extraMs = 0): Promise<T> {
    if (this.closed) throw new DefiniteFailure(`mysql: connection already closed; not sent: ${sql}`);
    try {
      const [result] = await this.conn.query({ sql, values: params, timeout: this.ctx.commandTimeoutMs + extraMs });
      return result as T;
    } catch (err) {
      if (isServerError(err)) throw err;
      this.destroy();
      if ((err as Error).message?.includes("Can't add new command when connection is in closed state")) {
        throw new DefiniteFailure(`mysql: connection closed; not sent: ${sql}`);
      }
      throw err;
    }
  }

  async affected(sql: string, params: unknown[] = []): Promise<number> {
    return (await this.exec<ResultSetHeader>(sql, params)).affectedRows;
  }

  /** This session's id on the server (for KILL in tests, and in error messages). */
  get threadId(): number {
    return this.conn.threadId;
  }

  destroy(): void {
    this.closed = true;
    this.conn.destroy();
  }
}

// 25 ms, not the database-lock post's 500: a waiter that looks twice a second rarely lands inside a
// 200 ms hold, so a lock freed under a silent holder would go unnoticed by the test.
export const RETRY_OPTION_HELP = 'pause between acquire attempts while the lock is taken (default 25 ms; the database-lock post\'s timed acquire sleeps 500)';

export function mysqlRetryMs(ctx: LockContext, recipe: string): number {
  return numberOption(ctx, recipe, 'retryMs', 25);
}

export const DATABASE_OPTION_HELP = "database for the lock table (default 'lockpick', which the mariadb environment creates)";
