// test-lane: beside (its servers are its own; its verdicts do not hang on fine timing)
// The `redis` topology against real redis-server processes: startup, proxied
// client links, pause, clock shim, restart with and without persistence.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Redis } from 'ioredis';
import { Toxiproxy } from 'toxiproxy-node-client';
import { startEnvironment, type Environment } from '../../src/env/index.ts';

let env: Environment;
const clients: Redis[] = [];

function client(port: number, o: { commandTimeout?: number } = {}): Redis {
  const r = new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 1, ...o });
  r.on('error', () => {});
  clients.push(r);
  return r;
}

before(async () => {
  const t0 = performance.now();
  env = await startEnvironment('redis', { masters: 5, resource: true });
  const ms = performance.now() - t0;
  console.log(`redis x5 (+resource) up in ${ms.toFixed(0)} ms`);
});

after(async () => {
  for (const c of clients) c.disconnect();
  await env?.down();
});

test('every master answers through its own proxied client link', async () => {
  const eps = await env.clientEndpoints('c1');
  assert.deepEqual(eps.map((e) => e.id), ['n1', 'n2', 'n3', 'n4', 'n5']);
  for (const ep of eps) {
    const node = env.node(ep.id);
    assert.notEqual(ep.port, node.port, 'client endpoint must be the proxy, not the server');
    const r = client(ep.port);
    await r.set('where', ep.id);
    // Independent masters: the value is on this node only (checked on the real port).
    const direct = client(node.port);
    assert.equal(await direct.get('where'), ep.id);
  }
  const links = env.links.filter((l) => l.from === 'client:c1');
  assert.deepEqual(links.map((l) => l.to).sort(), ['n1', 'n2', 'n3', 'n4', 'n5']);
  assert.equal(links[0]!.name, `client:c1->${links[0]!.to}`);
  // Asking again reuses the links.
  assert.deepEqual(await env.clientEndpoints('c1'), eps);
  const res = env.resourceEndpoint!();
  assert.equal(res.port, env.node('resource').port, 'the resource node is fault-free: no proxy');
  assert.equal(await client(res.port).ping(), 'PONG');
});

test('a disabled client link times out the command; enabled again it works', async () => {
  const [ep] = await env.clientEndpoints('c2');
  const r = client(ep!.port, { commandTimeout: 300 });
  assert.equal(await r.ping(), 'PONG');
  const proxy = await new Toxiproxy(env.proxyUrl).get('client:c2->n1');
  await proxy.update({ enabled: false, listen: proxy.listen, upstream: proxy.upstream });
  await assert.rejects(r.ping(), /timed out|Connection is closed|ECONNRESET|ECONNREFUSED|max retries/i);
  await proxy.update({ enabled: true, listen: proxy.listen, upstream: proxy.upstream });
  const fresh = client(ep!.port, { commandTimeout: 1000 });
  assert.equal(await fresh.ping(), 'PONG');
});

test('pause: commands hang while the node is stopped and complete after resume', async () => {
  const n2 = env.node('n2');
  const r = client(n2.port);
  await r.set('p', '1');
  await n2.pause();
  let settled = false;
  const pending = r.get('p').finally(() => { settled = true; });
  await new Promise((res) => setTimeout(res, 500));
  assert.equal(settled, false, 'GET must hang while redis-server is SIGSTOPped');
  await n2.resume();
  assert.equal(await pending, '1');
});

test('clock: +30 s expires a PX 20000 key at once; -30 s makes its PTTL grow', async () => {
  const n3 = env.node('n3');
  const r = client(n3.port);
  await r.set('short', 'x', 'PX', 20000);
  await n3.setClockOffsetMs(30_000);
  assert.equal(await r.get('short'), null);
  assert.equal(n3.clockOffsetMs(), 30_000);
  await n3.setClockOffsetMs(0);
  await r.set('short', 'x', 'PX', 20000);
  await n3.setClockOffsetMs(-30_000);
  const pttl = await r.pttl('short');
  assert.ok(pttl > 45_000 && pttl <= 50_000, `PTTL should be about 50000 after -30 s, got ${pttl}`);
  await n3.setClockOffsetMs(0);
});

test('kill and restart: aof-always keeps the data, none loses it; same port', async () => {
  const n4 = env.node('n4');
  const port = n4.port;
  await n4.restart({ persistence: 'aof-always' });
  const a = client(port);
  await a.set('durable', 'yes');
  const pid = n4.pid();
  await n4.kill();
  assert.equal(n4.pid(), undefined);
  await n4.restart();
  assert.notEqual(n4.pid(), pid);
  assert.equal(n4.port, port);
  const b = client(port);
  assert.equal(await b.get('durable'), 'yes', 'appendfsync always must keep an acknowledged write');
  await n4.kill();
  await n4.restart({ persistence: 'none' });
  const c = client(port);
  await c.set('volatile', 'yes');
  await n4.kill();
  await n4.restart({ persistence: 'none' });
  const d = client(port);
  assert.equal(await d.get('volatile'), null, 'without persistence a crash loses the data');
  assert.equal(await d.get('durable'), null);
});
