// The `redis-sentinel` topology against real redis-server/redis-sentinel
// processes: startup, a Sentinel client through proxied links, and a failover
// with the replication links cut first (the lock key is never copied).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Redis } from 'ioredis';
import { Toxiproxy } from 'toxiproxy-node-client';
import { startEnvironment, type Environment } from '../../src/env/index.ts';

let env: Environment;
const clients: Redis[] = [];
function track(r: Redis): Redis {
  r.on('error', () => {});
  clients.push(r);
  return r;
}

before(async () => {
  const t0 = performance.now();
  env = await startEnvironment('redis-sentinel');
  const ms = performance.now() - t0;
  console.log(`redis-sentinel (1 primary, 2 replicas, 3 sentinels) up in ${ms.toFixed(0)} ms`);
});

after(async () => {
  for (const c of clients) c.disconnect();
  await env?.down();
});

async function masterPort(sentinelPort: number): Promise<number> {
  const s = track(new Redis({ host: '127.0.0.1', port: sentinelPort, maxRetriesPerRequest: 1 }));
  const [, port] = (await s.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', env.sentinelName!)) as [string, string];
  s.disconnect();
  return Number(port);
}

test('a Sentinel client finds the primary through proxied sentinel and data links', async () => {
  assert.equal(env.sentinelName, 'lockpick');
  const sentinels = await env.sentinelEndpoints!('c1');
  const data = await env.clientEndpoints('c1');
  assert.deepEqual(sentinels.map((e) => e.id), ['s1', 's2', 's3']);
  // Sentinel hands out real addresses; the client maps them onto its own proxied links.
  const natMap = Object.fromEntries(data.map((e) => [`127.0.0.1:${env.node(e.id).port}`, { host: e.host, port: e.port }]));
  const r = track(new Redis({ sentinels: sentinels.map((e) => ({ host: e.host, port: e.port })), name: env.sentinelName!, natMap }));
  await r.set('hello', 'world');
  assert.equal(await r.get('hello'), 'world');
  assert.equal(await masterPort(sentinels[0]!.port), env.node('n1').port);
  // Node-to-node links are listed for the nemesis (replication, sentinel monitoring, sentinel gossip).
  for (const name of ['n2->n1', 'n3->n1', 's1->n1', 's1->s2']) {
    assert.ok(env.links.some((l) => l.name === name), `link ${name} missing: ${env.links.map((l) => l.name).join(' ')}`);
  }
});

test('failover with replication cut: the new primary lacks the key; Sentinel reports it', async () => {
  const tp = new Toxiproxy(env.proxyUrl);
  const n1 = env.node('n1');
  const replication = env.links.filter((l) => l.to === 'n1' && (l.from === 'n2' || l.from === 'n3'));
  assert.equal(replication.length, 2);
  for (const l of replication) {
    const p = await tp.get(l.name);
    await p.update({ enabled: false, listen: p.listen, upstream: p.upstream });
  }
  // The replicas notice their link is gone before we write.
  for (const id of ['n2', 'n3']) {
    const r = track(new Redis({ host: '127.0.0.1', port: env.node(id).port }));
    for (let i = 0; !/master_link_status:down/.test(await r.info('replication')); i++) {
      assert.ok(i < 100, `replica ${id} still reports its link up`);
      await new Promise((res) => setTimeout(res, 50));
    }
  }
  const primary = track(new Redis({ host: '127.0.0.1', port: n1.port }));
  await primary.set('lock', 'c1', 'PX', 60000);
  const t0 = performance.now();
  await n1.pause();
  try {
    const sentinelPort = env.node('s1').port;
    let port = n1.port;
    while (port === n1.port) {
      assert.ok(performance.now() - t0 < 20_000, 'no failover within 20 s');
      await new Promise((res) => setTimeout(res, 100));
      port = await masterPort(sentinelPort);
    }
    console.log(`failover: new primary reported ${(performance.now() - t0).toFixed(0)} ms after pausing n1`);
    const promoted = env.nodes.find((n) => n.port === port)!;
    assert.ok(['n2', 'n3'].includes(promoted.id));
    const r = track(new Redis({ host: '127.0.0.1', port }));
    assert.match(await r.info('replication'), /role:master/);
    assert.equal(await r.get('lock'), null, 'the key written after replication was cut must not be on the promoted replica');
  } finally {
    await n1.resume();
    for (const l of replication) {
      const p = await tp.get(l.name);
      await p.update({ enabled: true, listen: p.listen, upstream: p.upstream });
    }
  }
});
