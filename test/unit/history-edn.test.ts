import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readEdn, readHistory, readJsonl } from '../../src/history/index.ts';
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
