// A lock that reports its own validity (docs/history-format.md: `valid_ms` on the acquire ok): a careful client
// believes it holds only that long, so a pause that outlasts the validity is no double holder, while
// a second grant inside it is; an acquire ok whose validity is already over is the lock's anomaly.
// Both checker paths (the sweep after reading, the streaming one) must agree.
import { tempDir } from '../support/temp-dir.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { checkHistory } from '../../checkers/index.ts';
import { checkJsonlStreaming } from '../../checkers/stream.ts';
import type { CheckResult } from '../../checkers/types.ts';
import type { HistoryEvent } from '../../src/history/types.ts';
import { readHistory } from '../../src/history/index.ts';
import { toParsed } from '../support/history.ts';

const ms = 1e6;
const ev = (type: HistoryEvent['type'], f: string, process: number, time: number, extra: Partial<HistoryEvent> = {}): HistoryEvent =>
  ({ type, f, process, key: 'k', time: time * ms, ...extra });
const types = (r: CheckResult) => r.anomalies.map((a) => a.type);

/** p1 gets the lock at 50 ms with `valid` ms of validity (800 ms lease), is paused, and records its lapse at 1300 ms; p2 gets it at `p2At`. */
function paused(valid: number | undefined, p2At: number): HistoryEvent[] {
  const v = valid === undefined ? {} : { valid_ms: valid };
  return [
    ev('invoke', 'acquire', 1, 0), ev('ok', 'acquire', 1, 50, { lease_ms: 800, ...v }),
    ev('invoke', 'acquire', 2, 100), ev('ok', 'acquire', 2, p2At, { lease_ms: 800 }),
    ev('invoke', 'release', 1, 1300), ev('ok', 'release', 1, 1300, { value: { lapse: true } }),
    ev('invoke', 'release', 2, 1400), ev('ok', 'release', 2, 1401),
  ].sort((a, b) => a.time! - b.time!);
}

async function both(events: HistoryEvent[]): Promise<CheckResult[]> {
  const dir = tempDir('lockpick-validity-');
  try {
    const file = join(dir, 'h.jsonl');
    writeFileSync(file, events.map((e) => JSON.stringify(e)).join('\n') + '\n');
    const read = checkHistory(await readHistory(file), { model: 'mutex' });
    const streamed = await checkJsonlStreaming(file, { model: 'mutex' });
    return [checkHistory(toParsed(events), { model: 'mutex' }), read, streamed];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a belief ends when the reported validity runs out, though the lapse is recorded later', async () => {
  // p2's grant at 900 ms: after p1's lease (800 ms from its invoke) and its validity (50 + 700 ms).
  for (const r of await both(paused(700, 900))) assert.deepEqual(types(r), []);
  // Without valid_ms the same history is a double holder: the belief runs to the lapse.
  for (const r of await both(paused(undefined, 900))) assert.deepEqual(types(r), ['double-holder']);
});

test('a second grant inside the reported validity is a double holder, its words name the validity', async () => {
  // A lock that reported 1000 ms of validity (longer than its 800 ms lease: wrong), p2 granted at 900 ms.
  for (const r of await both(paused(1000, 900))) {
    assert.deepEqual(types(r), ['double-holder']);
    assert.deepEqual(r.anomalies[0]!.processes, [1, 2]);
    assert.match(r.anomalies[0]!.message, /until the validity its lock reported ran out \(1000 ms after line 2\)/);
  }
});

test('an acquire ok with its validity already over is an expired grant, named with the figures', async () => {
  const events = [
    ev('invoke', 'acquire', 1, 0), ev('ok', 'acquire', 1, 900, { lease_ms: 800, valid_ms: -74 }),
    ev('invoke', 'release', 1, 900), ev('ok', 'release', 1, 900, { value: { lapse: true } }),
  ];
  for (const r of await both(events)) {
    assert.deepEqual(types(r), ['expired-grant']);
    assert.match(r.anomalies[0]!.message, /valid_ms -74: 74 ms past the end it reported, after an acquire of 900 ms/);
  }
});

test('valid_ms anywhere but an ok acquire or ok renew, or not a finite number, is refused with its line', async () => {
  const bad = [ev('invoke', 'acquire', 1, 0), ev('fail', 'acquire', 1, 10, { valid_ms: 5 })];
  assert.throws(() => toParsed(bad), /:2: bad-valid: "valid_ms" belongs on an ok acquire or an ok renew/);
  const failedRenew = [ev('invoke', 'acquire', 1, 0), ev('ok', 'acquire', 1, 10), ev('invoke', 'renew', 1, 20), ev('fail', 'renew', 1, 30, { valid_ms: 5 })];
  assert.throws(() => toParsed(failedRenew), /:4: bad-valid: .*on a "fail" of renew/);
  const renewInvoke = [ev('invoke', 'acquire', 1, 0), ev('ok', 'acquire', 1, 10), ev('invoke', 'renew', 1, 20, { sent_ms: 1 })];
  assert.throws(() => toParsed(renewInvoke), /:3: bad-sent: .*on a "invoke" of renew/);
  const str = [ev('invoke', 'acquire', 1, 0), ev('ok', 'acquire', 1, 10, { valid_ms: '5' as unknown as number })];
  assert.throws(() => toParsed(str), /"valid_ms".*got "5"/s);
});

/**
 * p1 gets the lock at 50 ms (800 ms lease, 700 ms of validity), renews at 600–610 ms (the renew
 * reporting `renewValid` ms, or nothing), is paused and records its lapse at 2000 ms; p2 gets
 * the lock at `p2At`. Under the mutex model the lease moved by the renew runs to 1410 ms.
 */
function renewing(renewValid: number | undefined, p2At: number, sent?: number): HistoryEvent[] {
  const v = renewValid === undefined ? {} : { valid_ms: renewValid, ...(sent !== undefined ? { sent_ms: sent } : {}) };
  return [
    ev('invoke', 'acquire', 1, 0), ev('ok', 'acquire', 1, 50, { lease_ms: 800, valid_ms: 700 }),
    ev('invoke', 'renew', 1, 600), ev('ok', 'renew', 1, 610, v),
    ev('invoke', 'acquire', 2, 700), ev('ok', 'acquire', 2, p2At, { lease_ms: 800 }),
    ev('invoke', 'release', 1, 2000), ev('ok', 'release', 1, 2000, { value: { lapse: true } }),
    ev('invoke', 'release', 2, 2100), ev('ok', 'release', 2, 2101),
  ].sort((a, b) => a.time! - b.time!);
}

test('a renew that reports its validity moves the belief\'s end: a grant inside the renewed validity is a double holder', async () => {
  // p2 granted at 1500 ms: past the renewed lease (1410 ms) but inside the 1000 ms the renew
  // reported (610 + 1000 = 1610 ms, more than its lease can have left: overstated too). The belief
  // runs to 1610 ms, so the two overlap; cut at the acquire's validity (750 ms) they would not.
  for (const r of await both(renewing(1000, 1500))) {
    assert.deepEqual(types(r), ['double-holder']);
    assert.match(r.anomalies[0]!.message, /until the validity its lock reported ran out \(1000 ms after line 4, its renew\)/);
  }
  // The renew reported 700 ms (610 + 700 = 1310 ms): the careful client stopped before p2's grant.
  for (const r of await both(renewing(700, 1500))) assert.deepEqual(types(r), []);
  // A renew that reports no validity leaves the acquire's (750 ms): the client cannot count on more.
  for (const r of await both(renewing(undefined, 1500))) assert.deepEqual(types(r), []);
});

test('a renew that reports more validity than its lease can have left is overstated, named as the renew', async () => {
  // 900 ms reported when its last request went out 20 ms before the renew returned: at most 780 ms of the 800 ms lease (its acquire's) was left.
  for (const r of await both(renewing(900, 2050, 20))) {
    assert.deepEqual(types(r), ['overstated-validity']);
    assert.match(r.anomalies[0]!.message, /process 1's renew of lock "k" at line 3 returned ok at line 4 reporting 900 ms of validity, but its 800 ms lease had at most 780 ms left/);
  }
  for (const r of await both(renewing(770, 2050, 20))) assert.deepEqual(types(r), []);
});

test('a renew ok with its validity already over is an expired grant, named as the renew; the belief ends there', async () => {
  // The renew took 877 ms and reports -77 ms: it said it renewed a hold that had run out. p2's grant after it is no double holder.
  const events = renewing(-77, 1500).map((e) => (e.f === 'renew' && e.type === 'ok' ? { ...e, time: 1477 * ms } : e)).sort((a, b) => a.time! - b.time!);
  for (const r of await both(events)) {
    assert.deepEqual(types(r), ['expired-grant']);
    assert.match(r.anomalies[0]!.message, /process 1's renew of lock "k" at line 3 returned ok at line 5 with its validity already over \(valid_ms -77: 77 ms past the end it reported, after a renew of 877 ms\): a lock must not say it renewed a hold that has run out/);
  }
});

test('a semaphore\'s belief is moved by its renew\'s reported validity the same way', () => {
  const sem = (e: HistoryEvent): HistoryEvent => (e.f === 'acquire' ? { ...e, limit: 1 } : e);
  const check = (events: HistoryEvent[]) => checkHistory(toParsed(events.map(sem)), { model: 'semaphore' });
  const over = check(renewing(1000, 1500));
  assert.deepEqual(types(over), ['over-admission']);
  assert.match(over.anomalies[0]!.message, /2 permits of 1 were held at once by 2 clients, from line 6 until process 1's reported validity ran out/);
  assert.deepEqual(types(check(renewing(700, 1500))), []);
  assert.deepEqual(types(check(renewing(undefined, 1500))), []);
});
