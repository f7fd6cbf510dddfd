// ZooKeeper 3.8 servers from the Debian package: zoo.cfg, the JVM under the
// clock shim, readiness and role through the `srvr` four-letter word.
import { mkdirSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { requireBinary, requireFile } from './binaries.ts';
import { shimEnv } from './clock.ts';
import { ServerNode } from './node.ts';
import { chownTree } from './peer-routing.ts';
import { startAndWait } from './wait.ts';

export interface ZkPorts { client: number; quorum: number; election: number }

/** Sends a four-letter word to host:port and returns the whole reply. */
export function fourLetterWord(port: number, word: string, timeoutMs = 1000, host = '127.0.0.1'): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host, port });
    let out = '';
    s.setTimeout(timeoutMs, () => s.destroy(new Error(`'${word}' to ${host}:${port} timed out`)));
    s.on('connect', () => s.write(word));
    s.on('data', (d) => (out += d.toString()));
    s.on('end', () => resolve(out));
    s.on('error', reject);
  });
}

/** 'leader' | 'follower' | 'standalone', or undefined while the server is not serving. */
export async function zookeeperMode(port: number, host?: string): Promise<string | undefined> {
  try {
    return /^Mode: (\w+)/m.exec(await fourLetterWord(port, 'srvr', 1000, host))?.[1];
  } catch {
    return undefined;
  }
}

/** zoo.cfg: lockpick's timing (tickTime 500 ms: sessions and elections in seconds) and the ensemble, if more than one server. */
export function zooCfgLines(o: { dataDir: string; clientPort: number; clientPortAddress: string; servers: { id: string; host: string; quorum: number; election: number }[] }): string[] {
  const lines = [
    'tickTime=500',
    'initLimit=20',
    'syncLimit=5',
    `dataDir=${o.dataDir}`,
    `clientPort=${o.clientPort}`,
    `clientPortAddress=${o.clientPortAddress}`,
    '4lw.commands.whitelist=*',
    'admin.enableServer=false',
    'maxSessionTimeout=60000',
  ];
  for (const m of o.servers) lines.push(`server.${zkMyid(m.id)}=${m.host}:${m.quorum}:${m.election}`);
  return lines;
}

/** myid of node 'n3' is 3. */
export const zkMyid = (id: string): string => id.replace(/^\D+/, '');

export interface ZkNodeOptions {
  id: string;                // 'n1'..; myid is the number
  root: string;
  ports: ZkPorts;
  ensemble: { id: string; ports: ZkPorts }[]; // empty or one entry: standalone
  uid?: number;
}

/** The JVM flags and main class of every ZooKeeper server, local or in a container (docker-image.ts): a small heap and a quick start. */
export const ZK_JVM_FLAGS = [
  '-Xmx128m', '-XX:-UsePerfData', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-Xshare:auto',
  '-Djava.net.preferIPv4Stack=true', '-Dzookeeper.cnxTimeout=1000',
  // The election's backoff doubles up to 60 s by default: a peer whose JVM starts
  // late on a loaded machine then waits out a long interval before the quorum forms.
  '-Dzookeeper.fastleader.maxNotificationInterval=2000',
];
export const ZK_MAIN_CLASS = 'org.apache.zookeeper.server.quorum.QuorumPeerMain';

export function createZkNode(o: ZkNodeOptions): ServerNode {
  const java = requireBinary('java');
  const cp = [
    requireFile('/usr/share/java/zookeeper.jar', 'zookeeper'),
    requireFile('/usr/share/java/slf4j-simple.jar', 'zookeeper (libslf4j-java)'),
  ].join(':');
  const dir = path.join(o.root, o.id);
  mkdirSync(path.join(dir, 'data'), { recursive: true, mode: 0o700 });
  writeFileSync(path.join(dir, 'data', 'myid'), `${zkMyid(o.id)}\n`);
  const lines = zooCfgLines({
    dataDir: path.join(dir, 'data'), clientPort: o.ports.client, clientPortAddress: '127.0.0.1',
    servers: o.ensemble.length > 1 ? o.ensemble.map((m) => ({ id: m.id, host: '127.0.0.1', quorum: m.ports.quorum, election: m.ports.election })) : [],
  });
  const conf = path.join(dir, 'zoo.cfg');
  writeFileSync(conf, lines.join('\n') + '\n');
  const logFile = path.join(dir, 'zookeeper.log');
  const clockFile = path.join(dir, 'clock-offset');
  return new ServerNode(o.id, 'zookeeper', o.ports.client, dir, logFile, clockFile, async () => {
    if (o.uid !== undefined) chownTree(dir, o.uid);
    const args = [...ZK_JVM_FLAGS, `-Dlockpick.node=${dir}`, '-cp', cp, ZK_MAIN_CLASS, conf];
    // Ready = serving clients (a leader elected, or standalone).
    return startAndWait(
      { name: `zookeeper ${o.id} (127.0.0.1:${o.ports.client})`, command: java, args, cwd: dir, env: shimEnv(clockFile), logFile, uid: o.uid, probeNoise: /Processing srvr command/ },
      { dir },
      async () => (await zookeeperMode(o.ports.client)) !== undefined,
      // An ensemble's election on a loaded machine: slow JVM starts, then the vote.
      60_000,
    );
  });
}
