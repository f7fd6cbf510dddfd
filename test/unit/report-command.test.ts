import { tempDir } from '../support/temp-dir.ts';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { doubleHolderEvents } from './report-fixtures.ts';

const bin = resolve(import.meta.dirname, '../../bin/lockpick.mjs');
let dir: string;
const lockpick = (...args: string[]) => {
  const r = spawnSync(process.execPath, [bin, 'report', ...args], { encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
};
/** A stored run: store/<run-id>/history.jsonl (+ test.json, optionally results.json). */
function storeRun(id: string, results?: unknown): string {
  const run = join(dir, 'store', id);
  mkdirSync(run, { recursive: true });
  writeFileSync(join(run, 'history.jsonl'), doubleHolderEvents().map((e) => JSON.stringify(e)).join('\n') + '\n');
  writeFileSync(join(run, 'test.json'), JSON.stringify({ lock: 'set-px-del', model: 'mutex', seed: 42 }));
  if (results !== undefined) writeFileSync(join(run, 'results.json'), JSON.stringify(results));
  return run;
}

before(() => { dir = tempDir('lockpick-report-'); });
after(() => rmSync(dir, { recursive: true, force: true }));

test('a stored run renders to <run>/timeline.html by default and exits 1 on a double holder', () => {
  const run = storeRun('run-1');
  const r = lockpick(run);
  assert.equal(r.code, 1, r.err);
  // the double holder, and process 0's unlock sent while process 1 held the lock (stale-release)
  assert.match(r.out, /wrote .*run-1\/timeline\.html .*INVALID, 2 anomalies/);
  const html = readFileSync(join(run, 'timeline.html'), 'utf8');
  assert.match(html, /both held it from line 7 to line 9/);
  assert.match(html, /<th>lock<\/th><td>set-px-del<\/td>/);
});

test('--lang zh-CN (or LOCKPICK_LANG) writes the page in Chinese, the anomalies named in it; a language lockpick does not speak is exit 2', () => {
  const run = storeRun('run-zh');
  const zh = join(dir, 'zh.html');
  assert.equal(lockpick(run, '--lang', 'zh-CN', '--out', zh).code, 1);
  const page = readFileSync(zh, 'utf8');
  assert.match(page, /<html lang="zh-CN">/);
  assert.match(page, /<b class="atype">双重持有：两个客户端同时认为自己持有锁<\/b>/);
  assert.match(page, />#1 双重持有</, 'the tag on the drawing');
  const viaEnv = spawnSync(process.execPath, [bin, 'report', run, '--out', join(dir, 'zh2.html')], { encoding: 'utf8', env: { ...process.env, LOCKPICK_LANG: 'zh' } });
  assert.equal(viaEnv.status, 1, viaEnv.stderr);
  assert.match(readFileSync(join(dir, 'zh2.html'), 'utf8'), /<html lang="zh-CN">/);
  const en = join(dir, 'en.html');
  assert.equal(lockpick(run, '--out', en).code, 1);
  assert.match(readFileSync(en, 'utf8'), />#1 double holder</);
  const bad = lockpick(run, '--lang', 'fr', '--out', join(dir, 'fr.html'));
  assert.equal(bad.code, 2);
  assert.match(bad.err, /--lang fr: not a language lockpick speaks\n  fix: give en or zh-CN/);
  assert.ok(!existsSync(join(dir, 'fr.html')));
});

test('junit and json go to standard output; --out writes a file', () => {
  const run = storeRun('run-2');
  const j = lockpick(run, '--format', 'junit');
  assert.equal(j.code, 1);
  assert.match(j.out, /^<\?xml[^]*<testsuite name="run-2"[^]*<failure type="double-holder"/);
  const js = lockpick(run, '--format', 'json');
  assert.equal(JSON.parse(js.out).valid, false);
  const out = join(dir, 'x.txt');
  assert.equal(lockpick(join(run, 'history.jsonl'), '--format', 'text', '--out', out).code, 1);
  assert.match(readFileSync(out, 'utf8'), /INVALID under model mutex/);
});

test('a stored results.json is never trusted: a verdict that disagrees with the history is exit 2 naming the field; another model re-checks', () => {
  const stored = { valid: true, model: 'mutex', ops: 6, keys: 1, anomalies: [], keys_detail: {}, elapsed_ms: 1 };
  const run = storeRun('run-3', stored);
  const r = lockpick(run, '--format', 'json');
  assert.equal(r.code, 2, 'the history holds a double holder: never VALID from the stored file');
  assert.equal(r.out, '');
  assert.match(r.err, /results\.json: "valid" is true, but the history checked again under model mutex is INVALID/);
  const again = lockpick(run, '--format', 'json', '--model', 'knossos-mutex');
  assert.equal(again.code, 1);
  assert.equal(JSON.parse(again.out).model, 'knossos-mutex');
});

test("the runner's search summary in results.json is not this history's verdict: the history is checked", () => {
  const run = storeRun('run-5', { verdict: true, runs: 3, inconclusive: 0, minimal: null });
  const r = lockpick(run, '--format', 'json');
  assert.equal(r.code, 1, 'the double holder in history.jsonl is found');
  assert.equal(r.err, '');
  mkdirSync(join(run, 'counterexample'));
  writeFileSync(join(run, 'counterexample', 'history.jsonl'), readFileSync(join(run, 'history.jsonl')));
  assert.match(lockpick(run, '--format', 'text').err, /shrunk counterexample: lockpick report .*run-5\/counterexample/);
  const c = lockpick(join(run, 'counterexample'), '--format', 'junit');
  assert.match(c.out, /<testsuite name="run-5\/counterexample"/);
});

test('bad input exits 2 with a message that names the place and the fix', () => {
  const missing = lockpick(join(dir, 'nope'));
  assert.equal(missing.code, 2);
  assert.match(missing.err, /nope: no such file or directory\n {2}fix: give a history file/);
  mkdirSync(join(dir, 'empty'));
  assert.match(lockpick(join(dir, 'empty')).err, /no history\.jsonl in this directory/);
  assert.equal(lockpick(storeRun('run-4'), '--format', 'pdf').code, 2);
  const bad = join(dir, 'bad.jsonl');
  writeFileSync(bad, '{"type":"ok","f":"acquire","process":1}\n');
  const b = lockpick(bad, '--format', 'text');
  assert.equal(b.code, 2);
  assert.match(b.err, /bad\.jsonl:1/);
  assert.equal(existsSync(join(dir, 'timeline.html')), false);
});

test('--out that is an input of the report (the history, results.json, test.json, by a symlink too) is refused: exit 2, nothing overwritten', () => {
  const run = storeRun('run-out-input', { valid: false, model: 'mutex', anomalies: [] });
  const files = ['history.jsonl', 'results.json', 'test.json'].map((f) => join(run, f));
  const before = files.map((f) => readFileSync(f, 'utf8'));
  symlinkSync(join(run, 'history.jsonl'), join(dir, 'link-to-history'));
  for (const out of [...files, join(dir, 'link-to-history')]) {
    const r = lockpick(run, '--format', 'text', '--out', out);
    assert.equal(r.code, 2, `${out}: ${r.err}`);
    assert.match(r.err, /is an input of this report .*writing it would destroy it\n  fix: give --out another file/);
  }
  // A bare history file given as PATH, --out the same file.
  const h = lockpick(files[0]!, '--format', 'json', '--out', files[0]!);
  assert.equal(h.code, 2, h.err);
  assert.deepEqual(files.map((f) => readFileSync(f, 'utf8')), before);
});

test("a run's stored resource anomalies are read with the same checks as any stored anomaly: a broken one names its place", async () => {
  const { minimalResourceAnomalies } = await import('../../src/runner/stored-files.ts');
  const stale = { type: 'stale-write', key: 'k0', message: 'c1 wrote on top of c2', processes: [2, 1], lines: [] };
  assert.deepEqual(minimalResourceAnomalies({ minimal: { resource: { anomalies: [stale] } } }, 'results.json'), [stale]);
  assert.deepEqual(minimalResourceAnomalies({ minimal: null }, 'results.json'), []);
  assert.throws(() => minimalResourceAnomalies({ minimal: { resource: { anomalies: [{ ...stale, processes: 'c1' }] } } }, 'results.json'), /minimal\.resource\.anomalies\[0\]\.processes/);
});
