// `mariadb`: one MariaDB server (MySQL locks: GET_LOCK, unique key, SELECT FOR UPDATE).
import type { TopologyDef } from './topology.ts';
import { createMariadbNode } from './mariadb.ts';
import { freePort } from './ports.ts';

export const mariadbTopology: TopologyDef = {
  name: 'mariadb',
  summary: 'one MariaDB server (the MySQL locks)',
  backend: 'mysql',
  leased: false,
  start: async (env) => {
    env.nodes.push(await createMariadbNode({ id: 'n1', root: env.root, port: await freePort() }));
  },
  external: () => [{ role: 'mysql', as: 'mariadb', prefix: 'n', min: 1, max: 1 }],
};
