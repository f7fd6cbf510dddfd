// test-lane: beside (its servers are its own; its verdicts do not hang on fine timing)
// The server images of --env docker, built FROM scratch out of this machine's
// own packages (src/env/docker-image.ts): each one serves from a container
// published on 127.0.0.1 with the node's dir bind-mounted at /lockpick, and the
// clock shim, bind-mounted and in LD_PRELOAD, moves the server's wall clock by
// the offset in /lockpick/clock-offset (the image's libc is all it links).
// Skipped, saying so, when no Docker engine answers.
import { tempDir } from '../support/temp-dir.ts';
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync, type Stats } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import mysql from 'mysql2/promise';
import { Redis } from 'ioredis';
import type { ContainerRuntimeClient, StartedTestContainer } from 'testcontainers';
import { ensureImage, mariadbCommand, writeBuildContext, zookeeperCommand, type ImageKind } from '../../src/env/docker-image.ts';
import { imageRecipe } from '../../src/env/topologies.ts';
import { shimPath, writeClockOffset } from '../../src/env/clock.ts';
import { freePort } from '../../src/env/ports.ts';
import { requireBinary } from '../../src/env/binaries.ts';
import { postgresBinary } from '../../src/env/postgres.ts';
import { zookeeperMode } from '../../src/env/zookeeper.ts';
import { dockerSkip } from './docker-helpers.ts';

process.env.TESTCONTAINERS_RYUK_DISABLED ??= 'true'; // no registry here for the reaper's image; each test removes its container
const skip = dockerSkip('docker-images');
const OFFSET_MS = 20_000;

let client: ContainerRuntimeClient;
before(async () => {
  if (skip) return;
  const { getContainerRuntimeClient } = await import('testcontainers');
  client = await getContainerRuntimeClient();
});

/** Builds (or finds) the image and says how long that took and how big it is. */
async function image(kind: ImageKind): Promise<string> {
  const t0 = Date.now();
  const name = await ensureImage(client, kind, imageRecipe(kind)!, () => {});
  const { ImageName } = await import('testcontainers');
  const mb = (await client.image.inspect(ImageName.fromString(name))).Size / 1e6;
  console.log(`# ${name}: ready in ${((Date.now() - t0) / 1000).toFixed(1)} s, ${mb.toFixed(1)} MB`);
  return name;
}

/** A node dir as the lead's code makes it: private, with a clock-offset file for the shim. */
function nodeDir(): string {
  const dir = tempDir('lockpick-image-test-');
  writeFileSync(path.join(dir, 'clock-offset'), `${OFFSET_MS}\n`);
  return dir;
}

/**
 * Runs `cmd` in `name` with `dir` at /lockpick and the shim, `port` published on
 * 127.0.0.1 only (testcontainers alone publishes on every interface); started once `ready` is logged.
 */
async function run(name: string, cmd: string[], port: number, dir: string, ready: RegExp, user?: string): Promise<{ c: StartedTestContainer; port: number }> {
  const { GenericContainer, Wait } = await import('testcontainers');
  const hostPort = await freePort();
  class Loopback extends GenericContainer {
    onLoopback(): this {
      this.withExposedPorts({ container: port, host: hostPort });
      this.hostConfig.PortBindings = { [`${port}/tcp`]: [{ HostIp: '127.0.0.1', HostPort: String(hostPort) }] };
      return this;
    }
  }
  const container = new Loopback(name).onLoopback();
  if (user) container.withUser(user);
  const c = await container
    .withCommand(cmd)
    .withBindMounts([{ source: dir, target: '/lockpick' }, { source: path.dirname(shimPath()), target: '/lockpick-shim', mode: 'ro' }])
    .withEnvironment({ LD_PRELOAD: `/lockpick-shim/${path.basename(shimPath())}`, LOCKPICK_CLOCK_FILE: '/lockpick/clock-offset' })
    // A log line, not the default port probe: that one runs a shell inside, and these images have none.
    .withWaitStrategy(Wait.forLogMessage(ready))
    .withStartupTimeout(90_000)
    .start();
  return { c, port: hostPort };
}

/** Stops and removes the container, and checks the engine no longer knows it. */
async function remove(c: StartedTestContainer): Promise<void> {
  await c.stop({ remove: true, timeout: 2_000 });
  await assert.rejects(client.container.getById(c.getId()).inspect(), /no such container|404/i, 'the container is removed');
}

/** Every path under `root` (relative, with a leading /) and what lstat says of it. */
function walk(root: string, rel = '/'): Map<string, Stats> {
  const out = new Map<string, Stats>();
  for (const name of readdirSync(path.join(root, rel))) {
    const r = path.join(rel, name);
    const st = lstatSync(path.join(root, r));
    out.set(r, st);
    if (st.isDirectory()) for (const [k, v] of walk(root, r)) out.set(k, v);
  }
  return out;
}

// No engine needed: this one runs in CI even where the docker tests skip.
test('image contexts: the files each server needs, no symlinks, the libraries the clock shim links, modes kept', { timeout: 120_000 }, () => {
  const shimLibs = [...execFileSync('ldd', [shimPath()], { encoding: 'utf8' }).matchAll(/(\/\S+) \(0x/g)].map((m) => m[1]!);
  const jvm = path.dirname(path.dirname(realpathSync(requireBinary('java'))));
  const pgServer = realpathSync(postgresBinary('postgres'));
  const want: Record<ImageKind, string[]> = {
    redis: ['/usr/bin/redis-server'],
    zookeeper: [`${jvm}/bin/java`, `${jvm}/lib/jvm.cfg`, `${jvm}/lib/modules`, `${jvm}/conf/security/java.security`,
      '/usr/share/java/zookeeper.jar', '/usr/share/java/zookeeper-jute.jar', '/usr/share/java/slf4j-api.jar', '/usr/share/java/slf4j-simple.jar'],
    mariadb: ['/usr/sbin/mariadbd', '/usr/share/mysql/english/errmsg.sys', '/usr/share/mysql/charsets/Index.xml', '/var/lib/mysql/mysql/global_priv.MAD'],
    etcd: ['/usr/bin/etcd'],
    // The server at its package's path (its share dir is found from there), time zones, the user it runs as.
    postgres: [pgServer, `/usr/share/postgresql/${path.basename(path.dirname(path.dirname(pgServer)))}/timezonesets/Default`, '/usr/share/zoneinfo/Etc/UTC', '/etc/passwd', '/usr/sbin/pgbouncer'],
  };
  for (const kind of Object.keys(want) as ImageKind[]) {
    const ctx = tempDir('lockpick-image-test-');
    try {
      writeBuildContext(imageRecipe(kind)!, ctx, 'test');
      const files = walk(path.join(ctx, 'rootfs'));
      for (const f of [...want[kind], ...shimLibs, '/etc/nsswitch.conf']) assert.ok(files.get(f)?.isFile(), `${kind}: ${f} is a file in the image`);
      assert.deepEqual([...files].filter(([, st]) => st.isSymbolicLink()).map(([f]) => f), [], `${kind}: symlinks resolved`);
      assert.equal(files.get('/tmp')!.mode & 0o7777, 0o1777, `${kind}: /tmp is sticky and world-writable`);
      assert.ok(files.get('/lockpick')?.isDirectory(), `${kind}: /lockpick to bind-mount the node's dir on`);
      const dockerfile = readFileSync(path.join(ctx, 'Dockerfile'), 'utf8');
      assert.match(dockerfile, /^FROM scratch\n/);
      if (kind === 'zookeeper') {
        assert.ok(dockerfile.includes(`CMD ${JSON.stringify(zookeeperCommand('/lockpick/zoo.cfg'))}`), dockerfile);
        const skipped = [...files.keys()].filter((f) => /\/(jmods|include|man|legal)\/|\/(src\.zip|ct\.sym|javac)$/.test(f));
        assert.deepEqual(skipped, [], 'no jmods, headers, man pages, sources or JDK tools');
      }
      if (kind === 'mariadb') assert.equal(files.get('/var/lib/mysql/mysql')!.mode & 0o777, 0o777, 'the baked datadir is writable by any uid');
      if (kind === 'postgres') {
        // The cluster beside rootfs/, copied as the server's own by the Dockerfile; PostgreSQL wants its data dir private.
        assert.equal(statSync(path.join(ctx, 'pg', 'data')).mode & 0o777, 0o700, 'the cluster dir is 0700');
        assert.match(readFileSync(path.join(ctx, 'pg', 'data', 'pg_hba.conf'), 'utf8'), /^host all all 0\.0\.0\.0\/0 trust$/m);
        assert.match(dockerfile, /^COPY --chown=\d+:\d+ pg\/ \/var\/lib\/postgresql\/$/m);
        assert.match(dockerfile, /^USER [1-9]\d*:\d+$/m, 'not root');
      }
    } finally {
      rmSync(ctx, { recursive: true, force: true });
    }
  }
});

test('zookeeper image: standalone from a bind-mounted zoo.cfg, data in /lockpick, JVM clock under the shim', { skip, timeout: 240_000 }, async () => {
  const name = await image('zookeeper');
  const dir = nodeDir();
  writeFileSync(path.join(dir, 'zoo.cfg'), ['tickTime=500', 'dataDir=/lockpick/data', 'clientPort=2181', 'clientPortAddress=0.0.0.0',
    '4lw.commands.whitelist=*', 'admin.enableServer=false', ''].join('\n'));
  // Log lines stamped by the JVM's own wall clock, to see the shim at work.
  const [java, ...args] = zookeeperCommand('/lockpick/zoo.cfg');
  const cmd = [java!, '-Dorg.slf4j.simpleLogger.showDateTime=true', "-Dorg.slf4j.simpleLogger.dateTimeFormat=yyyy-MM-dd'T'HH:mm:ss.SSSXXX", ...args];
  const t0 = Date.now();
  const { c, port } = await run(name, cmd, 2181, dir, /binding to port/);
  try {
    let mode: string | undefined;
    for (let i = 0; i < 60 && mode === undefined; i++) {
      mode = await zookeeperMode(port);
      if (mode === undefined) await new Promise((res) => setTimeout(res, 500));
    }
    const t1 = Date.now();
    assert.equal(mode, 'standalone', `srvr on 127.0.0.1:${port}`);
    assert.ok(existsSync(path.join(dir, 'data', 'version-2')), 'the data dir is the bind-mounted one');
    const logs = spawnSync('docker', ['logs', c.getId()], { encoding: 'utf8' }).stderr; // slf4j-simple writes to stderr
    const stamp = /^(\S+) \[main\] INFO .*Reading configuration from/m.exec(logs)?.[1];
    assert.ok(stamp, `a timestamped log line: ${logs.slice(0, 300)}`);
    const ahead = Date.parse(stamp) - t0;
    // Logged between start and ready, OFFSET_MS later than here; without the shim it would be within t1 - t0 (a few s).
    assert.ok(ahead >= OFFSET_MS - 1000 && ahead <= t1 - t0 + OFFSET_MS + 1000, `the JVM's clock is ${ahead} ms past the start, want ${OFFSET_MS} plus the start-up time (${t1 - t0} ms)`);
  } finally {
    await remove(c);
    rmSync(dir, { recursive: true, force: true });
  }
});

test('mariadb image: root logs in from outside, SELECT 1 in database lockpick, NOW() under the shim; also as a non-root uid', { skip, timeout: 240_000 }, async () => {
  const name = await image('mariadb');
  const dir = nodeDir();
  chmodSync(dir, 0o755); // uid 1000 reads the clock offset there
  // Not root: the baked datadir and /tmp (its socket) must be writable by any uid (the image's modes survive the build).
  const { c, port } = await run(name, mariadbCommand(), 3306, dir, /ready for connections/, '1000:1000');
  try {
    const conn = await mysql.createConnection({ host: '127.0.0.1', port, user: 'root', database: 'lockpick', connectTimeout: 10_000 });
    try {
      await conn.query('CREATE TABLE t (x INT) ENGINE=InnoDB');
      await conn.query('INSERT INTO t VALUES (1)');
      const [rows] = await conn.query('SELECT x AS one, UNIX_TIMESTAMP(NOW(6)) AS t FROM t');
      const row = (rows as { one: number; t: string }[])[0]!;
      assert.equal(row.one, 1);
      const ahead = Number(row.t) * 1000 - Date.now();
      assert.ok(Math.abs(ahead - OFFSET_MS) < 2000, `NOW() is ${ahead.toFixed(0)} ms ahead, want ${OFFSET_MS}`);
    } finally {
      await conn.end();
    }
  } finally {
    await remove(c);
    rmSync(dir, { recursive: true, force: true });
  }
});

test('redis image: TIME under the shim follows /lockpick/clock-offset, also when it changes', { skip, timeout: 120_000 }, async () => {
  const name = await image('redis');
  const dir = nodeDir();
  const { c, port } = await run(name, ['redis-server', '--port', '6379', '--protected-mode', 'no', '--save', ''], 6379, dir, /Ready to accept connections/);
  const r = new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 1 });
  const aheadMs = async () => {
    const [s, us] = await r.time();
    return Number(s) * 1000 + Number(us) / 1000 - Date.now();
  };
  try {
    assert.ok(Math.abs((await aheadMs()) - OFFSET_MS) < 1000, 'TIME is 20 s ahead');
    // A new offset (a new file by rename) takes effect on the next call.
    writeClockOffset(path.join(dir, 'clock-offset'), -5000);
    assert.ok(Math.abs((await aheadMs()) + 5000) < 1000, 'TIME is 5 s behind after the change');
  } finally {
    r.disconnect();
    await remove(c);
    rmSync(dir, { recursive: true, force: true });
  }
});
