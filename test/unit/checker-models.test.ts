// Hand-written histories for every model rule of docs/history-format.md, with the verdict and what the
// report must say. Line n of a history is events[n-1].
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CheckInputError, checkHistory, MODELS, registerModel } from '../../checkers/index.ts';
import type { HistoryEvent } from '../../src/history/types.ts';
import type { CheckResult } from '../../checkers/types.ts';
import { toParsed } from '../support/history.ts';
import { seeded } from '../support/choices.ts';
import { injectWrongRead } from '../support/inject.ts';
import { simulateRegister } from '../support/register-sim.ts';

type T = HistoryEvent['type'];
const e = (type: T, f: string, process: number, value?: unknown): HistoryEvent =>
  value === undefined ? { type, f, process, key: 'k' } : { type, f, process, key: 'k', value };
/** invoke + completion back to back. */
const op = (type: T, f: string, p: number, value?: unknown) => [e('invoke', f, p), e(type, f, p, value)];
const check = (model: string, events: HistoryEvent[], timeLimitMs?: number): CheckResult => checkHistory(toParsed(events), { model, timeLimitMs });
const types = (r: CheckResult) => r.anomalies.map((a) => a.type);

test('mutex: sequential holds are valid; overlapping acquires are a double holder with lines and message', () => {
  assert.equal(check('mutex', [...op('ok', 'acquire', 0), ...op('ok', 'release', 0), ...op('ok', 'acquire', 1), ...op('ok', 'release', 1)]).valid, true);
  const r = check('mutex', [...op('ok', 'acquire', 0), ...op('ok', 'acquire', 1), ...op('ok', 'release', 0)]);
  assert.equal(r.valid, false);
  // And process 0's release, sent while process 1 held the lock, is a stale unlock.
  assert.deepEqual(types(r), ['double-holder', 'stale-release']);
  assert.deepEqual(r.anomalies[1]!.processes, [0, 1]);
  assert.match(r.anomalies[1]!.message, /process 0's release of lock "k" at line 5 returned ok, but process 0 was not the holder: process 0's hold from line 2 had been taken: process 1 acquired it at line 4 while process 0 still held it; the unlock freed the lock, which by then was process 1's/);
  assert.deepEqual(r.anomalies[0]!.processes, [0, 1]);
  assert.deepEqual(r.anomalies[0]!.lines, [2, 4, 5]);
  assert.equal(r.anomalies[0]!.message, `process 1's acquire at line 3 returned ok at line 4, but process 0 held lock "k" since line 2 (acquire ok) until its release at line 5: both held it from line 4 to line 5`);
});

test('mutex: a release may take effect before a concurrent acquire completes', () => {
  const events = [...op('ok', 'acquire', 0), e('invoke', 'release', 0), ...op('ok', 'acquire', 1), e('ok', 'release', 0)];
  assert.equal(check('mutex', events).valid, true);
});

test('mutex: lost lease ({"lost":true}) ends the hold at the release invoke', () => {
  const ok = [...op('ok', 'acquire', 0), e('invoke', 'release', 0), ...op('ok', 'acquire', 1), e('ok', 'release', 0, { lost: true })];
  assert.equal(check('mutex', ok).valid, true);
  const bad = [...op('ok', 'acquire', 0), ...op('ok', 'acquire', 1), ...op('ok', 'release', 0, { lost: true })];
  assert.deepEqual(types(check('mutex', bad)), ['double-holder']);
});

test('mutex: a lapse after a failed renew frees the lock; without it the holder keeps it to the end', () => {
  const lapse = [...op('ok', 'acquire', 0), ...op('fail', 'renew', 0), ...op('ok', 'release', 0, { lapse: true }), ...op('ok', 'acquire', 1)];
  assert.equal(check('mutex', lapse).valid, true);
  const noLapse = [...op('ok', 'acquire', 0), ...op('fail', 'renew', 0), ...op('ok', 'acquire', 1)];
  const r = check('mutex', noLapse);
  assert.deepEqual(types(r), ['double-holder']);
  assert.match(r.anomalies[0]!.message, /to the end of the history \(it never released it\)/);
});

test('mutex: a failed release ends the belief but leaves the lock held at the server', () => {
  const r = check('mutex', [...op('ok', 'acquire', 0), ...op('fail', 'release', 0), ...op('ok', 'acquire', 1)]);
  assert.deepEqual(types(r), ['nonlinearizable']);
  assert.deepEqual(r.anomalies[0]!.processes, [0, 1]);
  assert.deepEqual(r.anomalies[0]!.lines, [2, 3, 6]);
  assert.equal(r.anomalies[0]!.message, `process 1 acquired lock "k" at line 6 while process 0's lock was still held at the server: its release at line 3 failed and it has no lease`);
  // A retried release that succeeds frees it.
  assert.equal(check('mutex', [...op('ok', 'acquire', 0), ...op('fail', 'release', 0), ...op('ok', 'release', 0), ...op('ok', 'acquire', 1)]).valid, true);
});

test('mutex: info release frees at its invoke; info acquire need not take effect', () => {
  assert.equal(check('mutex', [...op('ok', 'acquire', 0), ...op('info', 'release', 0), ...op('ok', 'acquire', 1)]).valid, true);
  assert.equal(check('mutex', [...op('info', 'acquire', 0), ...op('ok', 'acquire', 1), ...op('ok', 'release', 1)]).valid, true);
  // unanswered at the end of the file = info
  assert.equal(check('mutex', [...op('ok', 'acquire', 0), e('invoke', 'release', 0), ...op('ok', 'acquire', 1)]).valid, true);
});

test('mutex: release or renew ok by a non-holder is stale; re-acquiring while holding is not allowed', () => {
  const r = check('mutex', [...op('ok', 'acquire', 0), ...op('ok', 'release', 0), ...op('ok', 'release', 0)]);
  assert.deepEqual(types(r), ['stale-release']);
  assert.deepEqual(r.anomalies[0]!.processes, [0]);
  assert.match(r.anomalies[0]!.message, /process 0's release of lock "k" at line 5 returned ok, but process 0 was not the holder: process 0's hold from line 2 had ended with its release at line 3/);
  assert.deepEqual(types(check('mutex', [...op('ok', 'renew', 2)])), ['stale-renew']);
  assert.deepEqual(types(check('mutex', [...op('ok', 'acquire', 0), ...op('ok', 'acquire', 0)])), ['nonlinearizable']);
});

test('reentrant-mutex: the holder nests; the lock frees only at the last release', () => {
  const nested = [...op('ok', 'acquire', 0), ...op('ok', 'acquire', 0), ...op('ok', 'release', 0), ...op('ok', 'release', 0), ...op('ok', 'acquire', 1)];
  assert.equal(check('reentrant-mutex', nested).valid, true);
  assert.equal(check('mutex', nested).valid, false);
  const early = [...op('ok', 'acquire', 0), ...op('ok', 'acquire', 0), ...op('ok', 'release', 0), ...op('ok', 'acquire', 1)];
  assert.deepEqual(types(check('reentrant-mutex', early)), ['double-holder']);
});

test('fenced-mutex: tokens must grow in acquire order', () => {
  const grow = [...op('ok', 'acquire', 0, { token: 1 }), ...op('ok', 'release', 0), ...op('ok', 'acquire', 1, { token: 2 })];
  assert.equal(check('fenced-mutex', grow).valid, true);
  for (const t of [1, 0]) {
    const r = check('fenced-mutex', [...op('ok', 'acquire', 0, { token: 1 }), ...op('ok', 'release', 0), ...op('ok', 'acquire', 1, { token: t })]);
    assert.deepEqual(types(r), ['stale-token']);
    assert.deepEqual(r.anomalies[0]!.processes, [0, 1]);
    assert.match(r.anomalies[0]!.message, new RegExp(`process 1's acquire of lock "k" returned token ${t} at line 6, but process 0 had already been given token 1 at line 2`));
  }
  // string tokens of digits compare as numbers
  assert.equal(check('fenced-mutex', [...op('ok', 'acquire', 0, { token: '9' }), ...op('ok', 'release', 0), ...op('ok', 'acquire', 1, { token: '10' })]).valid, true);
});

test('knossos-mutex: owner-unaware; an info acquire may take effect to explain a release', () => {
  const events = [...op('ok', 'acquire', 0), ...op('ok', 'release', 0), ...op('info', 'acquire', 1), ...op('ok', 'release', 2)];
  assert.equal(check('knossos-mutex', events).valid, true);
  assert.deepEqual(types(check('mutex', events)), ['stale-release']);
  const r = check('knossos-mutex', [...op('ok', 'acquire', 0), ...op('ok', 'release', 0), ...op('ok', 'release', 1)]);
  assert.deepEqual(types(r), ['nonlinearizable']);
  assert.deepEqual(r.anomalies[0]!.lines, [5, 6]);
  assert.match(r.anomalies[0]!.message, /process 1 released while the lock was free/);
});

test('register: reads return the last write (initially null); info writes may or may not have happened', () => {
  assert.equal(check('register', [...op('ok', 'read', 0, null), ...op('ok', 'write', 1, 3), ...op('ok', 'read', 0, 3)]).valid, true);
  assert.equal(check('register', [...op('info', 'write', 1, 3), ...op('ok', 'read', 0, 3), ...op('ok', 'read', 2, 3)]).valid, true);
  assert.equal(check('register', [...op('info', 'write', 1, 3), ...op('ok', 'read', 0, null)]).valid, true);
  const r = check('register', [...op('ok', 'write', 1, 3), ...op('ok', 'read', 0, 3), ...op('ok', 'read', 2, 4), ...op('ok', 'write', 1, 5)]);
  assert.equal(r.valid, false);
  const a = r.anomalies[0]!;
  assert.equal(a.type, 'nonlinearizable');
  assert.deepEqual(a.processes, [2]);
  assert.deepEqual(a.lines, [5, 6]);
  // The shortest failing prefix is the write, the good read and the bad read; trimmed from the
  // left, the bad read alone shows it, given the only state the earlier ops can leave.
  assert.deepEqual(a.ops, [2]);
  assert.match(a.message, /no order of the 3 operations on key "k" up to line 6 fits the register model/);
  assert.match(a.message, /From line 5 on \(nothing was in flight there\) the register could only be in state value 3, whatever the order of the 2 operations before; from there this one operation cannot take effect\./);
  assert.match(a.message, /process 2's read 4 \(lines 5–6\)/);
  assert.match(a.message, /process 2 read 4 but the register held 3/);
});

test('cas-register: cas needs the expected value; failed cas ops are dropped', () => {
  const events = [...op('ok', 'write', 0, 1), ...op('fail', 'cas', 1, [2, 3]), ...op('ok', 'cas', 1, [1, 2]), ...op('ok', 'read', 2, 2)];
  assert.equal(check('cas-register', events).valid, true);
  const r = check('cas-register', [...op('ok', 'write', 0, 1), ...op('ok', 'cas', 1, [2, 3])]);
  assert.match(r.anomalies[0]!.message, /cas 2→3 succeeded but the register held 1/);
});

test('per-key partitioning: keys are independent', () => {
  const a = (type: T, f: string, p: number, key: string): HistoryEvent => ({ type, f, process: p, key });
  const r = checkHistory(toParsed([a('invoke', 'acquire', 0, 'x'), a('ok', 'acquire', 0, 'x'), a('invoke', 'acquire', 1, 'y'), a('ok', 'acquire', 1, 'y')]), { model: 'mutex' });
  assert.equal(r.valid, true);
  assert.equal(r.keys, 2);
  assert.deepEqual(r.keys_detail, { x: { valid: true, ops: 1 }, y: { valid: true, ops: 1 } });
});

test('bad input: unknown model, ops the model does not know, malformed cas', () => {
  const h = toParsed([...op('ok', 'read', 0, 1)]);
  for (const name of ['nope', 'toString', '__proto__', 'constructor', 'hasOwnProperty']) {
    assert.throws(() => checkHistory(h, { model: name }), (err: Error) => err instanceof CheckInputError && err.message.startsWith(`unknown-model: there is no model named "${name}"\n  fix: use one of mutex`), name);
  }
  assert.throws(() => checkHistory(h, { model: 'mutex' }), (err: Error) => err instanceof CheckInputError &&
    /^simulated.jsonl:1: unknown-operation: model 'mutex' has no operation 'read'.*\n  fix: choose a model that has it with --model \(register, cas-register\)$/.test(err.message));
  assert.throws(() => checkHistory(toParsed([...op('ok', 'cas', 0, 7)]), { model: 'cas-register' }), /simulated.jsonl:1: bad-value: a cas needs "value": \[expected, new\], got 7\n  fix: /);
});

test('limits: a memory limit below the current use gives unknown with the reason, not a crash', () => {
  const r = checkHistory(toParsed([...op('ok', 'write', 0, 1)]), { model: 'register', maxMemoryBytes: 1 });
  assert.equal(r.valid, 'unknown');
  assert.match(r.reason ?? '', /memory limit of 0 MB reached/);
  assert.equal(r.keys_detail.k!.valid, 'unknown');
});

test('limits: a search past its time limit gives unknown with the reason and what it had found', () => {
  // ~7000 cas-register ops, a third of them unanswered, one impossible read in the middle. The
  // model counts the writes in its state, so the reachable states are too many for the quick
  // disproof (checkers/reach.ts) and the search must prove it: far longer than a second.
  const events: HistoryEvent[] = [];
  simulateRegister({ clients: 5, keys: 1, steps: 20_000, cas: true, infoPerMille: 200 }, seeded(7), (ev) => events.push(ev));
  const cas = MODELS['cas-register']!;
  registerModel({
    ...cas, name: 'test-counting-cas',
    step(s: string, o) {
      const [v, n] = s.split('|') as [string, string];
      const r = cas.step(v, o);
      return typeof r === 'string' ? `${r}|${o.f === 'read' ? n : Number(n) + 1}` : r;
    },
    init: () => 'null|0', hash: (s: string) => s,
  } as typeof cas);
  try {
    const r = checkHistory(toParsed(injectWrongRead(events, events.length >> 1).events), { model: 'test-counting-cas', timeLimitMs: 1000 });
    assert.equal(r.valid, 'unknown');
    assert.match(r.reason ?? '', /key "r0": time limit of 1000 ms reached before a verdict; partial result: the longest consistent order found places \d+ of the \d+ operations/);
  } finally { delete MODELS['test-counting-cas']; }
});

test('a read of a value nobody wrote is decided at once, however many unanswered ops precede it', () => {
  // The same history under cas-register: no state the register can reach allows the read.
  const events: HistoryEvent[] = [];
  simulateRegister({ clients: 5, keys: 1, steps: 20_000, cas: true, infoPerMille: 200 }, seeded(7), (ev) => events.push(ev));
  const bad = injectWrongRead(events, events.length >> 1);
  const t = performance.now();
  const r = checkHistory(toParsed(bad.events), { model: 'cas-register', timeLimitMs: 20_000 });
  assert.equal(r.valid, false);
  assert.ok(performance.now() - t < 10_000, 'decided without exhausting the search');
  const a = r.anomalies[0]!;
  assert.equal(a.type, 'nonlinearizable');
  assert.deepEqual(a.processes, bad.processes);
  assert.match(a.message, /read "never-written" \(lines \d+–\d+\) fits no state the cas-register can reach .*value null/);
});

test('registerModel: a user model is checked by the general search', () => {
  // A counter: inc adds 1, get ok must return the count.
  registerModel({
    name: 'test-counter', description: 'counter',
    init: () => 0,
    step: (s: number, o) => (o.f === 'inc' ? s + 1 : o.outcome !== 'ok' || o.value === s ? s : { inconsistent: true, reason: `get ${String(o.value)} but count ${s}` }),
    partition: (o) => o.key, hash: (s) => String(s), describe: (s) => `count ${s}`,
  });
  assert.ok(MODELS['test-counter']);
  assert.equal(check('test-counter', [...op('ok', 'inc', 0), ...op('ok', 'get', 1, 1)]).valid, true);
  assert.equal(check('test-counter', [...op('ok', 'inc', 0), ...op('ok', 'get', 1, 2)]).valid, false);
  assert.throws(() => registerModel({ name: 'broken' } as never), /model 'broken' has no init\(\) function/);
  delete MODELS['test-counter'];
});
