// node-postgres connections for the PostgreSQL lock recipes, so that every statement
// has one of three outcomes the runner can record honestly (as mysql-client.ts):
//   a reply                → it happened, or the server refused it with an error: definite;
//   never sent             → no connection could be made, or it was already closed: DefiniteFailure;
//   sent, no reply in time → timeout / connection lost: unknown; the connection is destroyed
//                            (the server ends the session, and its locks, when it notices).
// Each connection carries its client's session tag as application_name, so a
// 'session-kill' fault can find the holder's backend (TopologyDef.endSessions).
// pg loads on the first connection (ARCHITECTURE: client libraries load lazily).
import type pg from 'pg';
import { sessionTag } from '../env/topology.ts';
import { DefiniteFailure, type Held, type LockContext } from './lock.ts';
import { HoldConns } from './session-holds.ts';
import { numberOption } from './options.ts';

/** The database the postgres environment's clients use (the cluster's default one). */
const DEFAULT_DATABASE = 'postgres';

/** The server refused the statement (an ERROR reply): nothing else happened, the session goes on. */
function isServerError(err: unknown): boolean {
  const e = err as { severity?: string; code?: string };
  return typeof e?.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) && e.severity === 'ERROR';
}

/** The server ended the session (FATAL: pg_terminate_backend's 57P01, a shutdown) or the connection dropped under the statement. */
function sessionEnded(err: unknown): boolean {
  const e = err as { severity?: string; message?: string; code?: string };
  return e?.severity === 'FATAL' || e?.severity === 'PANIC' || /Connection terminated unexpectedly|ECONNRESET|EPIPE/.test(`${e?.message ?? ''} ${e?.code ?? ''}`);
}

/** One connection and what we saw of its life: `closed` once the server or the network ended it. */
export class PgConn {
  closed = false;
  private constructor(readonly client: pg.Client, private readonly ctx: LockContext) {
    // A FATAL (pg_terminate_backend) or a dropped socket with nothing pending arrives as 'error'.
    client.on('error', () => { this.closed = true; });
    client.on('end', () => { this.closed = true; });
  }

  /** Connects to ctx.endpoints[0]; DefiniteFailure when that fails (nothing was sent). */
  static async open(ctx: LockContext, recipe: string): Promise<PgConn> {
    const ep = ctx.endpoints[0];
    if (!ep) throw new Error(`lock ${recipe}: the lock context of client ${ctx.clientId} has no endpoints; it needs the 'postgres' topology`);
    const { default: pgLib } = await import('pg');
    const client = new pgLib.Client({
      host: ep.host, port: ep.port, user: ep.user ?? 'postgres', password: ep.password || undefined,
      database: String(ctx.options?.database ?? ep.database ?? DEFAULT_DATABASE),
      application_name: sessionTag(ctx.clientId), connectionTimeoutMillis: Math.max(1000, ctx.commandTimeoutMs),
    });
    const conn = new PgConn(client, ctx);
    try {
      await client.connect();
      return conn;
    } catch (err) {
      conn.destroy();
      throw new DefiniteFailure(`${recipe}: cannot connect to ${ep.host}:${ep.port}: ${(err as Error).message}`);
    }
  }

  /** One statement within the command budget. */
  async query<R extends Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<pg.QueryResult<R>> {
    if (this.closed) throw new DefiniteFailure(`postgres: connection already closed; not sent: ${sql}`);
    try {
      return await this.client.query<R>({ text: sql, values: params, query_timeout: this.ctx.commandTimeoutMs } as pg.QueryConfig);
    } catch (err) {
      if (isServerError(err)) throw err;
      this.destroy();
      if ((err as Error).message?.includes('Client was closed and is not queryable')) throw new DefiniteFailure(`postgres: connection closed; not sent: ${sql}`);
      throw err;
    }
  }

  async rows<R extends Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<R[]> {
    return (await this.query<R>(sql, params)).rows;
  }

  /** The one boolean a statement such as pg_try_advisory_lock returns (column `v`). */
  async bool(sql: string, params: unknown[] = []): Promise<boolean> {
    return (await this.rows<{ v: boolean }>(sql, params))[0]?.v === true;
  }

  /** Closes the socket at once (an end() could wait on a cut link forever). */
  destroy(): void {
    this.closed = true;
    (this.client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
    void this.client.end().catch(() => {});
  }
}

export const PG_OPTIONS_HELP: Record<string, string> = {
  retryMs: "pause between acquire attempts while the lock is taken (default 25 ms)",
  database: "database to connect to (default 'postgres')",
};

export function pgRetryMs(ctx: LockContext, recipe: string): number {
  return numberOption(ctx, recipe, 'retryMs', 25);
}

/** Advisory lock keys are numbers: the server hashes the key's name (hashtextextended, 64 bits). */
export const LOCK_ID = 'hashtextextended($1, 0)';

/** Holds and their dedicated connections: a session lock lives and dies with its connection. */
export class PgHolds extends HoldConns<PgConn> {
  constructor(private readonly ctx: LockContext, private readonly recipe: string) { super(); }

  open(): Promise<PgConn> {
    return PgConn.open(this.ctx, this.recipe);
  }

  /** Ends a hold with `unlock` (pg_advisory_unlock, COMMIT); 'lost' when the session had ended (terminated, connection lost). */
  override end(h: Held, unlock: (c: PgConn) => Promise<boolean>): Promise<'released' | 'lost'> {
    return super.end(h, unlock, sessionEnded);
  }
}
