// `postgres`: one PostgreSQL server (advisory locks, a fenced row), and `postgres-pgbouncer`:
// the same server behind PgBouncer in transaction pooling, where clients lock through the pooler.
import pg from 'pg';
import type { Environment, NodeHandle } from './types.ts';
import { createPgbouncerNode, createPostgresNode, POSTGRES_CREDENTIALS } from './postgres.ts';
import { freePort } from './ports.ts';
import { onlyOptions, sessionTag, type BackendWords, type TopologyDef } from './topology.ts';

/** An advisory unlock frees only a lock its own server session holds; a pooler shares that session between clients. */
const WORDS: BackendWords = {
  staleUnlock: (victim) => `pg_advisory_unlock frees only a lock held by the server session it runs on; that session was shared (a pooler's server connection), so it freed process ${victim}'s lock`,
  lateUnlock: "an advisory lock is its session's: an unlock that reports success after the holder's session could have ended unlocked a session other than the one that took it",
};

/**
 * pg_terminate_backend of every backend whose application_name is one of the clients' tags,
 * asked of the PostgreSQL node over its real port (not the proxy, not the pooler).
 */
async function endPostgresSessions(env: Environment, clients: readonly string[]): Promise<{ ended: number; said: string }> {
  const server = env.nodes.find((n) => n.role === 'postgres');
  if (!server) throw new Error(`session-kill: the ${env.topology} topology has no postgres node`);
  const c = new pg.Client({ host: server.host ?? '127.0.0.1', port: server.port, ...POSTGRES_CREDENTIALS, ...credentialsOf(server), connectionTimeoutMillis: 2000 });
  c.on('error', () => {});
  try {
    await c.connect();
    const r = await c.query<{ pid: number; application_name: string; ok: boolean }>(
      'SELECT pid, application_name, pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = ANY($1) AND pid <> pg_backend_pid()',
      [clients.map(sessionTag)],
    );
    const ended = r.rows.filter((x) => x.ok);
    return { ended: ended.length, said: `pg_terminate_backend(${ended.map((x) => x.pid).join(', ') || 'none'}) on ${server.id}` };
  } finally {
    await c.end().catch(() => {});
  }
}

function credentialsOf(n: NodeHandle): Partial<typeof POSTGRES_CREDENTIALS> {
  const cred = (n as { credentials?: { user: string; password: string; database?: string } }).credentials;
  return cred ? { user: cred.user, password: cred.password, ...(cred.database ? { database: cred.database } : {}) } : {};
}

export const postgresTopology: TopologyDef = {
  name: 'postgres',
  summary: 'one PostgreSQL server (advisory locks, a fenced row)',
  backend: 'postgres',
  words: WORDS,
  roles: { data: ['postgres'] },
  // A PostgreSQL server with a login: postgres=USER:PASSWORD@HOST:PORT/DATABASE.
  endpointRoles: [{ role: 'postgres', login: true, what: 'PostgreSQL' }],
  leased: false,
  validate: (o) => onlyOptions('postgres', o, []),
  start: async (env) => {
    env.nodes.push(await createPostgresNode({ id: 'n1', root: env.root, port: await freePort() }));
  },
  external: () => [{ role: 'postgres', as: 'postgres', prefix: 'n', min: 1, max: 1 }],
  endSessions: endPostgresSessions,
};

export const pgbouncerTopology: TopologyDef = {
  name: 'postgres-pgbouncer',
  summary: 'PgBouncer (transaction pooling) in front of one PostgreSQL server; clients lock through the pooler',
  backend: 'postgres',
  roles: { data: ['pgbouncer'], other: ['postgres'] },
  endpointRoles: [{ role: 'pgbouncer', login: true, what: 'PgBouncer' }, { role: 'postgres', login: true, what: 'PostgreSQL' }],
  leased: false,
  validate: (o) => onlyOptions('postgres-pgbouncer', o, []),
  start: async (env) => {
    const server = await createPostgresNode({ id: 'n2', root: env.root, port: await freePort() });
    env.nodes.push(server);
    env.nodes.push(await createPgbouncerNode({ id: 'n1', root: env.root, port: await freePort(), server: server.port, mode: 'transaction' }));
  },
  // The pooler clients use, and the server behind it (session-kill asks the server).
  external: () => [{ role: 'pgbouncer', as: 'pgbouncer', prefix: 'n', min: 1, max: 1 }, { role: 'postgres', as: 'postgres', prefix: 's', min: 1, max: 1 }],
  endSessions: endPostgresSessions,
};
