// A completion's durations, moved from the worker's instant to the recorder's later stamp.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { restamp } from '../../src/runner/restamp.ts';
import { checkHistory } from '../../checkers/index.ts';
import { build } from './report-fixtures.ts';

test('valid_ms shrinks and sent_ms grows by the time the message waited; nothing else changes', () => {
  assert.deepEqual(restamp({ valid_ms: 665, sent_ms: 120, lease_ms: 800, mode: 'write' }, 30.4), { valid_ms: 635, sent_ms: 150, lease_ms: 800, mode: 'write' });
  assert.deepEqual(restamp({ valid_ms: 665 }, 0), { valid_ms: 665 });
  assert.equal(restamp(undefined, 50), undefined);
  // Validity left when the worker saw the grant is no expired grant: at least 1 ms at the stamp.
  assert.deepEqual(restamp({ valid_ms: 5 }, 40), { valid_ms: 1 });
  // An expired grant stays what the lock gave.
  assert.deepEqual(restamp({ valid_ms: -3 }, 40), { valid_ms: -3 });
});

test('the stranger\'s history: c1\'s ok stamped 30 ms after its worker saw it overlapped c2\'s grant by 9 ms; restamped, it does not', () => {
  // c1 reported validity to 18.916 s as seen at its worker (18.221 s); its ok reached the recorder at 18.251 s.
  const ms = (s: number) => Math.round(s * 1e9);
  const history = (validMs: number) => build([
    { type: 'invoke', f: 'acquire', process: 12, key: 'k', time: ms(17.984), client: 'c1' },
    { type: 'invoke', f: 'acquire', process: 13, key: 'k', time: ms(18.088), client: 'c2' },
    { type: 'ok', f: 'acquire', process: 12, key: 'k', time: ms(18.251), lease_ms: 800, valid_ms: validMs },
    { type: 'ok', f: 'acquire', process: 13, key: 'k', time: ms(18.907), lease_ms: 800, valid_ms: 746 },
  ]);
  const asStamped = checkHistory(history(665), { model: 'mutex' });
  assert.equal(asStamped.valid, false, 'the worker\'s valid_ms at the recorder\'s stamp: a double holder of 9 ms');
  const moved = restamp({ valid_ms: 665 }, 30)!.valid_ms as number;
  assert.equal(moved, 635);
  assert.equal(checkHistory(history(moved), { model: 'mutex' }).valid, true);
});
