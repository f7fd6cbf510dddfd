// The public corpora (Jepsen's etcd histories, Knossos' EDN histories; never copied into this
// repository) in the folder LOCKPICK_CORPUS names: every history must get the verdict its
// folder's expected.json records. In-process through readHistory + checkHistory (fast); a few
// through the CLI. Without LOCKPICK_CORPUS these tests are skipped, saying why (../support/corpus.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { checkHistory } from '../../checkers/index.ts';
import { readHistory } from '../../src/history/index.ts';
import { expectedVerdict } from './checker-corpus-expect.ts';
import { corpusDir, corpusTest } from '../support/corpus.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const CORPUS = corpusDir() ?? '';
const opts = corpusTest();
const run = promisify(execFile);

interface Expected { file?: string; model?: string; valid: boolean; valid_under_mutex?: boolean; ops_checked?: number }

function load(folder: string): [string, Expected][] {
  const file = join(CORPUS, folder, 'expected.json');
  const entries = Object.entries(JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>)
    .filter(([name]) => !name.startsWith('_')) as [string, Expected][];
  assert.ok(entries.length > 0, `${file} lists no histories`);
  return entries;
}

/** The verdict, and the one expected.json's `valid` stands for (checker-corpus-expect.ts). */
async function verdict(path: string, model: string, valid: boolean): Promise<{ got: boolean | 'unknown'; want: boolean | 'unknown' }> {
  const h = await readHistory(path);
  return { got: checkHistory(h, { model, timeLimitMs: 60_000 }).valid, want: expectedVerdict(valid, h) };
}

test('etcd: all Jepsen etcd register histories, cas-register', opts, async () => {
  const entries = load('etcd');
  assert.equal(entries.length, 102);
  const wrong: string[] = [];
  for (const [name, e] of entries) {
    const { got, want } = await verdict(join(CORPUS, 'etcd', e.file ?? `${name}.jsonl`), e.model ?? 'cas-register', e.valid);
    if (got !== want) wrong.push(`${name}: expected ${want}, got ${got}`);
  }
  assert.deepEqual(wrong, []);
});

test('knossos: all Knossos EDN histories with the model expected.json names', opts, async () => {
  const entries = load('knossos');
  assert.equal(entries.length, 121);
  const wrong: string[] = [];
  for (const [name, e] of entries) {
    const path = join(CORPUS, 'knossos', name);
    const { got, want } = await verdict(path, e.model!, e.valid);
    if (got !== want) wrong.push(`${name} (${e.model}): expected ${want}, got ${got}`);
    if (e.valid_under_mutex !== undefined) {
      const m = await verdict(path, 'mutex', e.valid_under_mutex);
      if (m.got !== m.want) wrong.push(`${name} (mutex): expected ${m.want}, got ${m.got}`);
    }
  }
  assert.deepEqual(wrong, []);
});

test('a few corpus files through the CLI: exit code and --json verdict', opts, async () => {
  const etcd = Object.fromEntries(load('etcd'));
  const cases: [string, string, boolean][] = [
    ['knossos/mutex/bad/etcd.edn', 'knossos-mutex', false],
    ['knossos/mutex/bad/etcd.edn', 'mutex', false],
    ['knossos/cas-register/bad/cas-failure.edn', 'cas-register', false],
    ['knossos/cas-register/bad/rethink-fail-smaller.edn', 'cas-register', false],
    ['etcd/etcd_000.jsonl', 'cas-register', etcd['etcd_000']!.valid],
    ['etcd/etcd_001.jsonl', 'cas-register', etcd['etcd_001']!.valid],
  ];
  const knossos = Object.fromEntries(load('knossos'));
  const good = Object.keys(knossos).find((k) => knossos[k]!.valid && knossos[k]!.ops_checked !== 0)!;
  cases.push([`knossos/${good}`, 'cas-register', true]);
  await Promise.all(cases.map(async ([file, model, valid]) => {
    const r = await run(process.execPath, [join(ROOT, 'bin/lockpick.mjs'), 'check', join(CORPUS, file), '--model', model, '--json'])
      .then((x) => ({ code: 0, stdout: x.stdout }), (e: { code: number; stdout: string }) => ({ code: e.code, stdout: e.stdout }));
    assert.equal(r.code, valid ? 0 : 1, `${file} under ${model}: exit code`);
    const out = JSON.parse(r.stdout);
    assert.equal(out.valid, valid, `${file} under ${model}`);
    assert.equal(out.model, model);
    assert.ok(typeof out.parse_ms === 'number' && typeof out.check_ms === 'number');
  }));
});
