// A lock's real lease (src/locks/real-lease.ts): what lease_ms a TTL becomes, and how the
// servers' timescales (the TTL's floor, how long faults outlast a lease) take it in.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { realLeaseMs, withRealLease } from '../../src/locks/real-lease.ts';

test('whole seconds round a lease up; a minimum raises it; none declared: the TTL itself', () => {
  assert.equal(realLeaseMs(800, undefined), 800);
  assert.equal(realLeaseMs(800, { granularityMs: 1000 }), 1000);
  assert.equal(realLeaseMs(2000, { granularityMs: 1000 }), 2000);
  assert.equal(realLeaseMs(2001, { granularityMs: 1000 }), 3000);
  assert.equal(realLeaseMs(800, { minMs: 5000, granularityMs: 1000 }), 5000);
  assert.equal(realLeaseMs(800, { marginMs: 1000 }), 800, 'a margin is how long the server may keep it past the lease, not the lease');
});

test('the timescales: the TTL floor is the larger minimum, faults outlast a granule and the margin, and the header says so', () => {
  const t = { leaseMinMs: 1000, leaseLagMs: 500, said: ['servers'] };
  assert.equal(withRealLease(t, undefined), t);
  const w = withRealLease(t, { granularityMs: 1000, minMs: 3000, marginMs: 1000 });
  assert.equal(w.leaseMinMs, 3000);
  assert.equal(w.leaseLagMs, 2000);
  assert.deepEqual(w.said, ['servers', "the lock's real lease (its recipe): rounded up to 1000 ms, at least 3000 ms, held up to 1000 ms past it"]);
  // The servers' own bounds stay when they are the larger.
  const s = withRealLease({ leaseMinMs: 5000, leaseLagMs: 9000, said: [] }, { granularityMs: 1000 });
  assert.equal(s.leaseMinMs, 5000);
  assert.equal(s.leaseLagMs, 9000);
});
