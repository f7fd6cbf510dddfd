// `mariadb`: one MariaDB server (MySQL locks: GET_LOCK, unique key, SELECT FOR UPDATE).
import mysql from 'mysql2/promise';
import type { Environment } from './types.ts';
import { onlyOptions, sessionTag, type TopologyDef } from './topology.ts';
import { createMariadbNode, MARIADB_CREDENTIALS, mysqlReady } from './mariadb.ts';
import { MARIADB_IMAGE, mariadbCommand } from './docker-image.ts';
import { freePort } from './ports.ts';

/**
 * KILL CONNECTION of each client's session: the one holding the user-level lock named by its
 * session tag (mysql-session.ts takes it when the session opens), asked over the server's real port.
 */
async function endMysqlSessions(env: Environment, clients: readonly string[]): Promise<{ ended: number; said: string }> {
  const server = env.nodes.find((n) => n.role === 'mariadb');
  if (!server) throw new Error(`session-kill: the ${env.topology} topology has no mariadb node`);
  const cred = (server as { credentials?: { user: string; password: string } }).credentials ?? MARIADB_CREDENTIALS;
  const c = await mysql.createConnection({ host: server.host ?? '127.0.0.1', port: server.port, user: cred.user, password: cred.password || undefined, connectTimeout: 2000 });
  try {
    const ids: number[] = [];
    for (const client of clients) {
      const [rows] = await c.query<mysql.RowDataPacket[]>('SELECT IS_USED_LOCK(?) AS id', [sessionTag(client)]);
      const id = rows[0]?.id;
      if (id === null || id === undefined) continue;
      try { await c.query(`KILL CONNECTION ${Number(id)}`); ids.push(Number(id)); } catch { /* it ended meanwhile */ }
    }
    return { ended: ids.length, said: `KILL CONNECTION ${ids.join(', ') || 'none'} on ${server.id}` };
  } finally {
    await c.end().catch(() => {});
  }
}

export const mariadbTopology: TopologyDef = {
  name: 'mariadb',
  summary: 'one MariaDB server (the MySQL locks)',
  backend: 'mysql',
  words: { staleUnlock: (victim) => `the unlock deleted the lock's row, which by then was process ${victim}'s` },
  roles: { data: ['mariadb'] },
  // A MySQL-protocol server with a login: mysql=USER:PASSWORD@HOST:PORT/DATABASE.
  endpointRoles: [{ role: 'mysql', login: true, what: 'MySQL' }],
  leased: false,
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
