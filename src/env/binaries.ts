// Finding the server binaries from the OS packages; a missing one is a clear
// error naming the Debian package and the setup command.
import { accessSync, constants } from 'node:fs';
import path from 'node:path';

const PACKAGE: Record<string, string> = {
  'redis-server': 'redis-server',
  'redis-sentinel': 'redis-sentinel',
  java: 'zookeeper (it pulls in a Java runtime)',
  mariadbd: 'mariadb-server',
  'mariadb-install-db': 'mariadb-server',
  etcd: 'etcd-server',
  'nats-server': 'nats-server',
};

export class MissingBinaryError extends Error {
  constructor(readonly binary: string, readonly pkg: string) {
    super(
      `lockpick: '${binary}' was not found on PATH (nor in /usr/sbin, /sbin). ` +
        `Install the Debian package ${pkg} (apt-get install -y ${pkg.split(' ')[0]}), ` +
        `or run the setup script from the repository root: bash scripts/setup.sh`,
    );
    this.name = 'MissingBinaryError';
  }
}

/** The absolute path of `name`, searching PATH plus the sbin dirs (mariadbd lives in /usr/sbin). */
export function requireBinary(name: string): string {
  const dirs = [...(process.env.PATH ?? '').split(':').filter(Boolean), '/usr/sbin', '/sbin', '/usr/local/sbin'];
  for (const d of dirs) {
    const p = path.join(d, name);
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      /* next */
    }
  }
  throw new MissingBinaryError(name, PACKAGE[name] ?? name);
}

/** Files that must exist (e.g. the ZooKeeper jars), with the package that provides them. */
export function requireFile(file: string, pkg: string): string {
  try {
    accessSync(file, constants.R_OK);
    return file;
  } catch {
    throw new MissingBinaryError(file, pkg);
  }
}
