// `nats`: one NATS server with JetStream on 127.0.0.1 (a free client port, a free monitoring
// port, a private dir holding its config and JetStream store), plus the environment's resource
// node. The locks live in JetStream key-value buckets kept in memory (src/locks/nats-kv.ts),
// whose max_age is the lease: a message ages out by the server's wall clock, which a Go server
// reads without libc, so the clock shim cannot move it (expiryClock 'unshimmable'), and a
// restart forgets every key (restartForgets 'always').
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { LocalEnvironment } from './environment.ts';
import { requireBinary } from './binaries.ts';
import { ServerNode } from './node.ts';
import { freePort } from './ports.ts';
import { startAndWait } from './wait.ts';
import { onlyOptions, type TopologyDef } from './topology.ts';

/** The server's config: loopback only, JetStream in the node's dir, small limits (the buckets hold a few keys). */
function natsConfig(o: { name: string; port: number; monitorPort: number; storeDir: string }): string {
  return [
    `server_name: ${JSON.stringify(o.name)}`,
    `listen: "127.0.0.1:${o.port}"`,
    `http: "127.0.0.1:${o.monitorPort}"`,
    `jetstream {`,
    `  store_dir: ${JSON.stringify(o.storeDir)}`,
    `  max_memory_store: 64MB`,
    `  max_file_store: 64MB`,
    `}`,
    '',
  ].join('\n');
}

/** /healthz on the monitoring port answers ok once JetStream is up. */
export async function natsHealthy(monitorPort: number, host = '127.0.0.1'): Promise<boolean> {
  try {
    const r = await fetch(`http://${host}:${monitorPort}/healthz`, { signal: AbortSignal.timeout(1000) });
    return r.ok && (await r.json() as { status?: string }).status === 'ok';
  } catch {
    return false;
  }
}

function createNatsNode(id: string, port: number, monitorPort: number, root: string): ServerNode {
  const bin = requireBinary('nats-server');
  const dir = path.join(root, id);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const conf = path.join(dir, 'nats.conf');
  writeFileSync(conf, natsConfig({ name: id, port, monitorPort, storeDir: path.join(dir, 'jetstream') }), { mode: 0o600 });
  const logFile = path.join(dir, 'nats.log');
  // No clock shim: a Go server reads its clock without libc (expiryClock below); the file is the node's, unread.
  const clockFile = path.join(dir, 'clock-offset');
  return new ServerNode(id, 'nats', port, dir, logFile, clockFile, () => startAndWait(
    { name: `nats-server ${id} (127.0.0.1:${port})`, command: bin, args: ['-c', conf], cwd: dir, logFile },
    { dir },
    () => natsHealthy(monitorPort),
    15_000,
  ));
}

export const natsTopology: TopologyDef = {
  name: 'nats',
  summary: 'one NATS server with JetStream (key-value buckets in memory; max_age is the lease)',
  backend: 'nats',
  packages: ['nats-server'],
  words: {
    staleUnlock: (victim) => `the unlock put a delete marker on the key, which by then was process ${victim}'s lock`,
    lateUnlock: "its entry had aged out of the bucket (max_age), so it cannot have deleted its own lock; a delete that does not name the revision it created (previousSeq) deletes whichever client's entry is there",
  },
  roles: { data: ['nats'] },
  endpointRoles: [{ role: 'nats' }],
  leased: true,
  // JetStream ages messages out by the server's wall clock (time.Now in Go), read from the vDSO without libc.
  expiryClock: 'unshimmable',
  // The recipes' buckets are kept in memory (storage: memory): a restarted server has the buckets' configs, not their keys.
  restartForgets: 'always',
  leader: { none: 'one server' },
  sessionEndsWithConnection: false,
  asyncFailover: false,
  nativeClient: false,
  framing: { none: "the proxy does not frame the NATS protocol: a process client on nats gets no I/O points (the nats package's own sockets get the worker's)" },
  // A message ages out by a timer set to its own age (no sweep loop), from when the server stored it, as Redis's PX.
  timescales: { none: 'no lease floor and no expiry lag to size by' },
  options: [],
  validate: (o) => onlyOptions('nats', o, []),
  async start(env: LocalEnvironment) {
    const node = createNatsNode('n1', await freePort(), await freePort(), env.root);
    await node.start();
    env.nodes.push(node);
  },
  external: () => [{ role: 'nats', as: 'nats', prefix: 'n', min: 1, max: 1 }],
};
