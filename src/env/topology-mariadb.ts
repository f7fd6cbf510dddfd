// `mariadb`: one MariaDB server (MySQL locks: GET_LOCK, unique key, SELECT FOR UPDATE).
import { onlyOptions, type TopologyDef } from './topology.ts';
import { createMariadbNode, MARIADB_CREDENTIALS, mysqlReady } from './mariadb.ts';
import { MARIADB_IMAGE, mariadbCommand } from './docker-image.ts';
import { freePort } from './ports.ts';

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
};
