// test-lane: beside (a server of its own; the coverage asked for is reached or its missing cells named, either way asserted)
// Fault-space coverage on a real redis-server: every search prints its coverage line and writes
// its grid, and --min-coverage 100 on a fenced lock either reaches every cell or is INCONCLUSIVE
// naming the cells it never hit (exit 3). A bad --min-coverage exits 2 before any server starts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { lockpick, tempStore } from './run-helpers.ts';

test('lockpick run prints its fault-space coverage; --min-coverage 100 reaches 100 % or names the cells missing (exit 3)', async () => {
  const r = await lockpick(['run', '--lock', 'redis-set-px-lua-fenced', '--faults', 'client-pause', '--property', 'resource', '--time', '40',
    '--shrink-time', '0', '--seed', '1', '--min-coverage', '100', '--store', tempStore(), '--json'], 120_000);
  assert.ok(r.code === 0 || r.code === 3, `exit ${r.code}: ${r.stderr.slice(-2000)}`);
  const cells = r.summary!.coverage.cells!;
  assert.ok(cells.total > 0 && cells.known.length === cells.total, 'the cells known are stored');
  assert.match(r.stderr, new RegExp(`coverage: ${cells.hit} of ${cells.total} cells \\(${cells.percent} %\\)`), 'the coverage line after the verdict');
  assert.ok(Object.values(cells.hits).some((n) => n > 0), 'some cell was hit');
  if (r.code === 3) {
    assert.ok(cells.percent < 100 && cells.missing.length > 0);
    const gap = r.summary!.gaps.find((g) => g.startsWith('fault-space coverage'));
    assert.ok(gap, `a gap names the coverage: ${r.summary!.gaps.join('; ')}`);
    assert.match(gap, /is below --min-coverage 100 %; never hit: client-pause@/);
    assert.ok(gap.includes(cells.missing[0]!), 'the first cell missing is named');
  } else {
    assert.equal(cells.percent, 100);
  }
  const dir = r.summary!.dir;
  const results = JSON.parse(readFileSync(path.join(dir, 'results.json'), 'utf8'));
  assert.deepEqual(results.coverage.cells.hits, cells.hits);
  assert.ok(existsSync(path.join(dir, 'coverage.html')), 'the grid is written beside results.json');
  assert.match(readFileSync(path.join(dir, 'junit.xml'), 'utf8'), /<property name="coverage" value="\d+ of \d+ cells/);
});

test('--min-coverage out of 0..100 exits 2 naming the option and its range', async () => {
  const r = await lockpick(['run', '--lock', 'redis-set-px-lua', '--faults', 'client-pause', '--min-coverage', '150', '--store', tempStore()], 30_000);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--min-coverage must be a percentage from 0 to 100 .*'150'/);
});
