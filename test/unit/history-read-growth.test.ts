// The reader's buffers start small and double with each read that fills them (src/history/jsonl-lines.ts):
// whatever the line lengths (lines longer than the first buffer, longer than a chunk, a last line
// without '\n'), the lines handed on are exactly those of the file, numbered alike.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { FIRST_CHUNK_BYTES, forEachLineBytes } from '../../src/history/jsonl-lines.ts';
import { tmpHistory } from './history-tmp.ts';

const lineArb = fc.oneof(
  { weight: 8, arbitrary: fc.nat({ max: 200 }) },
  { weight: 1, arbitrary: fc.integer({ min: FIRST_CHUNK_BYTES - 2, max: 3 * FIRST_CHUNK_BYTES }) },
).map((n) => 'x'.repeat(n));

test('lines read through growing buffers are the file\'s lines, for any line lengths and chunk sizes', async () => {
  await fc.assert(fc.asyncProperty(
    fc.array(lineArb, { minLength: 1, maxLength: 400 }), fc.boolean(),
    fc.constantFrom(1 << 22, FIRST_CHUNK_BYTES + 1000, 3 * FIRST_CHUNK_BYTES),
    async (lines, lastNewline, chunk) => {
      const text = lines.join('\n') + (lastNewline ? '\n' : '');
      const p = tmpHistory(text);
      const got: [number, number][] = [];
      await forEachLineBytes(p, (buf, start, end, line) => {
        // Each line's bytes are 'x' only, so its length says whether it is the right one.
        for (let i = start; i < end; i++) if (buf[i] !== 120) throw new Error(`line ${line}: byte ${buf[i]} at ${i - start}`);
        got.push([line, end - start]);
      }, chunk, { maxLineBytes: 1 << 22 });
      const want = text.split('\n');
      if (want[want.length - 1] === '') want.pop(); // after the last '\n' (or an empty file): no line

      assert.deepEqual(got, want.map((l, i) => [i + 1, l.length]));
    },
  ), { numRuns: 40 });
});
