// canonical (checkers/values.ts) takes a finite number by String, not JSON.stringify: the same text
// for every number a history can hold, so register states hash and compare as before.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { canonical } from '../../checkers/values.ts';

test('canonical text of a number is its JSON, alone and inside arrays and objects', () => {
  const num = fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(-0, 2 ** 53, -(2 ** 53), 1e21, 1e-7, 5e-324));
  fc.assert(fc.property(num, (n) => {
    assert.equal(canonical(n), JSON.stringify(n));
    assert.equal(canonical([n, { b: n, a: n }]), `[${JSON.stringify(n)},{"a":${JSON.stringify(n)},"b":${JSON.stringify(n)}}]`);
  }), { numRuns: 2000 });
  assert.equal(canonical(Number.NaN), 'null');
  assert.equal(canonical(Infinity), 'null');
});
