// lockpick's keys as NATS KV keys (src/locks/nats-kv.ts kvKey): NATS takes letters, digits and
// - / _ = . (no '.' at either end); any other byte is written =XX, so two keys never meet.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { kvKey } from '../../src/locks/nats-kv.ts';

const NATS_KEY = /^[-/_=.a-zA-Z0-9]+$/;

test('every key becomes a key NATS takes, one to one', () => {
  assert.equal(kvKey('r1-k0'), 'r1-k0');
  assert.equal(kvKey('run:7/k0'), 'run=3a7/k0');
  assert.equal(kvKey('.k.'), '=2ek=2e');
  fc.assert(fc.property(fc.string({ minLength: 1, maxLength: 40 }), fc.string({ minLength: 1, maxLength: 40 }), (a, b) => {
    const [x, y] = [kvKey(a), kvKey(b)];
    assert.match(x, NATS_KEY);
    assert.ok(!x.startsWith('.') && !x.endsWith('.'), x);
    assert.equal(x === y, a === b, `${a} → ${x}, ${b} → ${y}`);
  }));
});
