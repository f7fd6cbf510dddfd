// Validity checked against physics (checkers/validity.ts): an acquire ok reporting more validity
// than its lease can have left, its last request having gone out sent_ms before it returned, is
// the lock's anomaly on its own, with one client; a correct Redlock's figures never are, however
// long the recorder's invoke→ok span (IPC, scheduling). Every checker path agrees.
import { tempDir } from '../support/temp-dir.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { checkHistory } from '../../checkers/index.ts';
import { checkJsonlStreaming } from '../../checkers/stream.ts';
import { TOLERANCE_MS } from '../../checkers/validity.ts';
import type { CheckResult } from '../../checkers/types.ts';
import type { HistoryEvent } from '../../src/history/types.ts';
import { readHistory } from '../../src/history/index.ts';
import { toParsed } from '../support/history.ts';

const ms = 1e6;
const types = (r: CheckResult) => r.anomalies.map((a) => a.type);

/** One client: acquire invoked at 0, ok at okAt ms with these figures, released 100 ms later. */
function one(okAt: number, figures: Record<string, number>): HistoryEvent[] {
  return [
    { type: 'invoke', f: 'acquire', process: 1, key: 'k', time: 0 },
    { type: 'ok', f: 'acquire', process: 1, key: 'k', time: okAt * ms, lease_ms: 800, ...figures },
    { type: 'invoke', f: 'release', process: 1, key: 'k', time: (okAt + 100) * ms },
    { type: 'ok', f: 'release', process: 1, key: 'k', time: (okAt + 101) * ms },
  ];
}

async function all(events: HistoryEvent[]): Promise<CheckResult[]> {
  const dir = tempDir('lockpick-overstated-');
  try {
    const file = join(dir, 'h.jsonl');
    writeFileSync(file, events.map((e) => JSON.stringify(e)).join('\n') + '\n');
    return [checkHistory(toParsed(events), { model: 'mutex' }), checkHistory(await readHistory(file), { model: 'mutex' }), await checkJsonlStreaming(file, { model: 'mutex' })];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('validity counted from after the votes (720 ms of votes, 790 ms reported of an 800 ms lease): overstated, one client, with the figures', async () => {
  for (const r of await all(one(725, { sent_ms: 720, valid_ms: 790 }))) {
    assert.equal(r.valid, false);
    assert.deepEqual(types(r), ['overstated-validity']);
    const a = r.anomalies[0]!;
    assert.deepEqual(a.processes, [1]);
    assert.deepEqual(a.lines, [1, 2]);
    assert.match(a.message, /reporting 790 ms of validity, but its 800 ms lease had at most 80 ms left: its last request went out 720 ms before the acquire returned \(710 ms overstated\)/);
  }
});

test('a correct Redlock is not flagged, however slow the IPC around it', async () => {
  // TTL 800 − elapsed 300 − drift 10: 490 ms, 488 left when the worker recorded it. The recorder
  // saw 900 ms from invoke to ok (a busy parent): a rule on that span would call 488 > 800 − 900 overstated.
  for (const r of await all(one(900, { sent_ms: 300, valid_ms: 488 }))) assert.deepEqual(types(r), []);
  // A retrying lock: its last round began long after the call did, only that round counts.
  for (const r of await all(one(700, { sent_ms: 2, valid_ms: 788 }))) assert.deepEqual(types(r), []);
});

test(`the bound allows ${TOLERANCE_MS} ms of rounding, and not one more`, async () => {
  for (const r of await all(one(310, { sent_ms: 300, valid_ms: 500 + TOLERANCE_MS }))) assert.deepEqual(types(r), []);
  for (const r of await all(one(310, { sent_ms: 300, valid_ms: 501 + TOLERANCE_MS }))) assert.deepEqual(types(r), ['overstated-validity']);
});

test('an acquire without sent_ms or lease_ms is not checked; a validity already over stays an expired grant', async () => {
  for (const r of await all(one(725, { valid_ms: 800 }))) assert.deepEqual(types(r), []);
  const noLease = one(725, { sent_ms: 720, valid_ms: 790 });
  delete noLease[1]!.lease_ms;
  for (const r of await all(noLease)) assert.deepEqual(types(r), []);
  const expired = one(900, { sent_ms: 720, valid_ms: -5 });
  expired.splice(2, 2, { type: 'invoke', f: 'release', process: 1, key: 'k', time: 900 * ms }, { type: 'ok', f: 'release', process: 1, key: 'k', time: 900 * ms, value: { lapse: true } });
  for (const r of await all(expired)) assert.deepEqual(types(r), ['expired-grant']);
});

test('sent_ms anywhere but an ok acquire, or not a number of 0 or more, is refused with its line', () => {
  const on = (type: HistoryEvent['type'], sent: unknown): HistoryEvent[] => [
    { type: 'invoke', f: 'acquire', process: 1, key: 'k', time: 0 }, { type, f: 'acquire', process: 1, key: 'k', time: ms, sent_ms: sent }];
  assert.throws(() => toParsed(on('fail', 5)), /:2: bad-sent: "sent_ms" belongs on an ok acquire.*on a "fail" of acquire/s);
  assert.throws(() => toParsed(on('ok', -1)), /bad-sent.*got -1/s);
  assert.throws(() => toParsed(on('ok', '5')), /bad-sent.*got "5"/s);
});
