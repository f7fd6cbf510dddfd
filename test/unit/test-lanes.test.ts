// scripts/test-lanes.mjs fills the lanes beside the serial one: longest file first, each to the
// lane with the least time so far (the first lane starts with the unit tests' time), a file the
// weights do not list counting as their median; the same lanes on every machine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from '../support/temp-dir.ts';

function lanes(weights: string, n: number, files: string[]): string[][] {
  const dir = tempDir('lockpick-lanes-');
  try {
    const w = path.join(dir, 'w.tsv');
    writeFileSync(w, weights);
    const out = execFileSync(process.execPath, ['scripts/test-lanes.mjs', String(n), ...files], { encoding: 'utf8', env: { ...process.env, LOCKPICK_LANE_WEIGHTS: w } });
    return out.split('\n').slice(0, n).map((l) => (l ? l.split(' ') : []));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('longest first to the lightest lane, the first lane holding the unit tests\' time', () => {
  const w = '# header\nunit tests\t100\na\t90\nb\t80\nc\t50\nd\t40\ne\t10\n';
  // Lane 0 starts at 100: a→1 (90), b→2 (80), c→2 (130), d→1 (130), e→0 (110).
  assert.deepEqual(lanes(w, 3, ['e', 'd', 'c', 'b', 'a']), [['e'], ['a', 'd'], ['b', 'c']]);
});

test('a file the weights do not list counts as their median; without weights the lanes take turns', () => {
  const w = 'unit tests\t0\na\t10\nb\t20\nc\t30\n';
  // 'new' counts as 20 (the median): c→0 (30), b→1 (20), new→1 (40), a→0 (40).
  assert.deepEqual(lanes(w, 2, ['a', 'b', 'c', 'new']), [['c', 'a'], ['b', 'new']]);
  assert.deepEqual(lanes('', 2, ['x', 'y', 'z']), [['x', 'z'], ['y']]);
  assert.deepEqual(lanes('', 3, ['x']), [['x'], [], []]);
});
