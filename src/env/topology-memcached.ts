// `memcached`: one memcached server on 127.0.0.1 (a free port, a private dir), plus the
// environment's resource node. Its items expire by its own clock, counted in whole seconds
// from its start on the monotonic clock, so a server wall-clock fault cannot move a lease here
// (expiryClock); it keeps everything in memory, so a restart forgets every lock (restartForgets).
import { mkdirSync } from 'node:fs';
import { Socket } from 'node:net';
import path from 'node:path';
import type { LocalEnvironment } from './environment.ts';
import type { ImageRecipe } from './docker-image.ts';
import { requireBinary } from './binaries.ts';
import { shimEnv } from './clock.ts';
import { ServerNode } from './node.ts';
import { freePort } from './ports.ts';
import { startAndWait } from './wait.ts';
import { onlyOptions, type TopologyDef } from './topology.ts';

const CONTAINER_PORT = 11211;

/** memcached's arguments: TCP only, on one address; as root it must be told to stay root (`-u`). */
function memcachedArgs(listen: string, port: number, asRoot: boolean): string[] {
  return ['-l', listen, '-p', String(port), '-U', '0', '-m', '64', '-t', '2', ...(asRoot ? ['-u', 'root'] : [])];
}

/** A `version` round trip over a fresh connection: true when it answers VERSION. */
export function memcachedReady(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const s = new Socket();
    let got = '';
    const done = (ok: boolean) => { clearTimeout(t); s.destroy(); resolve(ok); };
    const t = setTimeout(() => done(false), 500);
    s.once('error', () => done(false));
    s.on('data', (d) => { got += d.toString(); if (got.includes('\r\n')) done(got.startsWith('VERSION ')); });
    s.connect(port, host, () => s.write('version\r\n'));
  });
}

function createMemcachedNode(id: string, role: string, port: number, root: string): ServerNode {
  const bin = requireBinary('memcached');
  const dir = path.join(root, id);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const logFile = path.join(dir, 'memcached.log');
  const clockFile = path.join(dir, 'clock-offset');
  return new ServerNode(id, role, port, dir, logFile, clockFile, () => startAndWait(
    { name: `memcached ${id} (127.0.0.1:${port})`, command: bin, args: memcachedArgs('127.0.0.1', port, process.getuid?.() === 0), cwd: dir, env: shimEnv(clockFile), logFile },
    { dir },
    () => memcachedReady(port),
    10_000,
  ));
}

/** --env docker: Debian's memcached and its libraries in an image of its own; root in /etc/passwd, which `-u root` looks up. */
const MEMCACHED_IMAGE: ImageRecipe = {
  source: () => [requireBinary('memcached')],
  fill(fs) {
    fs.linked(requireBinary('memcached'), '/usr/bin/memcached');
    fs.text('/etc/passwd', 'root:x:0:0:root:/lockpick:/usr/bin/memcached\n');
    fs.text('/etc/group', 'root:x:0:\n');
  },
  dockerfile: () => ['ENV PATH=/usr/bin:/bin', 'WORKDIR /lockpick', 'CMD ["memcached", "-u", "root"]'],
};

export const memcachedTopology: TopologyDef = {
  name: 'memcached',
  summary: 'one memcached server (whole-second expiry on its own clock; a restart forgets every key)',
  backend: 'memcached',
  packages: ['memcached'],
  words: {
    staleUnlock: (victim) => `the unlock deleted the key, which by then was process ${victim}'s lock`,
    lateUnlock: 'its item had expired, so it cannot have deleted its own lock; an unlock that does not check the owner (with gets and cas) deletes whichever client\'s item is there',
  },
  roles: { data: ['memcached'] },
  endpointRoles: [{ role: 'memcached' }],
  leased: true,
  expiryClock: 'monotonic',
  restartForgets: 'always',
  leader: { none: 'one server' },
  sessionEndsWithConnection: false,
  asyncFailover: false,
  nativeClient: false,
  framing: 'memcached',
  images: { memcached: MEMCACHED_IMAGE },
  options: [],
  validate: (o) => onlyOptions('memcached', o, []),
  async start(env: LocalEnvironment) {
    const node = createMemcachedNode('n1', 'memcached', await freePort(), env.root);
    await node.start();
    env.nodes.push(node);
  },
  docker: async (kit) => {
    await kit.place([{ id: 'n1', port: CONTAINER_PORT }]);
    await kit.start({ id: 'n1', role: 'memcached', image: 'memcached', cmd: ['memcached', ...memcachedArgs('0.0.0.0', CONTAINER_PORT, true)], ready: (h, p) => memcachedReady(p, h) });
  },
  external: () => [{ role: 'memcached', as: 'memcached', prefix: 'n', min: 1, max: 1 }],
  // Whole seconds: a lease is at least one; an item outlives its lease by up to two (exptimeFor in src/locks/memcached-client.ts).
  timescales: async () => ({ leaseMinMs: 1000, leaseLagMs: 2000, said: ['memcached: expiry in whole seconds (a lease of at least 1000 ms, items outlive it by up to 2000 ms)'] }),
};
