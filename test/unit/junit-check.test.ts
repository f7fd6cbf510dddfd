// `lockpick check --format junit` and `lockpick report --format junit` through the
// real CLI: a JUnit consumer (junit2json) reads what they write, and bad input
// never leaves a 0-byte or partial XML (exit 2, nothing written, --out not created).
import { tempDir } from '../support/temp-dir.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse, type TestSuites } from 'junit2json';
import { jsonl, tmpHistory } from './history-tmp.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const DOUBLE = join(ROOT, 'histories/double-holder.jsonl');

function lockpick(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, [join(ROOT, 'bin/lockpick.mjs'), ...args], { cwd: ROOT }, (err, stdout, stderr) => {
      done({ code: err ? (err as { code?: number }).code ?? -1 : 0, stdout, stderr });
    });
  });
}

const malformed = () => tmpHistory(jsonl({ process: 0, type: 'invoke', f: 'acquire', key: 'k' }, { process: 0, type: 'bogus', f: 'acquire', key: 'k' }));
const valid = () => tmpHistory(jsonl(
  { process: 0, type: 'invoke', f: 'acquire', key: 'k' }, { process: 0, type: 'ok', f: 'acquire', key: 'k' },
  { process: 0, type: 'invoke', f: 'release', key: 'k' }, { process: 0, type: 'ok', f: 'release', key: 'k' },
));

test('check --format junit: one suite per file, read by a JUnit parser; exit as check', async () => {
  const ok = valid();
  const r = await lockpick('check', DOUBLE, ok, '--format', 'junit');
  assert.equal(r.code, 1, r.stderr);
  const doc = (await parse(r.stdout)) as TestSuites;
  assert.deepEqual(doc.testsuite!.map((s) => s.name), [DOUBLE, ok]);
  assert.equal(doc.testsuite![0]!.testcase![0]!.failure![0]!.type, 'double-holder');
  assert.equal(doc.testsuite![1]!.failures, 0);
  const out = join(tempDir('lockpick-junit-'), 'junit.xml');
  const w = await lockpick('check', ok, '--format', 'junit', '--out', out);
  assert.equal(w.code, 0, w.stderr);
  assert.equal(w.stdout, '');
  assert.equal(((await parse(readFileSync(out, 'utf8'))) as TestSuites).tests, 1);
});

test('check --format junit on a malformed history: exit 2, no XML on stdout, --out not created', async () => {
  const bad = malformed();
  const r = await lockpick('check', DOUBLE, bad, '--format', 'junit');
  assert.equal(r.code, 2);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /:2: .*\n.*fix:[\s\S]*nothing written/);
  const out = join(tempDir('lockpick-junit-'), 'junit.xml');
  const w = await lockpick('check', bad, '--format', 'junit', '--out', out);
  assert.equal(w.code, 2);
  assert.equal(existsSync(out), false, 'a 0-byte junit.xml was left behind');
});

test('report --format junit on a malformed history: exit 2, nothing on stdout, --out not created', async () => {
  const bad = malformed();
  const r = await lockpick('report', bad, '--format', 'junit');
  assert.equal(r.code, 2);
  assert.equal(r.stdout, '');
  const out = join(tempDir('lockpick-junit-'), 'junit.xml');
  const w = await lockpick('report', bad, '--format', 'junit', '--out', out);
  assert.equal(w.code, 2);
  assert.equal(existsSync(out), false, 'a 0-byte junit.xml was left behind');
});

test('check: unknown --format, or --json against --format junit, is a usage error', async () => {
  assert.equal((await lockpick('check', DOUBLE, '--format', 'xml')).code, 2);
  assert.equal((await lockpick('check', DOUBLE, '--json', '--format', 'junit')).code, 2);
});
