// `mariadb`: one MariaDB server (MySQL locks: GET_LOCK, unique key, SELECT FOR UPDATE).
// The client library loads on use: `lockpick check` reads this registry for its words alone.
import type mysql from 'mysql2/promise';
import type { Environment } from './types.ts';
import { onlyOptions, sessionTag, type TopologyDef } from './topology.ts';
import { createMariadbNode, MARIADB_CREDENTIALS, mysqlReady } from './mariadb.ts';
import { MARIADB_IMAGE, mariadbCommand } from './docker-image.ts';
import { freePort } from './ports.ts';
import { clientPeers, isPeer, parsePeer, unlistedWords } from './client-sessions.ts';

/**
 * KILL CONNECTION of the clients' sessions, asked over the server's real port: those whose
 * PROCESSLIST.HOST ('host:port') is the upstream end of one of the clients' proxied connections
 * (client-sessions.ts), and the one holding the user-level lock named by a client's session tag
 * (lockpick's mysql-session.ts takes it when the session opens: a hint, never needed).
 */
async function endMysqlSessions(env: Environment, clients: readonly string[]): Promise<{ ended: number; said: string }> {
  const server = env.nodes.find((n) => n.role === 'mariadb');
  if (!server) throw new Error(`session-kill: the ${env.topology} topology has no mariadb node`);
  const { peers, unlisted } = await clientPeers(env, clients, server.id);
  const cred = (server as { credentials?: { user: string; password: string } }).credentials ?? MARIADB_CREDENTIALS;
  const { default: mysqlClient } = await import('mysql2/promise');
  const c = await mysqlClient.createConnection({ host: server.host ?? '127.0.0.1', port: server.port, user: cred.user, password: cred.password || undefined, connectTimeout: 2000 });
  try {
    const found = new Set<number>();
    const [rows] = await c.query<mysql.RowDataPacket[]>('SELECT ID AS id, HOST AS host FROM information_schema.PROCESSLIST WHERE ID <> CONNECTION_ID()');
    for (const row of rows) {
      const p = typeof row.host === 'string' ? parsePeer(row.host) : undefined;
      if (p && isPeer(peers, p.host, p.port)) found.add(Number(row.id));
    }
    for (const client of clients) {
      const [tagged] = await c.query<mysql.RowDataPacket[]>('SELECT IS_USED_LOCK(?) AS id', [sessionTag(client)]);
      const id = tagged[0]?.id;
      if (id !== null && id !== undefined) found.add(Number(id));
    }
    const ids: number[] = [];
    for (const id of found) {
      try { await c.query(`KILL CONNECTION ${id}`); ids.push(id); } catch { /* it ended meanwhile */ }
    }
    return { ended: ids.length, said: `KILL CONNECTION ${ids.join(', ') || 'none'} on ${server.id}${unlistedWords(unlisted)}` };
  } finally {
    await c.end().catch(() => {});
  }
}

export const mariadbTopology: TopologyDef = {
  name: 'mariadb',
  summary: 'one MariaDB server (the MySQL locks)',
  backend: 'mysql',
  packages: ['mariadb-server'],
  framing: 'mysql',
  words: { staleUnlock: (victim) => `the unlock deleted the lock's row, which by then was process ${victim}'s` },
  roles: { data: ['mariadb'] },
  // A MySQL-protocol server with a login: mysql=USER:PASSWORD@HOST:PORT/DATABASE.
  endpointRoles: [{ role: 'mysql', login: true, what: 'MySQL' }],
  leased: false,
  expiryClock: 'session',
  leader: { none: 'one server' },
  // A hold in a session ends with it (the restarting kind's endsSessions says so); rows are on disk.
  restartForgets: 'never',
  sessionEndsWithConnection: true,
  asyncFailover: false,
  nativeClient: false,
  timescales: { none: 'holds live in server sessions: no lease to size by' },
  images: { mariadb: MARIADB_IMAGE },
  validate: (o) => onlyOptions('mariadb', o, []),
  start: async (env) => {
    env.nodes.push(await createMariadbNode({ id: 'n1', root: env.root, port: await freePort() }));
  },
  docker: async (kit) => {
    await kit.place([{ id: 'n1', port: 3306 }]);
    const n = await kit.start({ id: 'n1', role: 'mariadb', image: 'mariadb', cmd: mariadbCommand(), ready: (h, p) => mysqlReady(p, h), readyMs: 40_000 });
    n.credentials = MARIADB_CREDENTIALS;
  },
  external: () => [{ role: 'mysql', as: 'mariadb', prefix: 'n', min: 1, max: 1 }],
  endSessions: endMysqlSessions,
};
