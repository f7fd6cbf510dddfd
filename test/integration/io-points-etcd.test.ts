// test-lane: beside (its etcd member is its own; what it asserts waits on the held point, not on fine timing)
// I/O points on gRPC (src/runner/io-points-http2.ts) against a real one-member etcd: the etcd3
// client's requests go through Node's http2, past net.Socket, and each unary request is one
// send. A pause at the 2nd request of an acquire lands between its two requests: while it is
// held the 1st request's write is in etcd and the 2nd's is not; once answered, both are.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { Etcd3 } from 'etcd3';
import { installIoPoints } from '../../src/runner/io-points.ts';
import { createEtcdNode } from '../../src/env/etcd.ts';
import { freePort } from '../../src/env/ports.ts';
import { tempDir } from '../support/temp-dir.ts';

test('etcd3 on a real etcd: a pause at the 2nd gRPC request of an acquire lands between the two requests', async () => {
  const root = tempDir('lockpick-io-etcd-');
  const ports = { client: await freePort(), peer: await freePort() };
  const node = createEtcdNode({ id: 'n1', root, ports, cluster: [{ id: 'n1', ports }] });
  await node.start();
  const asked: { name: string; command?: string }[] = [];
  let answer: (() => void) | undefined;
  const io = installIoPoints((name, command) => {
    asked.push({ name, ...(command ? { command } : {}) });
    return new Promise<void>((resolve) => { answer = resolve; });
  });
  const hosts = `http://127.0.0.1:${ports.client}`;
  const client = new Etcd3({ hosts });
  const probe = new Etcd3({ hosts });   // reads etcd while the other is held (outside any operation: not counted)
  try {
    await client.put('warm').value('up');   // connected before the operation: the count starts at its 1st request
    io.arm([ports.client], ['send:acquire:2', 'reply:release:1']);
    io.operation('acquire');
    const op = (async () => {
      await client.put('first').value('1');
      await client.put('second').value('2');
    })();
    for (let i = 0; i < 300 && !answer; i++) await sleep(10);
    assert.deepEqual(asked, [{ name: 'send:acquire:2', command: 'Put' }], 'held at the 2nd request, named by its gRPC method');
    assert.deepEqual(io.counts(), { sends: 2, replies: 1 }, 'the 1st request answered, the 2nd counted once (not again by the socket hook)');
    // Between the two requests: etcd has the 1st write and not the 2nd.
    io.operation(undefined);
    assert.equal(await probe.get('first').string(), '1');
    assert.equal(await probe.get('second').string(), null);
    answer!();
    answer = undefined;
    await op;
    assert.equal(await probe.get('second').string(), '2');
    // A reply is held too: the Put is in etcd, its answer not yet seen by the client.
    io.operation('release');
    let done = false;
    const del = client.delete().key('first').exec().then((r) => { done = true; return r; });
    for (let i = 0; i < 300 && !answer; i++) await sleep(10);
    assert.equal(asked.at(-1)?.name, 'reply:release:1');
    assert.equal(await probe.get('first').string(), null, 'the delete went through');
    await sleep(50);
    assert.equal(done, false, 'its answer is held');
    answer!();
    assert.equal(Number((await del).deleted), 1);
  } finally {
    io.disarm();
    answer?.();
    client.close();
    probe.close();
    await node.kill();
  }
});
