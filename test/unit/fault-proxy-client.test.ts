// Every request of lockpick's fault-proxy client has a deadline: a server that takes the
// connection and never answers fails the call, naming the wait, instead of holding a run forever.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Socket } from 'node:net';
import { once } from 'node:events';
import { faultProxyClient } from '../../src/env/fault-proxy-client.ts';

test('a fault proxy that never answers fails each kind of request after the deadline, saying so', { timeout: 20_000 }, async () => {
  const held: Socket[] = [];
  const server = createServer((s) => { held.push(s); s.resume(); }); // reads the request, never answers
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  const url = `http://127.0.0.1:${port}`;
  try {
    const tp = faultProxyClient(url, 300);
    for (const [what, call] of [
      ['GET', () => tp.getAll()],
      ['POST', () => tp.createProxy({ name: 'a->b', listen: '127.0.0.1:1', upstream: '127.0.0.1:2' })],
    ] as const) {
      const t0 = Date.now();
      await assert.rejects(call(), (e: Error) => {
        assert.match(e.message, new RegExp(`^${what} ${url}/proxies: no answer from the fault proxy in 0.3 s$`));
        return true;
      });
      const waited = Date.now() - t0;
      assert.ok(waited >= 250 && waited < 5000, `the deadline is the one asked for: waited ${waited} ms`);
    }
  } finally {
    for (const s of held) s.destroy();
    server.close();
  }
});

test('a refused connection is not reported as a missing answer', async () => {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  await assert.rejects(faultProxyClient(`http://127.0.0.1:${port}`, 300).getAll(), (e: Error) => {
    assert.doesNotMatch(e.message, /no answer/);
    return true;
  });
});
