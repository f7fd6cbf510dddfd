import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ProcessMap } from '../../src/history/process-table.ts';

test('ProcessMap answers as a Map would, for small and large process ids, through any sequence of sets and deletes', () => {
  const id = fc.oneof(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 2 ** 24, max: 2 ** 24 + 3 }), fc.constant(2 ** 31));
  const step = fc.oneof(
    fc.record({ op: fc.constant('set' as const), p: id, v: fc.integer() }),
    fc.record({ op: fc.constant('delete' as const), p: id }),
  );
  fc.assert(fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
    const m = new ProcessMap<{ v: number }>();
    const ref = new Map<number, { v: number }>();
    for (const s of steps) {
      if (s.op === 'set') { const v = { v: s.v }; m.set(s.p, v); ref.set(s.p, v); }
      else assert.equal(m.delete(s.p), ref.delete(s.p));
      assert.equal(m.size, ref.size);
      for (const [p, v] of ref) { assert.equal(m.get(p), v); assert.ok(m.has(p)); }
      const got = [...m.values()].map((x) => x.v).sort((a, b) => a - b);
      assert.deepEqual(got, [...ref.values()].map((x) => x.v).sort((a, b) => a - b));
    }
    for (const p of [0, 5, 12, 2 ** 24, 2 ** 31]) if (!ref.has(p)) { assert.equal(m.get(p), undefined); assert.equal(m.has(p), false); }
  }), { numRuns: 500 });
});
