// Matching a server's session list to the upstream ends of a client's proxied connections
// (src/env/client-sessions.ts): by port, and by address when both sides give an IP address.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isPeer, parsePeer } from '../../src/env/client-sessions.ts';

test('parsePeer: host:port, IPv6 in brackets or bare, and nothing else', () => {
  assert.deepEqual(parsePeer('127.0.0.1:5432'), { host: '127.0.0.1', port: 5432 });
  assert.deepEqual(parsePeer('localhost:40001'), { host: 'localhost', port: 40001 });
  assert.deepEqual(parsePeer('[::1]:40001'), { host: '::1', port: 40001 });
  assert.deepEqual(parsePeer('::1:40001'), { host: '::1', port: 40001 });
  for (const bad of ['localhost', '127.0.0.1:', '127.0.0.1:x', '']) assert.equal(parsePeer(bad), undefined, bad);
});

test('isPeer: the port must match; the address too when both are IP addresses', () => {
  const peers = [{ host: '127.0.0.1', port: 40001 }, { host: '172.18.0.1', port: 40002 }];
  assert.ok(isPeer(peers, '127.0.0.1', 40001));
  assert.ok(isPeer(peers, '::ffff:127.0.0.1', 40001), 'an IPv4-mapped address is the same address');
  assert.ok(isPeer(peers, 'localhost', 40001), 'a server that resolves names (MariaDB) says localhost');
  assert.ok(isPeer(peers, null, 40002), 'no address given: the port decides');
  assert.ok(!isPeer(peers, '127.0.0.1', 40003), 'another port');
  assert.ok(!isPeer(peers, '10.0.0.7', 40001), "another machine's session with the same port is not the client's");
  assert.ok(!isPeer(peers, '127.0.0.1', null), 'a session with no port (a Unix socket) is nobody\'s here');
  assert.ok(!isPeer([], '127.0.0.1', 40001));
});
