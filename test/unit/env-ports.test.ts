// Ports for the servers lockpick starts (src/env/ports.ts): free, never twice, and below the
// kernel's ephemeral range, where no outgoing connection can take one between the check and the
// server's bind; a start that lost its port anyway is known by its words (src/env/local.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { freePort } from '../../src/env/ports.ts';
import { portTaken } from '../../src/env/index.ts';
import { PortTaken } from '../../src/env/node.ts';

test('free ports: distinct, bindable, below the ephemeral range', async () => {
  const ports = await Promise.all(Array.from({ length: 40 }, () => freePort()));
  assert.equal(new Set(ports).size, ports.length, 'never the same port twice');
  const first = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  for (const p of ports) assert.ok(p >= 10_000 && p < first, `port ${p} below ${first}`);
  // Each can be listened on.
  await Promise.all(ports.slice(0, 5).map((p) => new Promise<void>((resolve, reject) => {
    const s = net.createServer().once('error', reject).listen(p, '127.0.0.1', () => s.close(() => resolve()));
  })));
});

test('a port taken under a starting server is told apart from other failures', () => {
  assert.ok(portTaken(new Error('lockpick: etcd n2 (127.0.0.1:45747) exited during startup; log …: "error":"listen tcp 127.0.0.1:45747: bind: address already in use"')));
  assert.ok(portTaken(new Error('# Warning: Could not create server TCP listening socket 127.0.0.1:6379: bind: Address already in use')));
  assert.ok(portTaken(new PortTaken('n1', 4000)));
  assert.equal(portTaken(new Error('lockpick: redis n1 exited during startup: Bad directive or wrong number of arguments')), false);
  assert.equal(portTaken(undefined), false);
});
