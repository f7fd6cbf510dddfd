// The fault proxy's own I/O points (src/proxy/points.ts) over its HTTP API, in front of a real TCP
// echo server: a bound client's requests are counted per operation, the k-th one is held (it and
// everything after it on that link), the runner's long poll hears of it, and 'go' lets it on.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { ProxyApi } from '../../src/proxy/api.ts';

let api: ProxyApi;
let url: string;
let echo: net.Server;

const resp = (...args: string[]) => `*${args.length}\r\n${args.map((a) => `$${a.length}\r\n${a}\r\n`).join('')}`;

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; json?: any }> {
  const r = await fetch(url + path, { method, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const text = await r.text();
  return { status: r.status, json: text ? JSON.parse(text) : undefined };
}

/**
 * What comes back on `s` once `want` has (as many bytes), or after 5 s: a loaded machine (CI's
 * three lanes) may take longer than a fixed window to echo what went through.
 */
function echoed(s: net.Socket, want: string): Promise<string> {
  return new Promise((resolve) => {
    let got = '';
    const done = () => { clearTimeout(t); s.off('data', on); resolve(got); };
    const on = (d: Buffer) => { got += d.toString(); if (got.length >= want.length) done(); };
    const t = setTimeout(done, 5000);
    s.on('data', on);
  });
}

/** What comes back on `s` within `ms` (for what must not go through). */
function within(s: net.Socket, ms: number): Promise<string> {
  return new Promise((resolve) => {
    let got = '';
    const on = (d: Buffer) => { got += d.toString(); };
    s.on('data', on);
    setTimeout(() => { s.off('data', on); resolve(got); }, ms);
  });
}

before(async () => {
  echo = net.createServer((s) => s.pipe(s));
  await new Promise<void>((r) => echo.listen(0, '127.0.0.1', () => r()));
  api = new ProxyApi();
  url = await api.listen(0);
  const port = (echo.address() as net.AddressInfo).port;
  for (const name of ['client:c1->n1', 'client:c1->n2']) {
    assert.equal((await call('POST', '/proxies', { name, listen: '127.0.0.1:0', upstream: `127.0.0.1:${port}` })).status, 201);
  }
});

after(async () => {
  await api.close();
  await new Promise<void>((r) => echo.close(() => r()));
});

async function connect(name: string): Promise<net.Socket> {
  const { json } = await call('GET', `/proxies/${encodeURIComponent(name)}`);
  const s = net.connect(Number(json.listen.split(':').pop()), '127.0.0.1');
  await new Promise<void>((r) => s.once('connect', () => r()));
  return s;
}

test('the 2nd send of a release is held with what follows it on its link, other links go on, go lets it on', async () => {
  const bound = await call('PUT', '/points/c1', { proxies: ['client:c1->n1', 'client:c1->n2'], framing: 'resp', hold: ['send:release:2'] });
  assert.equal(bound.status, 200);
  const s = await connect('client:c1->n1');
  const other = await connect('client:c1->n2');
  // Before any operation nothing counts (a handshake).
  s.write(resp('HELLO', '3'));
  assert.equal(await echoed(s, resp('HELLO', '3')), resp('HELLO', '3'));
  await call('POST', '/points/c1/operation', { op: 'acquire' });
  s.write(resp('SET', 'k', 'v'));
  assert.equal(await echoed(s, resp('SET', 'k', 'v')), resp('SET', 'k', 'v'));
  await call('POST', '/points/c1/operation', { op: null, granted: true });
  await call('POST', '/points/c1/operation', { op: 'release' });
  s.write(resp('GET', 'k'));
  assert.equal(await echoed(s, resp('GET', 'k')), resp('GET', 'k'), '1st send of the release goes through');
  // The PING written after the DEL (a 3rd send: a read of its own) waits behind it.
  const del = resp('DEL', 'k');
  s.write(del);
  await new Promise((r) => setTimeout(r, 30));
  s.write(resp('PING'));
  const held = await call('GET', '/points/c1/held?wait_ms=2000');
  assert.equal(held.status, 200);
  assert.equal(held.json.point, 'send:release:2');
  assert.equal(held.json.command, 'DEL');
  assert.equal(await within(s, 200), '', 'nothing goes out while it is held');
  other.write(resp('GET', 'x'));   // the 4th send of the release, on another link: not held
  assert.equal(await echoed(other, resp('GET', 'x')), resp('GET', 'x'));
  assert.equal((await call('GET', '/points/c1/held?wait_ms=50')).status, 204, 'told once');
  const counts = await call('GET', '/points/c1');
  assert.deepEqual(counts.json.reached, { acquire: { sends: 1, grantedSends: 1 }, release: { sends: 4 } });
  const back = echoed(s, del + resp('PING'));
  assert.equal((await call('POST', '/points/c1/go', { id: held.json.id })).status, 204);
  assert.equal(await back, del + resp('PING'), 'held bytes go out in order');
  s.destroy(); other.destroy();
  assert.equal((await call('DELETE', '/points/c1')).status, 204);
});

test('unbinding lets every held request go; bad bodies are 400, unknown clients 404', async () => {
  await call('PUT', '/points/c1', { proxies: ['client:c1->n1'], framing: 'resp', hold: ['send:acquire:1'] });
  const s = await connect('client:c1->n1');
  await call('POST', '/points/c1/operation', { op: 'acquire' });
  const back = echoed(s, resp('SET', 'k', 'v'));
  // A request that arrives in two reads is held from its first byte.
  const set = resp('SET', 'k', 'v');
  s.write(set.slice(0, 5));
  assert.equal((await call('GET', '/points/c1/held?wait_ms=2000')).json.point, 'send:acquire:1');
  s.write(set.slice(5));
  await new Promise((r) => setTimeout(r, 50));
  await call('DELETE', '/points/c1');
  assert.equal(await back, set);
  s.destroy();
  assert.equal((await call('PUT', '/points/c2', { proxies: ['client:c1->n1'], framing: 'http3' })).status, 400);
  assert.equal((await call('PUT', '/points/c2', { proxies: ['nope'], framing: 'resp' })).status, 404);
  assert.equal((await call('POST', '/points/c9/operation', { op: 'release' })).status, 404);
  assert.equal((await call('GET', '/points/c9/held')).status, 404);
  await call('PUT', '/points/c2', { proxies: ['client:c1->n1'], framing: 'resp' });
  assert.equal((await call('POST', '/points/c2/operation', { op: 'unlock' })).status, 400);
  await call('DELETE', '/points/c2');
});

test('a QUIT sent by close() right after the last operation is not counted as its send', async () => {
  await call('PUT', '/points/c1', { proxies: ['client:c1->n1'], framing: 'resp' });
  const s = await connect('client:c1->n1');
  await call('POST', '/points/c1/operation', { op: 'release' });
  s.write(resp('DEL', 'k'));
  await echoed(s, resp('DEL', 'k'));
  s.write(resp('QUIT'));
  await echoed(s, resp('QUIT'));
  assert.deepEqual((await call('GET', '/points/c1')).json.reached, { release: { sends: 1 } });
  s.destroy();
  await call('DELETE', '/points/c1');
});

test("last_send_ms: when the client's bytes last reached any of its links, taken as they arrive, before a latency toxic holds them", async () => {
  assert.equal((await call('PUT', '/points/c1', { proxies: ['client:c1->n1', 'client:c1->n2'], framing: 'resp' })).status, 200);
  assert.equal((await call('GET', '/points/c1')).json.last_send_ms, null, 'none since the binding');
  const s = await connect('client:c1->n1');
  const other = await connect('client:c1->n2');
  const { monotonicMs } = await import('../../src/monotonic.ts');
  const t0 = monotonicMs();
  s.write(resp('SET', 'k', 'v'));
  assert.equal(await echoed(s, resp('SET', 'k', 'v')), resp('SET', 'k', 'v'));
  const first = (await call('GET', '/points/c1')).json.last_send_ms as number;
  assert.ok(first >= t0 && first <= monotonicMs(), `${first} within [${t0}, now]`);
  // The worker's reading (src/runner/proxy-send-clock.ts): ms from it to the ok; none when it came before the operation began.
  const { proxySentMs } = await import('../../src/runner/proxy-send-clock.ts');
  assert.equal(await proxySentMs({ url, client: 'c1' }, t0, first + 10.7), 10);
  assert.equal(await proxySentMs({ url, client: 'c1' }, first + 1, first + 10), undefined);
  assert.equal(await proxySentMs({ url, client: 'nobody' }, t0, first + 10), undefined, 'an unbound client: nothing to count from');
  // The other link, slowed 300 ms towards the server: its bytes count when they reach the proxy, not when they leave it.
  assert.equal((await call('POST', `/proxies/${encodeURIComponent('client:c1->n2')}/toxics`, { name: 'slow', type: 'latency', stream: 'upstream', attributes: { latency: 300 } })).status, 200);
  const t1 = monotonicMs();
  other.write(resp('GET', 'x'));
  const back = echoed(other, resp('GET', 'x'));
  await new Promise((r) => setTimeout(r, 100));
  const second = (await call('GET', '/points/c1')).json.last_send_ms as number;
  assert.ok(second >= t1 && second < t1 + 100, `${second - t1} ms after the write: at its arrival, not after the 300 ms toxic`);
  assert.equal(await back, resp('GET', 'x'));
  s.destroy(); other.destroy();
  assert.equal((await call('DELETE', `/proxies/${encodeURIComponent('client:c1->n2')}/toxics/slow`)).status, 204);
  assert.equal((await call('DELETE', '/points/c1')).status, 204);
});
