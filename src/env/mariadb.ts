// One MariaDB server: mariadb-install-db into a private datadir, then mariadbd
// on a free port; ready when mysql2 connects and runs SELECT 1. A database
// `lockpick` is created for lock tables; user root, no password.
import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import mysql from 'mysql2/promise';
import { requireBinary } from './binaries.ts';
import { shimEnv } from './clock.ts';
import { ServerNode } from './node.ts';
import { startAndWait } from './wait.ts';

export const MARIADB_DATABASE = 'lockpick';

async function mysqlReady(port: number): Promise<boolean> {
  const c = await mysql.createConnection({ host: '127.0.0.1', port, user: 'root', connectTimeout: 1000 });
  try {
    await c.query(`CREATE DATABASE IF NOT EXISTS ${MARIADB_DATABASE}`);
    return true;
  } finally {
    await c.end();
  }
}

export async function createMariadbNode(o: { id: string; root: string; port: number }): Promise<ServerNode> {
  const mariadbd = requireBinary('mariadbd');
  const installDb = requireBinary('mariadb-install-db');
  const dir = path.join(o.root, o.id);
  const data = path.join(dir, 'data');
  mkdirSync(dir, { mode: 0o700 });
  const logFile = path.join(dir, 'mariadb.log');
  const clockFile = path.join(dir, 'clock-offset');
  try {
    await promisify(execFile)(installDb, [
      '--no-defaults', `--datadir=${data}`, '--user=root', '--auth-root-authentication-method=normal', '--skip-test-db',
    ]);
  } catch (e) {
    throw new Error(`lockpick: mariadb-install-db into ${data} failed: ${String((e as { stderr?: string }).stderr ?? e)}`);
  }
  const node = new ServerNode(o.id, 'mariadb', o.port, dir, logFile, clockFile, () =>
    startAndWait(
      {
        name: `mariadbd ${o.id} (127.0.0.1:${o.port})`,
        command: mariadbd,
        args: [
          '--no-defaults', '--user=root', `--datadir=${data}`, `--port=${o.port}`, '--bind-address=127.0.0.1',
          `--socket=${path.join(dir, 'mysqld.sock')}`, `--pid-file=${path.join(dir, 'mysqld.pid')}`, '--skip-name-resolve',
          '--innodb-buffer-pool-size=32M', '--performance-schema=OFF', `--log-error=${logFile}`,
        ],
        cwd: dir,
        env: shimEnv(clockFile),
        logFile,
      },
      { dir },
      () => mysqlReady(o.port),
      20_000,
    ),
  );
  await node.start();
  return node;
}
