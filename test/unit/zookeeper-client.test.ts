// The ZooKeeper recipes use the C client's numbers (result codes, create modes,
// watch event types) without loading the addon; they must be the addon's own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CreateMode, isAnswer, isNodeExists, isNoNode, ZK_CODES, ZkError, zookeeperAddon } from '../../src/locks/zookeeper-client.ts';

test('the codes the recipes use are the addon\'s (zookeeper.h)', () => {
  const native = (zookeeperAddon() as unknown as { constants: Record<string, number> }).constants;
  for (const [name, value] of Object.entries(ZK_CODES)) assert.equal(value, native[name], name);
  assert.equal(CreateMode.EPHEMERAL_SEQUENTIAL, native.ZOO_EPHEMERAL | native.ZOO_SEQUENCE);
});

test('an answer is a decided request; a lost connection, a timeout or our own close are not', () => {
  const err = (code: number) => new ZkError(code, 'create /x', 'text');
  assert.ok(isNoNode(err(ZK_CODES.ZNONODE)) && isNodeExists(err(ZK_CODES.ZNODEEXISTS)));
  assert.ok(isAnswer(err(ZK_CODES.ZNODEEXISTS)) && isAnswer(err(-112 /* ZSESSIONEXPIRED */)));
  for (const c of [ZK_CODES.ZCONNECTIONLOSS, ZK_CODES.ZOPERATIONTIMEOUT, ZK_CODES.ZCLOSING]) assert.ok(!isAnswer(err(c)), String(c));
  assert.ok(!isAnswer(new Error('zookeeper create /x: no answer within 1000 ms')));
});
