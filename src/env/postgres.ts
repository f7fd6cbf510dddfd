// One PostgreSQL server, and optionally PgBouncer in front of it. The cluster is
// initdb'd once per postgres build into the state dir and copied for each node
// (initdb takes ~5 s, a copy a few ms); both servers run as the `postgres` user
// (PostgreSQL refuses root), so the node's private dir is chowned to it and the
// environment's root made traversable. Trust authentication on 127.0.0.1, user
// `postgres`, database `postgres`; fsync off (a test cluster, thrown away).
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
// The client library loads on use: `lockpick check` reaches this module through the topology registry.
import { MissingBinaryError, requireBinary } from './binaries.ts';
import { shimEnv } from './clock.ts';
import { ServerNode } from './node.ts';
import { chownTree } from './peer-routing.ts';
import { startAndWait } from './wait.ts';
import { stateDir } from './state.ts';

export const POSTGRES_CREDENTIALS = { user: 'postgres', password: '', database: 'postgres' };
/** Server settings of every postgres lockpick runs: small, quick, and no durability it does not need. */
export const POSTGRES_TUNING = ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'shared_buffers=16MB', '-c', 'max_connections=200'];

/** `name` from PATH, else from Debian's versioned directory (/usr/lib/postgresql/15/bin: not on PATH there). */
export function postgresBinary(name: string): string {
  try {
    return requireBinary(name);
  } catch {
    const base = '/usr/lib/postgresql';
    const versions = existsSync(base) ? readdirSync(base).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a)) : [];
    for (const v of versions) if (existsSync(path.join(base, v, 'bin', name))) return path.join(base, v, 'bin', name);
    throw new MissingBinaryError(name, 'postgresql');
  }
}

/** The `postgres` user of this machine (the Debian package creates it): PostgreSQL and PgBouncer refuse to run as root. */
export function postgresUser(): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error("lockpick: PostgreSQL refuses to run as root and there is no 'postgres' user (the Debian package postgresql creates it: apt-get install -y postgresql)");
  const f = line.split(':');
  return { uid: Number(f[2]), gid: Number(f[3]) };
}

/** The uid PostgreSQL and PgBouncer run as when lockpick is root: the `postgres` user's. */
function postgresUid(): number | undefined {
  return process.getuid?.() === 0 ? postgresUser().uid : undefined;
}

/**
 * A fresh cluster (trust authentication, user `postgres`) made by initdb at `dest`, run as the
 * server's user (`uid`, when lockpick is root) in a private dir of its own. Blocks: it runs once
 * per postgres build (the cluster is then copied), or into an image's build context.
 */
export function initdbInto(dest: string, uid: number | undefined): void {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'lockpick-initdb-'));
  try {
    if (uid !== undefined) chownTree(tmp, uid);
    try {
      execFileSync(postgresBinary('initdb'), ['-D', path.join(tmp, 'data'), '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C'],
        { ...(uid !== undefined ? { uid, gid: uid } : {}), cwd: tmp, stdio: ['ignore', 'ignore', 'pipe'] });
    } catch (e) {
      throw new Error(`lockpick: initdb failed: ${String((e as { stderr?: Buffer }).stderr ?? e)}`);
    }
    cpSync(path.join(tmp, 'data'), dest, { recursive: true });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

export async function postgresReady(port: number, host = '127.0.0.1'): Promise<boolean> {
  const { default: pg } = await import('pg');
  const c = new pg.Client({ host, port, ...POSTGRES_CREDENTIALS, connectionTimeoutMillis: 1000 });
  c.on('error', () => {});
  try {
    await c.connect();
    await c.query('SELECT 1');
    return true;
  } finally {
    await c.end().catch(() => {});
  }
}

/** A freshly initdb'd cluster, made once per postgres build and copied for each node. */
async function pristineCluster(uid: number | undefined): Promise<string> {
  const tag = `postgres-cluster-${Math.floor(statSync(postgresBinary('postgres')).mtimeMs)}`;
  const dest = path.join(stateDir(), tag);
  if (existsSync(dest)) return dest;
  // Made aside and renamed into place: another run making it at the same time is no harm.
  const part = mkdtempSync(path.join(stateDir(), `${tag}.tmp-`));
  try {
    initdbInto(path.join(part, 'data'), uid);
    renameSync(path.join(part, 'data'), dest);
  } catch (e) {
    if (!existsSync(dest)) throw e;
  } finally {
    rmSync(part, { recursive: true, force: true });
  }
  return dest;
}

export async function createPostgresNode(o: { id: string; root: string; port: number }): Promise<ServerNode> {
  const postgres = postgresBinary('postgres');
  const uid = postgresUid();
  const dir = path.join(o.root, o.id);
  const data = path.join(dir, 'data');
  mkdirSync(dir, { mode: 0o700 });
  const logFile = path.join(dir, 'postgres.log');
  const clockFile = path.join(dir, 'clock-offset');
  cpSync(await pristineCluster(uid), data, { recursive: true });
  chmodSync(data, 0o700);
  // The server's uid must reach its dir: the environment's root becomes traversable (not listable).
  if (uid !== undefined) { chmodSync(o.root, 0o711); }
  const node = new ServerNode(o.id, 'postgres', o.port, dir, logFile, clockFile, async () => {
    if (uid !== undefined) chownTree(dir, uid);
    return startAndWait(
      {
        name: `postgres ${o.id} (127.0.0.1:${o.port})`,
        command: postgres,
        args: ['-D', data, '-p', String(o.port), '-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${dir}`, ...POSTGRES_TUNING],
        cwd: dir,
        env: shimEnv(clockFile),
        logFile,
        ...(uid !== undefined ? { uid } : {}),
      },
      { dir },
      () => postgresReady(o.port),
      30_000,
    );
  });
  node.credentials = POSTGRES_CREDENTIALS;
  await node.start();
  return node;
}

/** PgBouncer's users file: the `postgres` user with no password (trust). */
export const PGBOUNCER_USERS = '"postgres" ""\n';

/** PgBouncer's config: on `listen`:`port` in front of `server`, in `mode` pooling; its socket and users file in `dir`. */
export function pgbouncerIni(o: { listen: string; port: number; server: { host: string; port: number }; dir: string; mode: 'transaction' | 'session'; logFile?: string; pidFile?: string }): string {
  return [
    '[databases]', `* = host=${o.server.host} port=${o.server.port}`,
    '[pgbouncer]', `listen_addr = ${o.listen}`, `listen_port = ${o.port}`, `unix_socket_dir = ${o.dir}`,
    'auth_type = trust', `auth_file = ${path.join(o.dir, 'users.txt')}`, `pool_mode = ${o.mode}`,
    // A few server connections per database: clients share them, as behind a real pooler.
    'default_pool_size = 4', 'max_client_conn = 200', 'ignore_startup_parameters = extra_float_digits',
    ...(o.logFile ? [`logfile = ${o.logFile}`] : []), ...(o.pidFile ? [`pidfile = ${o.pidFile}`] : []), '',
  ].join('\n');
}

/**
 * PgBouncer on `port` in front of `server` (its real port), in `mode` pooling: in transaction
 * mode a client's statements run on whichever server connection is free when each transaction
 * starts, so a session-level advisory lock is taken on a connection other clients then use.
 */
export async function createPgbouncerNode(o: { id: string; root: string; port: number; server: number; mode: 'transaction' | 'session' }): Promise<ServerNode> {
  const bin = postgresBinary('pgbouncer');
  const uid = postgresUid();
  const dir = path.join(o.root, o.id);
  mkdirSync(dir, { mode: 0o700 });
  const logFile = path.join(dir, 'pgbouncer.log');
  const clockFile = path.join(dir, 'clock-offset');
  const ini = path.join(dir, 'pgbouncer.ini');
  writeFileSync(path.join(dir, 'users.txt'), PGBOUNCER_USERS);
  writeFileSync(ini, pgbouncerIni({ listen: '127.0.0.1', port: o.port, server: { host: '127.0.0.1', port: o.server }, dir, mode: o.mode, logFile, pidFile: path.join(dir, 'pgbouncer.pid') }));
  if (uid !== undefined) chmodSync(o.root, 0o711);
  const node = new ServerNode(o.id, 'pgbouncer', o.port, dir, path.join(dir, 'pgbouncer.out'), clockFile, async () => {
    if (uid !== undefined) chownTree(dir, uid);
    return startAndWait(
      { name: `pgbouncer ${o.id} (127.0.0.1:${o.port})`, command: bin, args: [ini], cwd: dir, env: shimEnv(clockFile), logFile: path.join(dir, 'pgbouncer.out'), ...(uid !== undefined ? { uid } : {}) },
      { dir },
      () => postgresReady(o.port),
      15_000,
    );
  });
  node.credentials = POSTGRES_CREDENTIALS;
  await node.start();
  return node;
}
