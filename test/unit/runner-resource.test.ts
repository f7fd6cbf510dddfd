import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkResource, type ResourceEntry } from '../../checkers/resource.ts';

let seq = 0;
const w = (client: string, process: number, read: number, prev: number, extra: Partial<ResourceEntry> = {}): ResourceEntry =>
  ({ key: 'k', seq: seq++, op: 'write', client, process, read, prev, value: read + 1, accepted: true, ...extra });

test('sequential increments: valid', () => {
  const r = checkResource([w('c1', 0, 0, 0), w('c2', 1, 1, 1), w('c1', 2, 2, 2)], { k: 3 });
  assert.equal(r.valid, true);
  assert.equal(r.accepted, 3);
  assert.match(r.message, /no update lost, no stale write accepted/);
});

test('two holders read the same value: a stale write and a lost update, named', () => {
  const r = checkResource([w('c1', 0, 0, 0), w('c2', 1, 0, 1)], { k: 1 });
  assert.equal(r.valid, false);
  assert.equal(r.lostUpdates, 1);
  assert.equal(r.staleWritesAccepted, 1);
  const stale = r.anomalies.find((a) => a.type === 'stale-write')!;
  assert.deepEqual(stale.processes, [1, 0]);
  assert.match(stale.message, /client c2 \(process 1\) read 0 but wrote 1 on top of 1, overwriting the update of client c1 \(process 0\)/);
});

test('fencing: rejected stale steps are counted as prevented, not as anomalies', () => {
  const r = checkResource([
    { key: 'k', seq: 0, op: 'read', client: 'c2', process: 1, prev: 0, accepted: true, token: 2 },
    w('c1', 0, 0, 0, { token: 1, accepted: false }),
    w('c2', 1, 0, 0, { token: 2 }),
  ], { k: 1 });
  assert.equal(r.valid, true);
  assert.equal(r.staleStepsPrevented, 1);
  assert.equal(r.fenced, true);
});

test('fencing: an accepted lower token, or an equal token from another client, is a stale-token anomaly', () => {
  const lower = checkResource([w('c2', 1, 0, 0, { token: 5 }), w('c1', 0, 1, 1, { token: 4 })], { k: 2 });
  assert.deepEqual(lower.anomalies.map((a) => a.type), ['stale-token']);
  const dup = checkResource([w('c1', 0, 0, 0, { token: 1 }), w('c2', 1, 1, 1, { token: 1 })], { k: 2 });
  assert.match(dup.anomalies[0]!.message, /token 1 after it had seen token 1 from client c1/);
});
