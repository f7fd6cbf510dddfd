// Keys checked on two threads (checkers/threads.ts) give checkHistory's result: the same verdict,
// anomalies and per-key details in the same order, whichever thread decided which key; a user's
// model (known to this thread only) and the sweep models stay on one thread.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HistoryBuilder, type HistoryEvent } from '../../src/history/index.ts';
import { checkHistory, registerModel } from '../../checkers/index.ts';
import { casRegister } from '../../checkers/models/register.ts';
import { KEY_THREADS, checkHistoryOnThreads } from '../../checkers/threads.ts';
import type { CheckOptions, CheckResult } from '../../checkers/types.ts';
import { seeded } from '../support/choices.ts';
import { injectWrongRead } from '../support/inject.ts';
import { simulateRegister } from '../support/register-sim.ts';
import { simulateLock } from '../support/lock-sim.ts';

function parsed(events: readonly HistoryEvent[]) {
  const b = new HistoryBuilder('h.jsonl');
  events.forEach((e, i) => b.add(e, i + 1));
  return b.finish();
}

const timeless = (r: CheckResult) => ({ ...r, elapsed_ms: 0, check_ms: 0 });

async function same(events: readonly HistoryEvent[], o: CheckOptions, threaded = true): Promise<CheckResult> {
  const h = parsed(events);
  const one = checkHistory(h, o);
  KEY_THREADS.afterMs = 0;
  try {
    assert.deepEqual(timeless(await checkHistoryOnThreads(h, o)), timeless(one));
    KEY_THREADS.hereMax = 0; // every key on the second thread
    assert.deepEqual(timeless(await checkHistoryOnThreads(h, o)), timeless(one));
    if (threaded) assert.equal(KEY_THREADS.decidedThere, one.keys);
    KEY_THREADS.hereMax = 1; // the largest key here, the second thread started after it for the rest
    KEY_THREADS.afterMs = 1e-9;
    KEY_THREADS.minLeftMs = 0;
    assert.deepEqual(timeless(await checkHistoryOnThreads(h, o)), timeless(one));
    if (threaded) assert.equal(KEY_THREADS.decidedThere, one.keys - 1);
  } finally { KEY_THREADS.afterMs = 500; KEY_THREADS.minLeftMs = 3000; KEY_THREADS.hereMax = Infinity; }
  return one;
}

function registers(keys: number, seed: number, steps = 3000): HistoryEvent[] {
  const events: HistoryEvent[] = [];
  simulateRegister({ clients: 6, keys, steps, cas: true, infoPerMille: 30 }, seeded(seed), (e) => events.push(e));
  return events;
}

test('a valid register history on eight keys: every key valid, in partition order', async () => {
  const r = await same(registers(8, 1), { model: 'cas-register' });
  assert.equal(r.valid, true);
  assert.equal(r.keys, 8);
});

test('a wrong read on one key of eight: that key invalid, with the same window and words', async () => {
  for (const seed of [2, 3, 4]) {
    const events = registers(8, seed);
    const bad = injectWrongRead(events, Math.floor(events.length / 2)).events;
    const r = await same(bad, { model: 'cas-register' });
    assert.equal(r.valid, false);
    assert.equal(Object.values(r.keys_detail).filter((d) => d.valid === false).length, 1);
  }
});

test('the time limit holds on the second thread too: a limit already run out leaves every key unknown', async () => {
  const r = await same(registers(4, 5, 200), { model: 'cas-register', timeLimitMs: -1 });
  assert.equal(r.valid, 'unknown');
  assert.ok(Object.values(r.keys_detail).every((d) => d.valid === 'unknown'));
});

test('a user\'s model and a sweep model are checked on this thread, with the same result', async () => {
  registerModel({ ...casRegister, name: 'my-register' });
  const r = await same(registers(3, 6, 600), { model: 'my-register' }, false);
  assert.equal(r.valid, true);
  const lock: HistoryEvent[] = [];
  simulateLock({ clients: 5, keys: 4, steps: 2000, infoPerMille: 10, failPerMille: 20, renewPerMille: 0 }, seeded(7), (e) => lock.push(e));
  assert.equal((await same(lock, { model: 'mutex' }, false)).keys, 4);
});
