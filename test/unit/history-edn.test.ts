import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HistoryError, readEdn, readHistory, readJsonl } from '../../src/history/index.ts';
import type { ParsedHistory } from '../../src/history/index.ts';
import { jsonl, tmpHistory } from './history-tmp.ts';

/** What the models see, without the source path. */
function shape(h: ParsedHistory) {
  return { ops: h.ops.map((o) => ({ ...o, invokeLine: 0, completeLine: 0 })), events: h.events, nemesis: h.nemesis.map((n) => ({ ...n, line: 0 })) };
}

const OPS = [
  '{:type :invoke, :f :acquire, :process 0, :time 100, :index 0}',
  '{:type :info, :f :start, :process :nemesis, :value "Cut off [:n3 #[:n4 :n5]]", :index 1}',
  '{:type :ok, :f :acquire, :process 0, :time 200, :value {:token 3}, :index 2}',
  '{:type :invoke, :f :release, :process 1, :index 3}',
  '{:type :fail, :f :release, :process 1, :error [:not-held "by 1"], :index 4}',
];

test('EDN vector, list and one-map-per-line forms read like the same history in JSON Lines', async () => {
  const asJson = await readJsonl(tmpHistory(jsonl(
    { type: 'invoke', f: 'acquire', process: 0, time: 100, index: 0 },
    { type: 'info', f: 'start', process: 'nemesis', value: 'Cut off [:n3 #[:n4 :n5]]', index: 1 },
    { type: 'ok', f: 'acquire', process: 0, time: 200, value: { token: 3 }, index: 2 },
    { type: 'invoke', f: 'release', process: 1, index: 3 },
    { type: 'fail', f: 'release', process: 1, error: ['not-held', 'by 1'], index: 4 },
  )));
  const forms = {
    vector: `[${OPS.join('\n ')}]\n`,
    list: `(${OPS.join('\n ')})`,
    lines: OPS.join('\n') + '\n',
  };
  for (const [name, text] of Object.entries(forms)) {
    const h = await readHistory(tmpHistory(text, 'edn'));
    assert.deepEqual(shape(h), shape(asJson), name);
    assert.deepEqual(h.ops.map((o) => [o.invokeLine, o.completeLine]), [[1, 3], [4, 5]], `${name}: line of each op map`);
    assert.equal(h.nemesis[0]!.line, 2);
  }
});

test('EDN op maps spanning lines report the line where each map starts; comments, commas and strings with brackets are skipped', async () => {
  const text = [
    '; a Jepsen history',                                   // 1
    '[{:process 0, :type :invoke, :f :read, :value nil}',   // 2
    ' ; the partition: a string with } ] ) and #[ inside',  // 3
    ' {:process :nemesis,',                                 // 4
    '  :type :info,',                                       // 5
    '  :f :start,',                                         // 6
    '  :value',                                             // 7
    '  "Cut off {:n1 #[:n2]} \\"quoted\\" ;not a comment"}', // 8
    ' {:process 0, :type :ok, :f :read, :value 3}, ',       // 9
    ' {:process 1, :type :invoke, :f :cas, :value [1 2]}',  // 10
    ' #jepsen.history.Op{:process 1, :type :ok, :f :cas, :value [1 2]}', // 11
    ' #_{:process 9, :type :bogus}',                        // 12 (discarded)
    ']',
  ].join('\n');
  const h = await readHistory(tmpHistory(text, 'edn'));
  assert.equal(h.events, 5);
  assert.deepEqual(h.nemesis.map((n) => [n.line, n.f, n.value]), [[4, 'start', 'Cut off {:n1 #[:n2]} "quoted" ;not a comment']]);
  assert.deepEqual(h.ops.map((o) => [o.f, o.invokeLine, o.completeLine, o.invokeValue, o.value, o.outcome]), [
    ['read', 2, 9, null, 3, 'ok'],
    ['cas', 10, 11, [1, 2], [1, 2], 'ok'],
  ]);
});

test('EDN op maps split across read chunks read exactly as with one chunk', async () => {
  const text = `[${OPS.join('\n ; comment with ] and "\n ')}]`;
  const p = tmpHistory(text, 'edn');
  const whole = await readEdn(p);
  for (const chunk of [1, 2, 5, 13]) assert.deepEqual(await readEdn(p, chunk), whole, `chunk size ${chunk}`);
});

test('EDN follows the same pairing rules as JSON Lines (unanswered invoke → info)', async () => {
  const h = await readHistory(tmpHistory('[{:type :invoke, :f :acquire, :process 2}]', 'edn'));
  assert.equal(h.ops[0]!.outcome, 'info');
  assert.equal(h.ops[0]!.completeLine, Infinity);
});

test('Clojure ratios (1/2, -3/4) read as numbers: in a field lockpick ignores, in value and in time', async () => {
  const text = [
    '[{:type :invoke, :f :acquire, :process 0, :time 4/2, :load 1/2, :index 0}',
    ' {:type :ok, :f :acquire, :process 0, :time 9/3, :value {:token -3/4, :share +1/4, :whole 8/4}, :rate [1/3 0/5], :index 1}]',
  ].join('\n');
  const h = await readHistory(tmpHistory(text, 'edn'));
  assert.equal(h.ops.length, 1);
  const op = h.ops[0]!;
  assert.equal(op.outcome, 'ok');
  assert.equal(op.invokeTime, 2);
  assert.equal(op.completeTime, 3);
  assert.deepEqual(op.value, { token: -0.75, share: 0.25, whole: 2 });
  // Numerator and denominator past 2^53 are divided as written: an exact quotient stays exact.
  const big = await readHistory(tmpHistory('{:type :invoke, :f :acquire, :process 0, :time 111199989796346443475308792/12345678901}', 'edn'));
  assert.equal(big.ops[0]!.invokeTime, 9007199254739992); // dividing the two as doubles gives 9007199254739991
});

test('a ratio in time that is not a whole number is refused by the time rule, naming the line', async () => {
  const text = '[{:type :invoke, :f :acquire, :process 0, :time 0}\n {:type :ok, :f :acquire, :process 0, :time 1/2}]';
  await assert.rejects(readHistory(tmpHistory(text, 'edn')), (e: unknown) =>
    e instanceof HistoryError && e.rule === 'bad-time' && e.line === 2 && /got 0\.5/.test(e.message));
});

test('malformed ratios (1/0, 1/, /2, 1/-2, 1.5/2) are refused with a clear message naming the line', async () => {
  const cases: [string, RegExp][] = [
    ['1/0', /the ratio "1\/0" divides by zero/],
    ['-7/000', /the ratio "-7\/000" divides by zero/],
    ['1/', /"1\/" is not an EDN number \(a ratio is two integers: 1\/2, -3\/4\)/],
    ['1/-2', /"1\/-2" is not an EDN number \(a ratio is two integers/],
    ['1.5/2', /"1\.5\/2" is not an EDN number/],
    ['/2', /"\/2" is neither an EDN number nor a symbol \(a ratio needs a numerator: 1\/2\)/],
    [`${'9'.repeat(400)}/3`, /is beyond what a number holds/],
  ];
  for (const [ratio, words] of cases) {
    const text = `[{:type :invoke, :f :acquire, :process 0}\n\n {:type :ok, :f :acquire, :process 0,\n  :extra ${ratio}}]`;
    await assert.rejects(readHistory(tmpHistory(text, 'edn')), (e: unknown) => {
      assert.ok(e instanceof HistoryError, String(e));
      assert.equal(e.rule, 'edn-syntax', ratio);
      assert.equal(e.line, 4, `${ratio}: ${e.message}`);
      assert.match(e.message, words);
      assert.match(e.message, /:4\b/, 'the message names file:line');
      return true;
    }, ratio);
  }
  // The slash alone is a symbol, and a namespaced keyword keeps its slash.
  const h = await readHistory(tmpHistory('{:type :invoke, :f :acquire, :process 0, :op /, :ns :jepsen.history/op}', 'edn'));
  assert.equal(h.ops.length, 1);
});
