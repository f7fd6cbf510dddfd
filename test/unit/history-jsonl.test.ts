import { test } from 'node:test';
import assert from 'node:assert/strict';
import { detectFormat, readHistory, readJsonl } from '../../src/history/index.ts';
import { jsonl, tmpHistory } from './history-tmp.ts';

test('pairs invokes with completions into ops in invoke order, with lines, times and values', async () => {
  const p = tmpHistory(jsonl(
    { type: 'invoke', f: 'acquire', process: 0, key: 'k', time: 10 },
    { type: 'invoke', f: 'acquire', process: 1, key: 'k', time: 20 },
    { type: 'ok', f: 'acquire', process: 0, key: 'k', time: 30, value: { token: 7 } },
    { type: 'fail', f: 'acquire', process: 1, time: 40, error: 'held' },
    { type: 'invoke', f: 'write', process: 2, value: 5 },
  ));
  const h = await readHistory(p);
  assert.equal(h.events, 5);
  assert.equal(h.source, p);
  assert.deepEqual(h.ops.map((o) => [o.id, o.process, o.f, o.key, o.outcome]), [
    [0, 0, 'acquire', 'k', 'ok'], [1, 1, 'acquire', 'k', 'fail'], [2, 2, 'write', '', 'info'],
  ]);
  const [a, b, c] = h.ops;
  assert.deepEqual([a!.invokeLine, a!.completeLine, a!.invokeSeq, a!.completeSeq, a!.invokeTime, a!.completeTime], [1, 3, 0, 2, 10, 30]);
  assert.deepEqual(a!.value, { token: 7 });
  assert.equal(b!.completeLine, 4, 'a completion without key pairs with its keyed invoke');
  // Unanswered at the end of the file: treated like info, never completed.
  assert.equal(c!.invokeValue, 5);
  assert.equal(c!.completeLine, Infinity);
  assert.equal(c!.completeSeq, Infinity);
  assert.equal(c!.value, undefined);
});

test('an info completion gives outcome info and keeps the completion value', async () => {
  const h = await readHistory(tmpHistory(jsonl(
    { type: 'invoke', f: 'release', process: 3 },
    { type: 'info', f: 'release', process: 3, error: 'timeout', value: 'x' },
    { type: 'invoke', f: 'release', process: 4 },
  )));
  assert.deepEqual(h.ops.map((o) => [o.outcome, o.completeLine, o.value]), [['info', 2, 'x'], ['info', Infinity, undefined]]);
});

test('nemesis events are kept apart and not paired; blank lines and CRLF are fine; index counts events only', async () => {
  const text = [
    '{"type":"info","f":"partition-start","process":"nemesis","value":{"cut":["n1"]},"index":0,"time":5}',
    '',
    '{"type":"invoke","f":"acquire","process":0,"index":1}\r',
    '   ',
    '{"type":"info","f":"partition-start","process":"nemesis","index":2}',
    '{"type":"ok","f":"acquire","process":0,"index":3}',
  ].join('\n');
  const h = await readHistory(tmpHistory(text));
  assert.equal(h.events, 4);
  assert.deepEqual(h.nemesis, [
    { line: 1, seq: 0, f: 'partition-start', type: 'info', value: { cut: ['n1'] }, time: 5 },
    { line: 5, seq: 2, f: 'partition-start', type: 'info', value: undefined, time: undefined },
  ]);
  assert.equal(h.ops.length, 1);
  assert.deepEqual([h.ops[0]!.invokeLine, h.ops[0]!.completeLine, h.ops[0]!.outcome], [3, 6, 'ok']);
});

test('lines split across read chunks (tiny chunks, multi-byte UTF-8) read exactly as with one chunk', async () => {
  const events: object[] = [];
  for (let i = 0; i < 50; i++) {
    events.push({ type: 'invoke', f: 'acquire', process: i % 3, key: `schlüssel-€-${i % 4}`, index: 2 * i });
    events.push({ type: i % 5 ? 'ok' : 'fail', f: 'acquire', process: i % 3, key: `schlüssel-€-${i % 4}`, index: 2 * i + 1, note: '日本語' });
  }
  const p = tmpHistory(jsonl(...events).trimEnd()); // no newline at the end either
  const whole = await readJsonl(p);
  for (const chunk of [1, 2, 3, 7, 64]) {
    assert.deepEqual(await readJsonl(p, chunk), whole, `chunk size ${chunk}`);
  }
  assert.equal(whole.ops.length, 50);
  assert.equal(whole.ops[1]!.key, 'schlüssel-€-1');
});

test('a UTF-8 byte-order mark at the start is ignored (JSON Lines and EDN)', async () => {
  const j = await readHistory(tmpHistory('\ufeff' + jsonl({ type: 'invoke', f: 'acquire', process: 0 })));
  const e = await readHistory(tmpHistory('\ufeff[{:type :invoke, :f :acquire, :process 0}]', 'edn'));
  assert.deepEqual([j.ops.length, e.ops.length, j.ops[0]!.invokeLine, e.ops[0]!.invokeLine], [1, 1, 1, 1]);
});

test('an empty file is a history with no operations', async () => {
  const h = await readHistory(tmpHistory(''));
  assert.deepEqual([h.events, h.ops.length, h.nemesis.length], [0, 0, 0]);
});

test('format detection: by extension, else by the first meaningful character', async () => {
  assert.equal(await detectFormat(tmpHistory('[{:type :invoke}]', 'edn')), 'edn');
  assert.equal(await detectFormat(tmpHistory('{"type":"invoke"}', 'jsonl')), 'jsonl');
  assert.equal(await detectFormat(tmpHistory('\n  {"type":"invoke"}', 'log')), 'jsonl');
  assert.equal(await detectFormat(tmpHistory('{:type :invoke, :f :read, :process 0}', 'log')), 'edn');
  assert.equal(await detectFormat(tmpHistory('; comment\n[{:type :invoke}]', 'txt')), 'edn');
  assert.equal(await detectFormat(tmpHistory('(\n{:type :invoke}', 'history')), 'edn');
});
