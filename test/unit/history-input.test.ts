// Bad input never becomes a verdict: invalid UTF-8 is rejected at its line (never merged into
// U+FFFD), and EDN `#_` discards exactly the next form.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { HistoryError, readEdn, readHistory, readJsonl } from '../../src/history/index.ts';
import { jsonl, tmpHistory } from './history-tmp.ts';

const line = (o: object) => Buffer.from(`${JSON.stringify(o)}\n`);
/** Two processes each acquire a key whose name has one invalid byte: a lenient reader merges them into one key. */
function twoKeysWithBadBytes(): Buffer {
  const key = (b: number) => Buffer.concat([Buffer.from('{"type":"ok","f":"acquire","process":'), Buffer.from(String(b - 0xfe)), Buffer.from(',"key":"k'), Buffer.from([b]), Buffer.from('"}\n')]);
  return Buffer.concat([
    line({ type: 'invoke', f: 'acquire', process: 0 }), line({ type: 'invoke', f: 'acquire', process: 1 }),
    key(0xfe), key(0xff),
  ]);
}

async function rejects(read: Promise<unknown>, wantLine: number, byte: string): Promise<void> {
  await assert.rejects(read, (e: unknown) => {
    assert.ok(e instanceof HistoryError, String(e));
    assert.equal(e.rule, 'not-utf8');
    assert.equal(e.line, wantLine);
    assert.match(e.message, new RegExp(`:${wantLine}: not-utf8: a history must be UTF-8; byte ${byte} is not valid UTF-8 here\\n  fix: re-encode the file as UTF-8`));
    return true;
  });
}

test('JSON Lines: invalid UTF-8 is rejected at its line, so two keys never merge into a false double holder', async () => {
  const p = tmpHistory('');
  writeFileSync(p, twoKeysWithBadBytes());
  await rejects(readHistory(p), 3, '0xfe');
  // Lines split across read chunks: the same line is named, whatever the chunk size.
  for (const chunk of [1, 7, 50]) await rejects(readJsonl(p, chunk), 3, '0xfe');
});

test('JSON Lines: a multi-byte character split across read chunks is fine; a truncated one at the end is not', async () => {
  const ok = tmpHistory(jsonl({ type: 'invoke', f: 'acquire', process: 0, key: 'clé€𝄞' }, { type: 'ok', f: 'acquire', process: 0, key: 'clé€𝄞' }));
  for (const chunk of [1, 2, 3, 5]) assert.equal((await readJsonl(ok, chunk)).ops[0]!.key, 'clé€𝄞');
  const p = tmpHistory('');
  writeFileSync(p, Buffer.concat([line({ type: 'invoke', f: 'acquire', process: 0 }), Buffer.from('{"type":"ok","f":"acquire","process":0,"key":"'), Buffer.from([0xe2, 0x82])]));
  await assert.rejects(readJsonl(p), (e: unknown) => e instanceof HistoryError && e.rule === 'not-utf8' && e.line === 2);
});

test('EDN: invalid UTF-8 is rejected at its line, also across read chunks', async () => {
  const p = tmpHistory('', 'edn');
  writeFileSync(p, Buffer.concat([
    Buffer.from('[{:type :invoke, :f :acquire, :process 0}\n {:type :ok, :f :acquire, :process 0, :key "k'), Buffer.from([0xff]), Buffer.from('"}]\n'),
  ]));
  await rejects(readHistory(p), 2, '0xff');
  for (const chunk of [1, 3, 16]) await rejects(readEdn(p, chunk), 2, '0xff');
});

const OP = (type: string, p: number, f = 'acquire') => `{:type :${type}, :f :${f}, :process ${p}}`;

test('EDN #_ discards exactly the next form: a map, a vector, a keyword, a string, and #_ #_ a b', async () => {
  const cases: [string, string][] = [
    ['before a map', `[${OP('invoke', 0)} #_ ${OP('ok', 9)} ${OP('ok', 0)}]`],
    ['before a keyword', `[${OP('invoke', 0)} #_ :x ${OP('ok', 0)}]`],
    ['before a vector', `[${OP('invoke', 0)} #_ [1 {:a 2}] ${OP('ok', 0)}]`],
    ['before a string', `[${OP('invoke', 0)} #_ "a } string" ${OP('ok', 0)}]`],
    ['before a number, no space', `[${OP('invoke', 0)} #_42 ${OP('ok', 0)}]`],
    ['nested #_ #_ a b', `[${OP('invoke', 0)} #_ #_ :a ${OP('ok', 9)} ${OP('ok', 0)}]`],
    ['before a tagged map', `[${OP('invoke', 0)} #_ #jepsen.history.Op${OP('ok', 9)} ${OP('ok', 0)}]`],
    ['one map per line', `${OP('invoke', 0)}\n#_ :gone\n${OP('ok', 0)}\n`],
    ['inside an op map', `[${OP('invoke', 0)} {:type :ok, #_ :f :f :acquire, :process 0}]`],
  ];
  for (const [name, text] of cases) {
    const p = tmpHistory(text, 'edn');
    for (const chunk of [1, 4, 1 << 20]) {
      const h = await readEdn(p, chunk);
      assert.deepEqual(h.ops.map((o) => [o.process, o.f, o.outcome]), [[0, 'acquire', 'ok']], `${name} (chunk ${chunk})`);
      assert.equal(h.events, 2, name);
    }
  }
});

test('EDN: a map after a discarded keyword is read (a false VALID before), and #_ with nothing after is an error', async () => {
  // Process 1 acquires while process 0 holds: the map after `#_ :note` must not be dropped.
  const text = `[${OP('invoke', 0)} ${OP('ok', 0)} #_ :note ${OP('invoke', 1)} ${OP('ok', 1)}]`;
  assert.equal((await readHistory(tmpHistory(text, 'edn'))).ops.length, 2);
  for (const bad of [`[${OP('invoke', 0)} #_]`, `${OP('invoke', 0)}\n#_`]) {
    await assert.rejects(readHistory(tmpHistory(bad, 'edn')), (e: unknown) => e instanceof HistoryError && e.rule === 'edn-syntax' && /#_ discards the next form, but none follows/.test(e.message));
  }
  await assert.rejects(readHistory(tmpHistory(`[${OP('invoke', 0)} "stray"]`, 'edn')), (e: unknown) => e instanceof HistoryError && /found ""stray""/.test(e.message));
});
