// One MariaDB server: mariadb-install-db into a private datadir, then mariadbd
// on a free port (from a cached pristine datadir); ready when mysql2 connects and runs SELECT 1. A database
// `lockpick` is created for lock tables; user root, no password.
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
// The client library loads on use: `lockpick check` reaches this module through the topology registry.
import { requireBinary } from './binaries.ts';
import { shimEnv } from './clock.ts';
import { ServerNode } from './node.ts';
import { startAndWait } from './wait.ts';
import { stateDir } from './state.ts';

export const MARIADB_DATABASE = 'lockpick';
/** Server settings of every mariadbd lockpick runs, local or in a container (docker-image.ts): small and quick. */
export const MARIADB_TUNING = ['--skip-name-resolve', '--innodb-buffer-pool-size=32M', '--performance-schema=OFF'];
/** What a client logs in with (local and container servers alike). */
export const MARIADB_CREDENTIALS = { user: 'root', password: '', database: MARIADB_DATABASE };

export async function mysqlReady(port: number, host = '127.0.0.1'): Promise<boolean> {
  const { default: mysql } = await import('mysql2/promise');
  const c = await mysql.createConnection({ host, port, user: 'root', connectTimeout: 1000 });
  try {
    await c.query(`CREATE DATABASE IF NOT EXISTS ${MARIADB_DATABASE}`);
    return true;
  } finally {
    await c.end();
  }
}

/**
 * A freshly initialised datadir, made once per mariadbd build and copied for
 * each node: mariadb-install-db takes 1-3 s, a copy a few ms.
 */
async function pristineDatadir(installDb: string, mariadbd: string): Promise<string> {
  const tag = `mariadb-datadir-${Math.floor(statSync(mariadbd).mtimeMs)}`;
  const dest = path.join(stateDir(), tag);
  if (existsSync(dest)) return dest;
  const tmp = mkdtempSync(path.join(stateDir(), `${tag}.tmp-`));
  try {
    await promisify(execFile)(installDb, [
      '--no-defaults', `--datadir=${path.join(tmp, 'data')}`, '--user=root', '--auth-root-authentication-method=normal', '--skip-test-db',
    ]);
    renameSync(path.join(tmp, 'data'), dest);
  } catch (e) {
    if (!existsSync(dest)) throw new Error(`lockpick: mariadb-install-db failed: ${String((e as { stderr?: string }).stderr ?? e)}`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return dest;
}

export async function createMariadbNode(o: { id: string; root: string; port: number }): Promise<ServerNode> {
  const mariadbd = requireBinary('mariadbd');
  const installDb = requireBinary('mariadb-install-db');
  const dir = path.join(o.root, o.id);
  const data = path.join(dir, 'data');
  mkdirSync(dir, { mode: 0o700 });
  const logFile = path.join(dir, 'mariadb.log');
  const clockFile = path.join(dir, 'clock-offset');
  cpSync(await pristineDatadir(installDb, mariadbd), data, { recursive: true });
  const node = new ServerNode(o.id, 'mariadb', o.port, dir, logFile, clockFile, () =>
    startAndWait(
      {
        name: `mariadbd ${o.id} (127.0.0.1:${o.port})`,
        command: mariadbd,
        args: [
          '--no-defaults', '--user=root', `--datadir=${data}`, `--port=${o.port}`, '--bind-address=127.0.0.1',
          `--socket=${path.join(dir, 'mysqld.sock')}`, `--pid-file=${path.join(dir, 'mysqld.pid')}`, ...MARIADB_TUNING, `--log-error=${logFile}`,
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
  node.credentials = MARIADB_CREDENTIALS;
  await node.start();
  return node;
}
