// Hostile input to the history readers (issue 21): a file with no newline, lines past
// --max-line-bytes, limits reached while reading, integers beyond 2^53, numbers that are not
// finite and duplicate keys are refused with the line, never a crash or a false verdict.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { HistoryError, ReadLimitReached, readHistory } from '../../src/history/index.ts';
import { readJsonl } from '../../src/history/jsonl.ts';
import { readEdn } from '../../src/history/edn.ts';
import { jsonl, tmpHistory } from './history-tmp.ts';

const ROOT = resolve(import.meta.dirname, '../..');

async function refused(p: Promise<unknown>, line: number, rule: string, words?: RegExp): Promise<HistoryError> {
  const e = await p.then(() => undefined, (err: unknown) => err);
  assert.ok(e instanceof HistoryError, `expected a HistoryError, got ${String(e)}`);
  assert.equal(e.line, line, e.message);
  assert.equal(e.rule, rule, e.message);
  if (words) assert.match(e.message, words);
  return e;
}

const inv = (p: unknown, extra: object = {}) => ({ type: 'invoke', f: 'acquire', process: p, key: 'k', ...extra });

test('/dev/zero (no newline, endless) is a line too long at line 1, not an abort', async () => {
  await refused(readHistory('/dev/zero'), 1, 'line-too-long', /--max-line-bytes/);
  await refused(readHistory('/dev/zero', { maxLineBytes: 1000 }), 1, 'line-too-long', /1000 bytes/);
});

test('a line past maxLineBytes is named by its number, whatever the chunk size', async () => {
  const long = JSON.stringify(inv(1, { pad: 'x'.repeat(300) }));
  const path = tmpHistory(jsonl(inv(0)) + `${long}\n` + jsonl({ type: 'ok', f: 'acquire', process: 0, key: 'k' }));
  for (const chunk of [7, 64, 1 << 16]) {
    await refused(readJsonl(path, chunk, { maxLineBytes: 200 }), 2, 'line-too-long');
  }
  const last = tmpHistory(jsonl(inv(0)) + long); // the last line, with no newline
  await refused(readJsonl(last, 16, { maxLineBytes: 200 }), 2, 'line-too-long');
  const ok = await readJsonl(path, 7, { maxLineBytes: 400 });
  assert.equal(ok.ops.length, 2);
});

test('an EDN op map past maxLineBytes is named by the line it starts on', async () => {
  const path = tmpHistory(`[{:type :invoke, :f :acquire, :process 0}\n {:type :ok, :f :acquire, :process 0, :value "${'y'.repeat(500)}"}]\n`, 'edn');
  await refused(readEdn(path, 32, { maxLineBytes: 100 }), 2, 'line-too-long', /op map/);
  assert.equal((await readEdn(path, 32)).ops.length, 1);
});

test('a limit reached while reading stops the reading (ReadLimitReached), JSON Lines and EDN', async () => {
  const lines = Array.from({ length: 200 }, (_, i) => [inv(i), { type: 'ok', f: 'acquire', process: i, key: 'k' }]).flat();
  const path = tmpHistory(jsonl(...lines));
  let asked = 0;
  const e = await readJsonl(path, 256, { limit: () => (++asked > 3 ? 'time limit of 1 ms reached' : undefined) }).catch((x: unknown) => x);
  assert.ok(e instanceof ReadLimitReached, String(e));
  assert.match(e.message, /time limit of 1 ms reached while reading/);
  const edn = tmpHistory('[' + '{:type :invoke, :f :read, :process 0}\n{:type :ok, :f :read, :process 0}\n'.repeat(50) + ']', 'edn');
  asked = 0;
  const e2 = await readEdn(edn, 64, { limit: () => (++asked > 2 ? 'memory limit' : undefined) }).catch((x: unknown) => x);
  assert.ok(e2 instanceof ReadLimitReached, String(e2));
});

test('process ids beyond 2^53 are refused with the line (they would collapse into one and hide a stale release)', async () => {
  // 9007199254740992 and …993 parse to the same double: read as one process, this history looked VALID.
  const text = '{"type":"invoke","f":"acquire","process":9007199254740992,"key":"k"}\n{"type":"ok","f":"acquire","process":9007199254740992,"key":"k"}\n'
    + '{"type":"invoke","f":"release","process":9007199254740993,"key":"k"}\n{"type":"ok","f":"release","process":9007199254740993,"key":"k"}\n';
  await refused(readJsonl(tmpHistory(text)), 1, 'bad-process', /2\^53/);
  await refused(readEdn(tmpHistory('[{:type :invoke, :f :acquire, :process 0}\n{:type :invoke, :f :acquire, :process 9007199254740993}]', 'edn')), 2, 'bad-process', /2\^53/);
});

test('numbers that are not finite are named as such, not as "null"', async () => {
  const e = await refused(readJsonl(tmpHistory('{"type":"invoke","f":"acquire","process":1,"key":"k","time":1e309}\n')), 1, 'bad-time', /not finite/);
  assert.doesNotMatch(e.message, /got null/);
  await refused(readJsonl(tmpHistory('{"type":"ok","f":"acquire","process":1,"key":"k","lease_ms":-1e999}\n')), 1, 'bad-lease', /not finite/);
  await refused(readJsonl(tmpHistory('{"type":"invoke","f":"acquire","process":1e400,"key":"k"}\n')), 1, 'bad-process', /not finite/);
});

test('a duplicate key is refused with its line and name, on the fast and the slow path alike', async () => {
  for (const [line, key] of [
    ['{"type":"invoke","f":"acquire","process":1,"process":2,"key":"k"}', 'process'],        // fast-path shape
    ['{"type":"invoke","f":"acquire","process":1,"key":"k","note":"a","note":"b"}', 'note'], // an ignored field
    ['{"type":"invoke","f":"acquire","process":1,"key":"k","value":{"a":1,"a":2}}', 'a'],    // nested
    ['{"type":"invoke","f":"acquire","process":1,"key":"k\\u0030","ke\\u0079":"k"}', 'key'], // escapes: the slow path
  ] as const) {
    const path = tmpHistory(jsonl(inv(0)) + `${line}\n`);
    await refused(readJsonl(path), 2, 'duplicate-key', new RegExp(`"${key}"`));
  }
});

function lockpick(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, [join(ROOT, 'bin/lockpick.mjs'), ...args], { cwd: ROOT }, (err, stdout, stderr) => {
      done({ code: err ? (err as { code?: number }).code ?? -1 : 0, stdout, stderr });
    });
  });
}

test('lockpick check /dev/zero and report /dev/zero exit 2 naming line 1; a time limit while reading exits 3', async () => {
  const [check, report, limited, bad] = await Promise.all([
    lockpick('check', '/dev/zero', '--max-memory', '500', '--time-limit', '5'),
    lockpick('report', '/dev/zero', '--format', 'text'),
    lockpick('check', '/dev/zero', '--max-line-bytes', '268435456', '--time-limit', '0.001', '--json'),
    lockpick('check', '/dev/zero', '--max-line-bytes', '1e3'),
  ]);
  assert.equal(check.code, 2, check.stderr);
  assert.match(check.stderr, /\/dev\/zero:1: line-too-long/);
  assert.equal(report.code, 2, report.stderr);
  assert.match(report.stderr, /\/dev\/zero:1: line-too-long/);
  assert.equal(limited.code, 3, limited.stderr);
  assert.match((JSON.parse(limited.stdout) as { reason: string }).reason, /while reading/);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--max-line-bytes must be a whole number/);
});

test('check X --out X refuses to overwrite its input (exit 2, the file unchanged)', async () => {
  const text = jsonl(inv(0), { type: 'ok', f: 'acquire', process: 0, key: 'k' });
  const path = tmpHistory(text);
  const r = await lockpick('check', path, '--out', path);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /is the history being checked/);
  assert.equal(readFileSync(path, 'utf8'), text);
});

test('the library checkHistory holds its time limit while reading too (unknown, not a crash or a wait)', async () => {
  const { checkHistory } = await import('../../src/api.ts');
  const r = await checkHistory('/dev/zero', { timeLimitMs: 1 });
  assert.equal(r.valid, 'unknown');
  assert.match(r.reason ?? '', /time limit of 1 ms reached .*while reading the history/);
});

test('EDN: a key given twice in one op map is refused with its line, as in JSON Lines', async () => {
  const path = tmpHistory('[{:type :invoke, :f :acquire, :process 0}\n {:type :ok, :f :acquire, :process 0, :process 1}]\n', 'edn');
  await refused(readEdn(path), 2, 'edn-syntax', /the key :process appears twice in one map/);
  const nested = tmpHistory('{:type :invoke, :f :read, :process 0, :value {:a 1, :a 2}}\n', 'edn');
  await refused(readEdn(nested), 1, 'edn-syntax', /:a appears twice/);
  // Tagged op maps and sets still read as before.
  const ok = tmpHistory('#jepsen.history.Op{:type :invoke, :f :read, :process 0, :value #{1 2}}\n', 'edn');
  assert.deepEqual((await readEdn(ok)).ops[0]!.invokeValue, [1, 2]);
});
