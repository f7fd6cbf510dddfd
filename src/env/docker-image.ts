// The default server images of --env docker, built locally from this
// machine's own packages: no registry is needed. Each recipe below fills a
// root file system (binaries, the shared libraries ldd lists, data files) and
// a Dockerfile FROM scratch goes to the engine's build API, so DOCKER_HOST
// works too. Every image has an empty /lockpick (the node's private dir is
// bind-mounted there) and /tmp; its libc is the host's, which is all the clock
// shim (bind-mounted at /lockpick-shim, in LD_PRELOAD) links.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { inflateRawSync } from 'node:zlib';
import type { ContainerRuntimeClient } from 'testcontainers';
import { requireBinary, requireFile } from './binaries.ts';
import { ZK_JVM_FLAGS, ZK_MAIN_CLASS } from './zookeeper.ts';
import { MARIADB_TUNING } from './mariadb.ts';
import { importOptional } from '../optional.ts';

/** An image kind: a key of some topology's `images` (TopologyDef), e.g. 'redis', 'zookeeper'. */
export type ImageKind = string;

export function imageName(kind: ImageKind): string {
  return `lockpick-${kind}:local`;
}

export const DEFAULT_REDIS_IMAGE = imageName('redis');

/** A root file system being assembled in a build context; every path is the one inside the image. */
export class RootFs {
  private readonly libs = new Set<string>();
  constructor(readonly dir: string) {}

  private at(p: string): string {
    return path.join(this.dir, p);
  }

  /** Copies `src` under `dest`, following symlinks: the real file under the linked name. */
  file(src: string, dest = src): void {
    const to = this.at(dest);
    mkdirSync(path.dirname(to), { recursive: true });
    copyFileSync(src, to);
  }

  /** A small file written here, not copied from the host. */
  text(dest: string, content: string): void {
    mkdirSync(path.dirname(this.at(dest)), { recursive: true });
    writeFileSync(this.at(dest), content);
  }

  /** An empty directory; /tmp-like ones get the sticky, world-writable mode. */
  emptyDir(p: string, mode = 0o755): void {
    mkdirSync(this.at(p), { recursive: true });
    chmodSync(this.at(p), mode);
  }

  /** The shared libraries ldd lists for `files` (one call), each copied once. Unresolved ones are left out. */
  libsOf(files: string[]): void {
    if (!files.length) return;
    // ldd exits non-zero when one file is not dynamic; what it resolved is still on stdout.
    const out = spawnSync('ldd', files, { encoding: 'utf8', maxBuffer: 1 << 24 }).stdout ?? '';
    for (const m of out.matchAll(/^\s*(?:\S+ => )?(\/\S+) \(0x/gm)) {
      const lib = path.normalize(m[1]!);
      if (this.libs.has(lib)) continue;
      this.libs.add(lib);
      this.file(lib);
    }
  }

  /** A dynamically linked binary and its libraries. */
  linked(bin: string, dest = bin): void {
    this.file(bin, dest);
    this.libsOf([bin]);
  }

  /**
   * A directory tree with its symlinks resolved (the JVM's lib/ links into
   * /etc/java-17-openjdk); dangling links and what `skip` names (relative paths) are left out.
   * Returns the shared objects copied, for libsOf.
   */
  tree(src: string, skip: (rel: string) => boolean, dest = src): string[] {
    const sos: string[] = [];
    const walk = (rel: string): void => {
      for (const name of readdirSync(path.join(src, rel))) {
        const r = path.join(rel, name);
        if (skip(r)) continue;
        const from = path.join(src, r);
        if (!existsSync(from)) continue; // dangling symlink
        if (statSync(from).isDirectory()) walk(r);
        else {
          this.file(from, path.join(dest, r));
          if (/\.so(\.|$)/.test(name)) sos.push(from);
        }
      }
    };
    walk('');
    return sos;
  }
}

/** How one image is built from this machine's packages (a topology declares its own in TopologyDef.images). */
export interface ImageRecipe {
  /** The host file the image is built from (named in the log and in errors) and others whose upgrade should rebuild it. */
  source: () => string[];
  /** Fills the root file system; may run host tools (mariadb-install-db). */
  fill: (fs: RootFs, ctx: string) => void;
  /** Dockerfile lines after FROM scratch / COPY rootfs/ /. */
  dockerfile: () => string[];
}

/** The directory of the host's JVM (…/java-17-openjdk-amd64), from the java on PATH. */
function jvmHome(): string {
  return path.dirname(path.dirname(realpathSync(requireBinary('java'))));
}

const ZK_JARS = ['/usr/share/java/zookeeper.jar', '/usr/share/java/slf4j-simple.jar'];

/** META-INF/MANIFEST.MF of a jar ('' if it has none), read from the zip's central directory: no unzip(1) needed. */
function jarManifest(jar: string): string {
  const b = readFileSync(jar);
  let eocd = b.length - 22;
  while (eocd >= 0 && b.readUInt32LE(eocd) !== 0x06054b50) eocd--; // end of central directory, before a comment
  if (eocd < 0) throw new Error(`lockpick: ${jar} is not a jar (no zip directory)`);
  let at = b.readUInt32LE(eocd + 16);
  for (let i = b.readUInt16LE(eocd + 10); i > 0; i--) {
    const nameLen = b.readUInt16LE(at + 28);
    if (b.toString('utf8', at + 46, at + 46 + nameLen) === 'META-INF/MANIFEST.MF') {
      const method = b.readUInt16LE(at + 10);
      const size = b.readUInt32LE(at + 20);
      const local = b.readUInt32LE(at + 42);
      const data = b.subarray(local + 30 + b.readUInt16LE(local + 26) + b.readUInt16LE(local + 28)).subarray(0, size);
      return (method === 0 ? data : inflateRawSync(data)).toString('utf8');
    }
    at += 46 + nameLen + b.readUInt16LE(at + 30) + b.readUInt16LE(at + 32);
  }
  return '';
}

/** The jars a jar's manifest Class-Path names (absolute paths, as Debian writes them), transitively. */
function classPathClosure(roots: string[]): string[] {
  const seen = new Set<string>();
  const todo = [...roots];
  while (todo.length) {
    const jar = todo.pop()!;
    if (seen.has(jar) || !existsSync(jar)) continue; // the JVM ignores missing entries too
    seen.add(jar);
    const manifest = jarManifest(jar).replace(/\r?\n /g, ''); // continuation lines start with one space
    const cp = /^Class-Path:\s*(.*)$/m.exec(manifest)?.[1] ?? '';
    for (const entry of cp.split(/\s+/).filter(Boolean)) todo.push(path.isAbsolute(entry) ? entry : path.join(path.dirname(jar), entry));
  }
  return [...seen];
}

/** The container command of a ZooKeeper server reading `confPath` (a path inside the container, e.g. /lockpick/zoo.cfg). */
export function zookeeperCommand(confPath: string): string[] {
  return ['java', ...ZK_JVM_FLAGS, '-Dlockpick.node=/lockpick', '-cp', ZK_JARS.join(':'), ZK_MAIN_CLASS, confPath];
}

/** Where the mariadb image keeps its datadir: initialised at build time, so a container starts without a shell or an init step. */
export const MARIADB_IMAGE_DATADIR = '/var/lib/mysql';
// A small redo log keeps the baked datadir at ~25 MB; the server must then be started with the same size.
const MARIADB_LOG_FILE_SIZE = '--innodb-log-file-size=8M';

/** The container command of mariadbd on port 3306 over the image's datadir, logging to stderr. */
export function mariadbCommand(): string[] {
  return [
    'mariadbd', '--no-defaults', '--user=root', `--datadir=${MARIADB_IMAGE_DATADIR}`, '--port=3306', '--bind-address=0.0.0.0',
    '--socket=/tmp/mysqld.sock', '--pid-file=/tmp/mysqld.pid', ...MARIADB_TUNING, MARIADB_LOG_FILE_SIZE,
  ];
}

/** A fresh datadir under `dest` like mariadb.ts makes, plus root@'%' (clients come from the bridge, not localhost) and the database `lockpick`. */
function initMariadbDatadir(dest: string, mariadbd: string): void {
  const installDb = requireBinary('mariadb-install-db');
  const common = ['--no-defaults', `--datadir=${dest}`, '--user=root', MARIADB_LOG_FILE_SIZE];
  execFileSync(installDb, [...common, '--auth-root-authentication-method=normal', '--skip-test-db'], { stdio: 'pipe' });
  // FLUSH PRIVILEGES loads the grant tables, which --bootstrap skips; then CREATE USER works.
  const sql = "FLUSH PRIVILEGES;\nCREATE USER 'root'@'%';\nGRANT ALL PRIVILEGES ON *.* TO 'root'@'%' WITH GRANT OPTION;\nCREATE DATABASE lockpick;\n";
  const r = spawnSync(mariadbd, [...common, '--bootstrap', '--skip-networking', '--log-error=/dev/stderr'], { input: sql, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`lockpick: mariadbd --bootstrap could not prepare the image's datadir: ${r.stderr.trim().split('\n').slice(-3).join(' / ')}`);
  // Writable by whatever uid the container runs as (the image holds it as root's): it is private to each container anyway.
  const open = (p: string): void => {
    const dir = statSync(p).isDirectory();
    chmodSync(p, dir ? 0o777 : 0o666);
    if (dir) for (const n of readdirSync(p)) open(path.join(p, n));
  };
  open(dest);
}

/** The recipes of the built-in topologies (each topology names its own in TopologyDef.images). */
export const REDIS_IMAGE: ImageRecipe = {
  source: () => [requireBinary('redis-server')],
  fill(fs) {
    // The redis-server name matters: Redis picks its mode (server, check-rdb) from argv[0].
    fs.linked(requireBinary('redis-server'), '/usr/bin/redis-server');
    fs.emptyDir('/data');
  },
  dockerfile: () => ['ENV PATH=/usr/bin:/bin', 'WORKDIR /data', 'CMD ["redis-server"]'],
};

export const ZOOKEEPER_IMAGE: ImageRecipe = {
  source: () => [requireFile('/usr/share/java/zookeeper.jar', 'zookeeper'), realpathSync(requireBinary('java'))],
  fill(fs) {
    const home = jvmHome();
    // Only what `java -cp … QuorumPeerMain` loads: no other tools, jmods, headers, sources, docs or javac's ct.sym.
    const skip = (rel: string): boolean =>
      /^(jmods|include|man|docs|demo|legal)(\/|$)|^lib\/(src\.zip|ct\.sym)$/.test(rel) || (rel.startsWith('bin/') && rel !== 'bin/java');
    const sos = fs.tree(home, skip);
    fs.libsOf([path.join(home, 'bin', 'java'), ...sos]);
    for (const jar of classPathClosure(ZK_JARS.map((j) => requireFile(j, 'zookeeper (libslf4j-java for slf4j-simple)')))) fs.file(jar);
  },
  // PATH rather than a fixed java path: the JVM keeps its host location (its libraries find each other relative to it).
  dockerfile: () => [`ENV PATH=${jvmHome()}/bin:/usr/bin:/bin`, 'WORKDIR /lockpick', `CMD ${JSON.stringify(zookeeperCommand('/lockpick/zoo.cfg'))}`],
};

export const MARIADB_IMAGE: ImageRecipe = {
  source: () => [requireBinary('mariadbd')],
  fill(fs, ctx) {
    const mariadbd = requireBinary('mariadbd');
    fs.linked(mariadbd, '/usr/sbin/mariadbd');
    // Error messages and character sets (its compiled-in share dir), nothing of the client tools.
    fs.tree('/usr/share/mysql', (rel) => /\.(sql|sh)$|^mini-benchmark$/.test(rel));
    initMariadbDatadir(path.join(ctx, 'rootfs', MARIADB_IMAGE_DATADIR), mariadbd);
  },
  dockerfile: () => ['ENV PATH=/usr/sbin:/usr/bin:/bin', 'WORKDIR /lockpick', `CMD ${JSON.stringify(mariadbCommand())}`],
};

/**
 * What an image was built from: this module's text (the recipes) and the
 * sources' paths, sizes and mtimes. An image with another stamp is rebuilt, so
 * a package upgrade or a recipe change never leaves a stale image in use.
 */
function stampOf(recipe: ImageRecipe, sources = recipe.source()): string {
  const h = createHash('sha256').update(readFileSync(fileURLToPath(import.meta.url)));
  // The recipe may live in its topology's file: its own text counts too.
  h.update(`\0${recipe.fill.toString()}\0${recipe.dockerfile().join('\n')}`);
  for (const f of sources) {
    const st = statSync(f);
    h.update(`\0${f}\0${st.size}\0${Math.floor(st.mtimeMs)}`);
  }
  return h.digest('hex').slice(0, 16);
}

const STAMP_LABEL = 'lockpick.image-stamp';

/** The engine's image `name` (its id and stamp label), or undefined when it has none. */
async function built(client: ContainerRuntimeClient, name: string): Promise<{ id: string; stamp: string } | undefined> {
  const { ImageName } = await importOptional<typeof import('testcontainers')>('testcontainers');
  try {
    // inspect, not exists: testcontainers caches "exists" answers for the life of the process.
    const info = await client.image.inspect(ImageName.fromString(name));
    return { id: info.Id, stamp: info.Config?.Labels?.[STAMP_LABEL] ?? '' };
  } catch {
    return undefined;
  }
}

// One build per engine client and kind at a time, however many nodes ask at once; later calls look again (an inspect).
const building = new WeakMap<ContainerRuntimeClient, Map<ImageKind, Promise<string>>>();

/** Builds `lockpick-<kind>:local` from this machine's packages unless the engine has it, built from the same; returns its name. */
export function ensureImage(client: ContainerRuntimeClient, kind: ImageKind, recipe: ImageRecipe, log: (m: string) => void): Promise<string> {
  let mine = building.get(client);
  if (!mine) building.set(client, (mine = new Map()));
  let p = mine.get(kind);
  if (!p) {
    p = buildImage(client, kind, recipe, log);
    mine.set(kind, p);
    const done = (): void => void mine.delete(kind);
    p.then(done, done);
  }
  return p;
}

/**
 * Sends `ctx` to the engine's build API (through testcontainers' own
 * connection: DOCKER_HOST works) as a tar made by tar(1). Not
 * client.image.build: its tar-fs packing masks every mode with the umask, so
 * /tmp would lose its 1777 and the MariaDB datadir its 0777.
 */
async function buildFromContext(client: ContainerRuntimeClient, ctx: string, name: string): Promise<void> {
  const d = client.container.dockerode;
  const tar = spawn('tar', ['-C', ctx, '-c', '--owner=0', '--group=0', '--numeric-owner', '.'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let tarErr = '';
  tar.stderr.on('data', (b: Buffer) => (tarErr += b.toString()));
  const tarDone = new Promise<number | null>((res) => tar.on('close', res));
  const out = await d.buildImage(tar.stdout, { t: name, dockerfile: 'Dockerfile', rm: true, forcerm: true });
  const lines = await new Promise<{ error?: string; stream?: string }[]>((res, rej) => d.modem.followProgress(out, (err: Error | null, r: { error?: string }[]) => (err ? rej(err) : res(r))));
  const code = await tarDone;
  if (code !== 0) throw new Error(`building ${name}: tar of ${ctx} failed (${code}): ${tarErr.trim()}`);
  const failed = lines.find((l) => l.error);
  if (failed) throw new Error(`building ${name}: ${failed.error}`);
}

/** Writes the build context of `kind` into `ctx`: rootfs/ and a Dockerfile labelled with `stamp`. Needs no engine. */
export function writeBuildContext(recipe: ImageRecipe, ctx: string, stamp = stampOf(recipe)): void {
  const fs = new RootFs(path.join(ctx, 'rootfs'));
  recipe.fill(fs, ctx);
  fs.emptyDir('/lockpick');
  fs.emptyDir('/tmp', 0o1777);
  // Host names from /etc/hosts first (the engine writes it: aliases, --add-host), then DNS, as on Debian.
  fs.text('/etc/nsswitch.conf', 'hosts: files dns\n');
  const source = recipe.source()[0]!;
  writeFileSync(path.join(ctx, 'Dockerfile'), ['FROM scratch', 'COPY rootfs/ /', ...recipe.dockerfile(), `LABEL lockpick.image-source=${JSON.stringify(source)} ${STAMP_LABEL}=${stamp}`].join('\n') + '\n');
}

async function buildImage(client: ContainerRuntimeClient, kind: ImageKind, recipe: ImageRecipe, log: (m: string) => void): Promise<string> {
  const name = imageName(kind);
  const sources = recipe.source();
  const source = sources[0]!;
  const stamp = stampOf(recipe, sources);
  const had = await built(client, name);
  if (had?.stamp === stamp) return name;
  const ctx = mkdtempSync(path.join(os.tmpdir(), 'lockpick-image-'));
  try {
    writeBuildContext(recipe, ctx, stamp);
    const why = !had ? 'once per Docker engine' : 'rebuilt: the host package or the recipe changed since';
    log(`lockpick: building the image ${name} from ${source} (${why})`);
    await buildFromContext(client, ctx, name);
  } finally {
    rmSync(ctx, { recursive: true, force: true });
  }
  // Whatever the output stream said, check the result.
  const now = await built(client, name);
  if (now?.stamp !== stamp) throw new Error(`building ${name} from ${source} failed: the engine has no such image afterwards`);
  // The stale image lost its name; drop it unless a container still uses it.
  if (had && had.id !== now.id) await client.container.dockerode.getImage(had.id).remove().catch(() => {});
  return name;
}

/** Builds `lockpick-redis:local` unless the engine has it already (the redis-only callers' name for ensureImage). */
export async function ensureDefaultRedisImage(client: ContainerRuntimeClient, log: (m: string) => void): Promise<void> {
  await ensureImage(client, 'redis', REDIS_IMAGE, log);
}
