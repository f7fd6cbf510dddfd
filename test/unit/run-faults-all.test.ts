// `--faults all`: every kind the lock's topology and the environment kind can do, no more.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { allFaults, parseFaults, recipeFor } from '../../src/options.ts';
import { KINDS } from '../../nemesis/index.ts';

test("'all' expands per topology and environment kind; it stands alone", async () => {
  const redis = await allFaults(await parseFaults('all'), await recipeFor({ name: 'redis-set-px-lua' }), 'local');
  for (const k of ['partition', 'pause', 'kill', 'clock-bump', 'client-pause', 'client-kill']) assert.ok(redis.includes(k), k);
  assert.ok(!redis.includes('failover'), 'failover needs redis-sentinel');
  assert.ok(!redis.includes('keepalive-cut'), 'keepalive-cut needs a lock with a keepalive connection');
  assert.ok((await allFaults(['all'], await recipeFor({ name: 'etcd-lease-lock' }), 'local')).includes('keepalive-cut'), 'etcd-lease-lock has one');
  const sentinel = await allFaults(['all'], await recipeFor({ name: 'redis-sentinel' }), 'local');
  assert.deepEqual(sentinel, KINDS.map((k) => k.schema.kind).filter((k) => k === 'failover' || redis.includes(k)));
  const external = await allFaults(['all'], await recipeFor({ name: 'redis-set-px-lua' }), 'external');
  assert.ok(external.includes('client-pause') && !external.includes('kill') && !external.includes('pause'), external.join());
  assert.deepEqual(await allFaults(['kill'], await recipeFor({ name: 'redis-set-px-lua' }), 'local'), ['kill']);
  await assert.rejects(parseFaults('all,kill'), /--faults all stands alone/);
});
