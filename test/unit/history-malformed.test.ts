// Every malformed-input rule of docs/history-format.md: readHistory throws a HistoryError
// naming the line, the rule, what was expected and how to fix it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { HistoryError, readHistory } from '../../src/history/index.ts';
import { jsonl, tmpHistory } from './history-tmp.ts';

const HISTORIES = resolve(import.meta.dirname, '../../histories');
const expected = JSON.parse(readFileSync(join(HISTORIES, 'expected.json'), 'utf8')) as Record<string, { exit?: number; line?: number; rule?: string }>;

async function rejects(path: string, line: number, rule: string): Promise<HistoryError> {
  let err: unknown;
  try { await readHistory(path); } catch (e) { err = e; }
  assert.ok(err instanceof HistoryError, `${path}: expected a HistoryError, got ${String(err)}`);
  assert.equal(err.rule, rule, err.message);
  assert.equal(err.line, line, err.message);
  assert.equal(err.file, path);
  assert.ok(err.message.startsWith(`${path}:${line}: ${rule}: `), err.message);
  assert.ok(err.fix.length > 10 && err.message.includes('fix: '), 'the message says how to fix it');
  return err;
}

for (const [name, e] of Object.entries(expected)) {
  if (e.exit !== 2) continue;
  test(`histories/${name}: line ${e.line}, rule ${e.rule}`, async () => {
    await rejects(join(HISTORIES, name), e.line!, e.rule!);
  });
}

const I = (process: unknown, f = 'acquire', extra = {}) => ({ type: 'invoke', f, process, ...extra });
const OK = (process: unknown, f = 'acquire', extra = {}) => ({ type: 'ok', f, process, ...extra });

const CASES: [string, string, number, string][] = [
  ['missing type', jsonl(I(0), { f: 'acquire', process: 0 }), 2, 'unknown-type'],
  ['f not a string', jsonl({ type: 'invoke', f: 3, process: 0 }), 1, 'missing-f'],
  ['missing process', jsonl({ type: 'invoke', f: 'acquire' }), 1, 'bad-process'],
  ['negative process', jsonl(I(-1)), 1, 'bad-process'],
  ['fractional process', jsonl(I(1.5)), 1, 'bad-process'],
  ['numeric string process', jsonl(I('1')), 1, 'bad-process'],
  ['fractional time', jsonl(I(0, 'acquire', { time: 1.5 })), 1, 'bad-time'],
  ['index as a string', jsonl(I(0, 'acquire', { index: '0' })), 1, 'bad-index'],
  ['index off by one from the start', jsonl(I(0, 'acquire', { index: 1 })), 1, 'bad-index'],
  ['JSON null line', 'null\n', 1, 'not-an-object'],
  ['a JSON array of events', `[${JSON.stringify(I(0))}]\n`, 1, 'not-an-object'],
  ['truncated last line', `${JSON.stringify(I(0))}\n{"type":"ok","f":"acq`, 2, 'not-json'],
  ['completion after the process ended with info', jsonl(I(0), { type: 'info', f: 'acquire', process: 0 }, OK(0)), 3, 'completion-without-invoke'],
  ['completion of another process', jsonl(I(0), OK(1)), 2, 'completion-without-invoke'],
  ['fail with another f', jsonl(I(0, 'release'), { type: 'fail', f: 'acquire', process: 0 }), 2, 'completion-mismatch'],
  ['second invoke of another f', jsonl(I(0), I(0, 'release')), 2, 'second-invoke'],
  ['invoke after info, later on', jsonl(I(4), { type: 'info', f: 'acquire', process: 4 }, I(5), OK(5), I(4, 'release')), 5, 'invoke-after-info'],
];

for (const [what, text, line, rule] of CASES) {
  test(`JSON Lines, ${what}: line ${line}, rule ${rule}`, async () => { await rejects(tmpHistory(text), line, rule); });
}

const EDN_CASES: [string, string, number, string][] = [
  ['op map never closed at end of file', '[{:type :invoke, :f :acquire, :process 0}\n {:type :ok, :f :acquire', 2, 'edn-syntax'],
  ['vector never closed', '[{:type :invoke, :f :acquire, :process 0}\n', 1, 'edn-syntax'],
  ['string never closed', '[{:type :invoke, :f :acquire, :process 0, :error "oops}]\n', 1, 'edn-syntax'],
  ['stray closing bracket', '{:type :invoke, :f :acquire, :process 0}\n]\n', 2, 'edn-syntax'],
  ['something after the vector', '[{:type :invoke, :f :acquire, :process 0}]\n{:type :ok, :f :acquire, :process 0}\n', 2, 'edn-syntax'],
  ['a number where an op map should be', '[{:type :invoke, :f :acquire, :process 0}\n 42]', 2, 'edn-syntax'],
  ['unknown keyword type', '[{:type :invoke, :f :acquire, :process 0}\n {:type :success, :f :acquire, :process 0}]', 2, 'unknown-type'],
  ['keyword process other than :nemesis', '[{:type :invoke, :f :acquire, :process :n1}]', 1, 'bad-process'],
  ['second invoke', '({:type :invoke, :f :read, :process 0}\n {:type :invoke, :f :read, :process 0})', 2, 'second-invoke'],
  ['bad index', '{:type :invoke, :f :read, :process 0, :index 0}\n{:type :ok, :f :read, :process 0, :index 2}\n', 2, 'bad-index'],
];

for (const [what, text, line, rule] of EDN_CASES) {
  test(`EDN, ${what}: line ${line}, rule ${rule}`, async () => { await rejects(tmpHistory(text, 'edn'), line, rule); });
}

test('every malformed example in histories/ has an expected entry and vice versa', async () => {
  const { readdirSync } = await import('node:fs');
  const files = readdirSync(join(HISTORIES, 'malformed')).map((f) => `malformed/${f}`).sort();
  const listed = Object.keys(expected).filter((k) => k.startsWith('malformed/')).sort();
  assert.deepEqual(files, listed);
});
