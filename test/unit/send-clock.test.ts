// The worker's clock of the last write (src/runner/send-clock.ts), behind `sent_ms`: a write on a
// real socket or a gRPC request sets it, reset() forgets it, and nothing written means no figure.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import net from 'node:net';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { installSendClock } from '../../src/runner/send-clock.ts';

test('the time since the last socket write, from reset on', async () => {
  const clock = installSendClock();
  const server = net.createServer((s) => s.resume()).listen(0, '127.0.0.1');
  await once(server, 'listening');
  const sock = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
  await once(sock, 'connect');
  try {
    clock.reset();
    assert.equal(clock.sinceLastWrite(performance.now()), undefined, 'nothing written since reset');
    sock.write('SET k v\r\n');
    await sleep(60);
    const since = clock.sinceLastWrite(performance.now())!;
    assert.ok(since >= 55 && since < 1000, `${since} ms since the write`);
    sock.write('GET k\r\n');
    assert.ok(clock.sinceLastWrite(performance.now())! < 5, 'a later write moves it');
  } finally {
    sock.destroy();
    server.close();
  }
});

test('a gRPC-style HTTP/2 request counts as a write', async () => {
  const clock = installSendClock();
  const server = http2.createServer((_req, res) => res.end('ok')).listen(0, '127.0.0.1');
  await once(server, 'listening');
  const session = http2.connect(`http://127.0.0.1:${(server.address() as net.AddressInfo).port}`);
  try {
    await once(session, 'connect');
    clock.reset();
    await sleep(30);
    const before = performance.now();
    const req = session.request({ ':path': '/etcdserverpb.KV/Txn', ':method': 'POST' });
    req.end();
    req.resume();
    await once(req, 'end');
    const since = clock.sinceLastWrite(performance.now())!;
    assert.ok(since <= performance.now() - before + 1, `${since} ms: from the request, not before it`);
  } finally {
    session.close();
    server.close();
  }
});
