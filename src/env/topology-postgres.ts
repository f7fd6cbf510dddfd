// `postgres`: one PostgreSQL server (advisory locks, a fenced row), and `postgres-pgbouncer`:
// the same server behind PgBouncer in transaction pooling, where clients lock through the pooler.
import { appendFileSync, existsSync, mkdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
// The client library loads on use: `lockpick check` reads this registry for its words alone.
import type pg from 'pg';
import type { Environment, NodeHandle } from './types.ts';
import { createPgbouncerNode, createPostgresNode, initdbInto, PGBOUNCER_USERS, pgbouncerIni, POSTGRES_CREDENTIALS, POSTGRES_TUNING, postgresBinary, postgresReady, postgresUser } from './postgres.ts';
import type { DockerKit } from './docker.ts';
import type { ImageRecipe } from './docker-image.ts';
import { freePort } from './ports.ts';
import { clientPeers, isPeer, unlistedWords } from './client-sessions.ts';
import { onlyOptions, sessionTag, type BackendWords, type TopologyDef } from './topology.ts';

/**
 * An advisory unlock frees only a lock its own server session holds. Connected directly, each
 * client has a session of its own: an unlock that reports success on another's lock freed nothing
 * (the client misread the unlock's false, or unlocked from a new session). Behind PgBouncer the
 * server sessions are shared between clients, and it can free another's.
 */
const WORDS: BackendWords = {
  staleUnlock: (victim) => `pg_advisory_unlock frees only a lock its own server session holds, and each client here has its own: it cannot have freed process ${victim}'s lock, yet the client reported a release (an unlock whose false was read as success, or one run from a new session after its old one ended)`,
  lateUnlock: "an advisory lock is its session's: an unlock that reports success after the holder's session could have ended ran in a session other than the one that took it, which held nothing",
};
const POOLED_WORDS: BackendWords = {
  staleUnlock: (victim) => `pg_advisory_unlock frees only a lock held by the server session it runs on; that session was shared (a pooler's server connection), so it freed process ${victim}'s lock`,
  lateUnlock: "an advisory lock is its session's: an unlock that reports success after the holder's session could have ended unlocked a session other than the one that took it",
};

/**
 * pg_terminate_backend of the clients' backends, asked of the PostgreSQL node over its real port
 * (not the proxy, not the pooler): those whose client address and port are the upstream end of
 * one of the clients' proxied connections (client-sessions.ts), and those whose application_name
 * is a client's tag (lockpick's own locks set it: a hint, never needed). Through PgBouncer the
 * clients' connections end at the pooler, so only the tag can name a backend there: the server
 * connection the pooler last lent that client (an untagged lock's sessions are not found).
 */
async function endPostgresSessions(env: Environment, clients: readonly string[]): Promise<{ ended: number; said: string }> {
  const server = env.nodes.find((n) => n.role === 'postgres');
  if (!server) throw new Error(`session-kill: the ${env.topology} topology has no postgres node`);
  const { peers, unlisted } = await clientPeers(env, clients, server.id);
  const tags = new Set(clients.map(sessionTag));
  const { default: pgClient } = await import('pg');
  const c = new pgClient.Client({ host: server.host ?? '127.0.0.1', port: server.port, ...POSTGRES_CREDENTIALS, ...credentialsOf(server), connectionTimeoutMillis: 2000 });
  c.on('error', () => {});
  try {
    await c.connect();
    const all = await c.query<{ pid: number; addr: string | null; port: number | null; application_name: string }>(
      'SELECT pid, host(client_addr) AS addr, client_port AS port, application_name FROM pg_stat_activity WHERE pid <> pg_backend_pid()',
    );
    const pids = all.rows.filter((x) => isPeer(peers, x.addr, x.port) || tags.has(x.application_name)).map((x) => x.pid);
    const r = await c.query<{ pid: number; ok: boolean }>('SELECT pid, pg_terminate_backend(pid) AS ok FROM unnest($1::int[]) AS pid', [pids]);
    const ended = r.rows.filter((x) => x.ok);
    return { ended: ended.length, said: `pg_terminate_backend(${ended.map((x) => x.pid).join(', ') || 'none'}) on ${server.id}${unlistedWords(unlisted)}` };
  } finally {
    await c.end().catch(() => {});
  }
}

function credentialsOf(n: NodeHandle): Partial<typeof POSTGRES_CREDENTIALS> {
  const cred = (n as { credentials?: { user: string; password: string; database?: string } }).credentials;
  return cred ? { user: cred.user, password: cred.password, ...(cred.database ? { database: cred.database } : {}) } : {};
}

/** The server binary where its package put it (PATH may have a link to it): its share dir is found relative to it. */
const serverBinary = () => realpathSync(postgresBinary('postgres'));

/** Where the image keeps its cluster (initdb'd when the image is built, owned by the server's user). */
const PG_HOME = '/var/lib/postgresql';

/**
 * --env docker: the host's PostgreSQL server (at its own path: it finds its share dir from
 * there), its share dir and the time zones, a cluster initdb'd at build time that trusts
 * connections from the private network, and the `postgres` user it runs as (it refuses root).
 */
const POSTGRES_IMAGE: ImageRecipe = {
  source: () => [serverBinary(), realpathSync(postgresBinary('pgbouncer'))],
  fill(fs, ctx) {
    const bin = serverBinary();
    fs.linked(bin);
    // PgBouncer beside it (postgres-pgbouncer), from the same user's image.
    fs.linked(realpathSync(postgresBinary('pgbouncer')), '/usr/sbin/pgbouncer');
    const plpgsql = path.join(path.dirname(path.dirname(bin)), 'lib', 'plpgsql.so');
    if (existsSync(plpgsql)) fs.linked(plpgsql);
    fs.tree(path.join('/usr/share/postgresql', path.basename(path.dirname(path.dirname(bin)))), () => false);
    fs.tree('/usr/share/zoneinfo', (rel) => /^(right|posix)(\/|$)/.test(rel));
    const u = postgresUser();
    fs.text('/etc/passwd', `root:x:0:0:root:/root:/bin/false\npostgres:x:${u.uid}:${u.gid}:PostgreSQL:${PG_HOME}:/bin/false\n`);
    fs.text('/etc/group', `root:x:0:\npostgres:x:${u.gid}:\n`);
    // Beside rootfs/: the Dockerfile copies it as the server's own (the rootfs is root's); 0700 kept.
    mkdirSync(path.join(ctx, 'pg'));
    initdbInto(path.join(ctx, 'pg', 'data'), process.getuid?.() === 0 ? u.uid : undefined);
    appendFileSync(path.join(ctx, 'pg', 'data', 'pg_hba.conf'), 'host all all 0.0.0.0/0 trust\n');
  },
  dockerfile: () => {
    const u = postgresUser();
    const bin = serverBinary();
    return [`COPY --chown=${u.uid}:${u.gid} pg/ ${PG_HOME}/`, `ENV PATH=${path.dirname(bin)}:/usr/sbin:/usr/bin:/bin`, `USER ${u.uid}:${u.gid}`, 'WORKDIR /lockpick',
      `CMD ${JSON.stringify(postgresContainerCmd())}`];
  },
};

/** The server's command line in its container: every address of its own network, its socket in /tmp. */
function postgresContainerCmd(): string[] {
  return ['postgres', '-D', `${PG_HOME}/data`, '-p', '5432', '-c', 'listen_addresses=*', '-c', 'unix_socket_directories=/tmp', ...POSTGRES_TUNING];
}

/** The server as container `id` (placed already). */
async function startPostgresContainer(kit: DockerKit, id: string): Promise<void> {
  const n = await kit.start({
    id, role: 'postgres', image: 'postgres', cmd: postgresContainerCmd(), user: postgresUser(),
    ready: (h, p) => postgresReady(p, h).catch(() => false), readyMs: 30_000,
  });
  n.credentials = POSTGRES_CREDENTIALS;
}

/** PgBouncer's port in its container. */
const PGBOUNCER_PORT = 6432;

/** The server (n2) and PgBouncer in front of it (n1), each a container of the same image, as the postgres user. */
async function startPgbouncerDocker(kit: DockerKit): Promise<void> {
  await kit.place([{ id: 'n2', port: 5432 }, { id: 'n1', port: PGBOUNCER_PORT }]);
  await startPostgresContainer(kit, 'n2');
  const n = await kit.start({
    id: 'n1', role: 'pgbouncer', image: 'postgres', cmd: ['pgbouncer', '/lockpick/pgbouncer.ini'], user: postgresUser(),
    files: {
      'pgbouncer.ini': pgbouncerIni({ listen: '0.0.0.0', port: PGBOUNCER_PORT, server: { host: kit.ip('n2'), port: 5432 }, dir: '/lockpick', mode: 'transaction' }),
      'users.txt': PGBOUNCER_USERS,
    },
    ready: (h, p) => postgresReady(p, h).catch(() => false),
  });
  n.credentials = POSTGRES_CREDENTIALS;
}

export const postgresTopology: TopologyDef = {
  name: 'postgres',
  summary: 'one PostgreSQL server (advisory locks, a fenced row)',
  backend: 'postgres',
  packages: ['postgresql'],
  framing: 'postgres',
  words: WORDS,
  roles: { data: ['postgres'] },
  // A PostgreSQL server with a login: postgres=USER:PASSWORD@HOST:PORT/DATABASE.
  endpointRoles: [{ role: 'postgres', login: true, what: 'PostgreSQL' }],
  leased: false,
  expiryClock: 'session',
  leader: { none: 'one server' },
  // A hold in a session ends with it (the restarting kind's endsSessions says so); rows are on disk.
  restartForgets: 'never',
  sessionEndsWithConnection: true,
  asyncFailover: false,
  nativeClient: false,
  timescales: { none: 'holds live in server sessions: no lease to size by' },
  images: { postgres: POSTGRES_IMAGE },
  validate: (o) => onlyOptions('postgres', o, []),
  start: async (env) => {
    env.nodes.push(await createPostgresNode({ id: 'n1', root: env.root, port: await freePort() }));
  },
  docker: async (kit) => {
    await kit.place([{ id: 'n1', port: 5432 }]);
    await startPostgresContainer(kit, 'n1');
  },
  external: () => [{ role: 'postgres', as: 'postgres', prefix: 'n', min: 1, max: 1 }],
  endSessions: endPostgresSessions,
};

export const pgbouncerTopology: TopologyDef = {
  name: 'postgres-pgbouncer',
  summary: 'PgBouncer (transaction pooling) in front of one PostgreSQL server; clients lock through the pooler',
  backend: 'postgres',
  words: POOLED_WORDS,
  packages: ['postgresql', 'pgbouncer'],
  framing: 'postgres',
  roles: { data: ['pgbouncer'], other: ['postgres'] },
  endpointRoles: [{ role: 'pgbouncer', login: true, what: 'PgBouncer' }, { role: 'postgres', login: true, what: 'PostgreSQL' }],
  leased: false,
  expiryClock: 'session',
  leader: { none: 'one server' },
  // A hold in a session ends with it (the restarting kind's endsSessions says so); rows are on disk.
  restartForgets: 'never',
  sessionEndsWithConnection: false, // the client's connection is to the pooler; the lock is on a pooled server connection
  asyncFailover: false,
  nativeClient: false,
  timescales: { none: 'holds live in server sessions: no lease to size by' },
  validate: (o) => onlyOptions('postgres-pgbouncer', o, []),
  docker: startPgbouncerDocker,
  start: async (env) => {
    const server = await createPostgresNode({ id: 'n2', root: env.root, port: await freePort() });
    env.nodes.push(server);
    env.nodes.push(await createPgbouncerNode({ id: 'n1', root: env.root, port: await freePort(), server: server.port, mode: 'transaction' }));
  },
  // The pooler clients use, and the server behind it (session-kill asks the server).
  external: () => [{ role: 'pgbouncer', as: 'pgbouncer', prefix: 'n', min: 1, max: 1 }, { role: 'postgres', as: 'postgres', prefix: 's', min: 1, max: 1 }],
  endSessions: endPostgresSessions,
};
