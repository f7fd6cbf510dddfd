import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HistoryBuilder } from '../../src/history/index.ts';
import type { HistoryEvent } from '../../src/history/types.ts';
import { findStaleUnlocks } from '../../src/runner/stale-unlock.ts';

const ms = 1e6;
function parse(events: HistoryEvent[]) {
  const b = new HistoryBuilder('t');
  events.forEach((e, i) => b.add(e, i + 1));
  return b.finish();
}
const ev = (type: HistoryEvent['type'], f: string, process: number, time: number, value?: unknown): HistoryEvent =>
  ({ type, f, process, key: 'k', time: time * ms, ...(value !== undefined ? { value } : {}) });

test('A: an unlock sent while another process holds the lock, reported ok', () => {
  const h = parse([
    ev('invoke', 'acquire', 0, 0), ev('ok', 'acquire', 0, 1),
    ev('invoke', 'acquire', 1, 2), ev('ok', 'acquire', 1, 900),
    ev('invoke', 'release', 0, 950), ev('ok', 'release', 0, 951),
  ]);
  const [a] = findStaleUnlocks(h, 800);
  assert.equal(a!.type, 'stale-release');
  assert.deepEqual(a!.processes, [0, 1]);
  assert.match(a!.message, /process 0 unlocked "k" at line 5 while process 1 held it/);
});

test('an owner-checked unlock that says lost is no stale unlock', () => {
  const h = parse([
    ev('invoke', 'acquire', 0, 0), ev('ok', 'acquire', 0, 1),
    ev('invoke', 'acquire', 1, 2), ev('ok', 'acquire', 1, 900),
    ev('invoke', 'release', 0, 950), ev('ok', 'release', 0, 951, { lost: true }),
  ]);
  assert.deepEqual(findStaleUnlocks(h, 800), []);
});

test('C: an unlock sent after the lease ran out, reported ok', () => {
  const h = parse([ev('invoke', 'acquire', 0, 0), ev('ok', 'acquire', 0, 1), ev('invoke', 'release', 0, 1300), ev('ok', 'release', 0, 1301)]);
  const [a] = findStaleUnlocks(h, 800);
  assert.match(a!.message, /499 ms after its 800 ms lease had run out/);
});

test('B: an unlock in flight across another acquire, then a third process gets in', () => {
  const h = parse([
    ev('invoke', 'acquire', 0, 0), ev('ok', 'acquire', 0, 1),
    ev('invoke', 'release', 0, 100),                       // GET matched, then a pause
    ev('invoke', 'acquire', 1, 200), ev('ok', 'acquire', 1, 801),
    ev('ok', 'release', 0, 900),                           // the DEL removed process 1's key
    ev('invoke', 'acquire', 2, 850), ev('ok', 'acquire', 2, 901),
  ]);
  const found = findStaleUnlocks(h, 800);
  assert.equal(found.length, 1);
  assert.deepEqual(found[0]!.processes, [0, 1, 2]);
});

test('B: the unlocking process itself may be the one that gets in next', () => {
  const h = parse([
    ev('invoke', 'acquire', 0, 0), ev('ok', 'acquire', 0, 1),
    ev('invoke', 'release', 0, 100),
    ev('invoke', 'acquire', 1, 200), ev('ok', 'acquire', 1, 801),
    ev('ok', 'release', 0, 900),
    ev('invoke', 'acquire', 0, 901), ev('ok', 'acquire', 0, 902),
  ]);
  assert.deepEqual(findStaleUnlocks(h, 800)[0]!.processes, [0, 1, 0]);
});

test('a clean history has none', () => {
  const h = parse([ev('invoke', 'acquire', 0, 0), ev('ok', 'acquire', 0, 1), ev('invoke', 'release', 0, 100), ev('ok', 'release', 0, 101),
    ev('invoke', 'acquire', 1, 102), ev('ok', 'acquire', 1, 103), ev('invoke', 'release', 1, 200), ev('ok', 'release', 1, 201)]);
  assert.deepEqual(findStaleUnlocks(h, 800), []);
});

test('B2: the unlock\'s reply raced the next acquire\'s reply, after the unlocker\'s lease had run out', () => {
  const h = parse([
    ev('invoke', 'acquire', 0, 0), ev('ok', 'acquire', 0, 1),
    ev('invoke', 'release', 0, 100),                        // paused after the compare
    ev('invoke', 'acquire', 1, 50),
    ev('invoke', 'acquire', 2, 60),
    ev('ok', 'release', 0, 1000),                           // its DEL ran just after process 1's SET…
    ev('ok', 'acquire', 1, 1001),                           // …whose reply came in second
    ev('ok', 'acquire', 2, 1050),
    ev('invoke', 'release', 1, 1100), ev('ok', 'release', 1, 1101),
  ]);
  const [a] = findStaleUnlocks(h, 800);
  assert.deepEqual(a!.processes, [0, 1, 2]);
  assert.match(a!.message, /finished 199 ms after its 800 ms lease had run out, while process 1's acquire was in flight/);
});

test('B2 needs the unlock to end after its own lease: a normal hand-over is not blamed', () => {
  const h = parse([
    ev('invoke', 'acquire', 0, 0), ev('ok', 'acquire', 0, 1),
    ev('invoke', 'acquire', 1, 50),
    ev('invoke', 'acquire', 2, 60),
    ev('invoke', 'release', 0, 100), ev('ok', 'release', 0, 101),
    ev('ok', 'acquire', 1, 102),
    ev('ok', 'acquire', 2, 150),                            // a double holder with another cause
  ]);
  assert.deepEqual(findStaleUnlocks(h, 800), []);
});
