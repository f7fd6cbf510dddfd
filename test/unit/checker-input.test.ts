// Checker input that must never become a verdict: fenced-mutex acquires without an integer
// token, histories with no operations, model names that are Object.prototype properties.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { CheckInputError, checkHistory } from '../../checkers/index.ts';
import type { HistoryEvent } from '../../src/history/types.ts';
import { toParsed } from '../support/history.ts';
import { jsonl, tmpHistory } from './history-tmp.ts';

const ROOT = resolve(import.meta.dirname, '../..');
interface Run { code: number; stdout: string; stderr: string }
function lockpick(...args: string[]): Promise<Run> {
  return new Promise((done) => {
    execFile(process.execPath, [join(ROOT, 'bin/lockpick.mjs'), ...args], { cwd: ROOT }, (err, stdout, stderr) => {
      done({ code: err ? (err as { code?: number }).code ?? -1 : 0, stdout, stderr });
    });
  });
}

const fenced = (value: unknown): HistoryEvent[] => [
  { type: 'invoke', f: 'acquire', process: 0, key: 'k' },
  { type: 'ok', f: 'acquire', process: 0, key: 'k', value: { token: 1 } },
  { type: 'invoke', f: 'release', process: 0, key: 'k' },
  { type: 'ok', f: 'release', process: 0, key: 'k' },
  { type: 'invoke', f: 'acquire', process: 1, key: 'k' },
  value === undefined ? { type: 'ok', f: 'acquire', process: 1, key: 'k' } : { type: 'ok', f: 'acquire', process: 1, key: 'k', value },
];

test('fenced-mutex: an ok acquire without a finite integer token is a rule violation at its line', () => {
  for (const value of [undefined, null, {}, { token: null }, { token: 'abc' }, { token: { n: 2 } }, { token: 2.5 }, { token: '2.0' }]) {
    assert.throws(() => checkHistory(toParsed(fenced(value)), { model: 'fenced-mutex' }), (e: unknown) => {
      assert.ok(e instanceof CheckInputError, String(e));
      assert.equal(e.line, 6);
      assert.equal(e.rule, 'fenced-token');
      assert.match(e.message, /^simulated\.jsonl:6: fenced-token: under fenced-mutex every ok acquire must carry an integer fencing token, "value": \{"token": <integer>\}; got .*\n  fix: record the token/);
      return true;
    }, JSON.stringify(value));
  }
  // Integers as numbers, bigints and integer strings are tokens; a failed or info acquire needs none.
  for (const token of [2, '2', '18446744073709551617']) assert.equal(checkHistory(toParsed(fenced({ token })), { model: 'fenced-mutex' }).valid, true);
  const unanswered = fenced(undefined).slice(0, 5);
  assert.equal(checkHistory(toParsed(unanswered), { model: 'fenced-mutex' }).valid, true);
});

test('lockpick check: a token-less fenced acquire exits 2 naming FILE:LINE, rule and fix', async () => {
  const file = tmpHistory(jsonl(...fenced({ token: 'abc' })));
  const r = await lockpick('check', file, '--model', 'fenced-mutex', '--json');
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, new RegExp(`${file}:6: fenced-token: .*got \\{"token":"abc"\\}\\n  fix: `));
  assert.deepEqual(Object.keys(JSON.parse(r.stdout).error), ['line', 'rule', 'expected', 'fix']);
  assert.equal(JSON.parse(r.stdout).error.line, 6);
});

test('a history with no operations has no verdict: unknown, "no operations", exit 3', async () => {
  const nemesisOnly = [{ process: 'nemesis', type: 'info', f: 'run-start', value: { run: 1 } }, { process: 'nemesis', type: 'info', f: 'run-end', value: { run: 1 } }] as HistoryEvent[];
  for (const [events, reason] of [[[], 'no operations'], [nemesisOnly, 'no operations (the history holds only nemesis events)']] as const) {
    const r = checkHistory(toParsed(events), { model: 'mutex' });
    assert.equal(r.valid, 'unknown');
    assert.equal(r.reason, reason);
  }
  const [empty, onlyNemesis] = await Promise.all([
    lockpick('check', tmpHistory(''), '--json'),
    lockpick('check', tmpHistory(jsonl(...nemesisOnly))),
  ]);
  assert.equal(empty.code, 3, empty.stderr);
  assert.equal(JSON.parse(empty.stdout).valid, 'unknown');
  assert.equal(JSON.parse(empty.stdout).reason, 'no operations');
  assert.equal(onlyNemesis.code, 3);
  assert.match(onlyNemesis.stdout, /no operations/);
});

test('model names are looked up among the registered models only: toString, __proto__ are unknown (exit 2)', async () => {
  const file = join('histories', 'mutex-valid.jsonl');
  const runs = await Promise.all(['toString', '__proto__', 'constructor'].map((m) => lockpick('check', file, '--model', m)));
  for (const r of runs) {
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /unknown model "(toString|__proto__|constructor)"; known models: mutex, /);
  }
  const backend = await lockpick('check', file, '--backend', 'consul');
  assert.equal(backend.code, 2);
  assert.match(backend.stderr, /unknown backend "consul"; known backends: redis, zookeeper, mysql, postgres, etcd/);
});
