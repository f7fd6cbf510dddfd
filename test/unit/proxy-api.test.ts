// The fault proxy's API reports a request it leaves unanswered: what the request
// waits for, then how long its answer took (a hang in CI names its cause).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { ProxyApi } from '../../src/proxy/api.ts';

test('a request whose body is late is reported while it waits, and again when answered', async () => {
  const lines: string[] = [];
  const api = new ProxyApi({ warn: (l) => lines.push(l), slowMs: 200 });
  const url = new URL(await api.listen(0));
  try {
    const body = JSON.stringify({ name: 'late', listen: '127.0.0.1:0', upstream: '127.0.0.1:9' });
    const s = net.connect(Number(url.port), '127.0.0.1');
    await new Promise<void>((r) => s.once('connect', () => r()));
    let reply = '';
    s.on('data', (d: Buffer) => { reply += d.toString(); });
    s.write(`POST /proxies HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.slice(0, 5)}`);
    await new Promise((r) => setTimeout(r, 400));
    assert.deepEqual(lines, ['lockpick fault proxy: POST /proxies unanswered after 0.2 s, reading its body']);
    s.end(body.slice(5));
    await new Promise<void>((r) => s.once('close', () => r()));
    assert.match(reply, /^HTTP\/1.1 201/);
    assert.equal(lines.length, 2);
    assert.match(lines[1]!, /^lockpick fault proxy: POST \/proxies answered 201 after 0\.[2-9] s$/);
    // A prompt request says nothing.
    const v = await fetch(new URL('/version', url));
    assert.equal(v.status, 200);
    // No idle socket left to reuse: a reused keep-alive socket being closed once left a fetch waiting 300 s.
    assert.equal(v.headers.get('connection'), 'close');
    assert.equal(lines.length, 2);
  } finally {
    await api.close();
  }
});
