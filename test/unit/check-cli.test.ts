// `lockpick check` through the real CLI (node bin/lockpick.mjs): every history
// in histories/ gives its expected verdict and exit code; usage errors exit 2.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { CheckResult } from '../../checkers/types.ts';
import { formatResult } from '../../src/report/text.ts';
import { jsonl, tmpHistory } from './history-tmp.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const HISTORIES = join(ROOT, 'histories');

interface Verdict { valid: boolean; anomalies: string[] }
interface Entry extends Partial<Verdict> { model?: string; exit?: number; line?: number; rule?: string; comment: string; also_under?: Record<string, Verdict> }
const expected = JSON.parse(readFileSync(join(HISTORIES, 'expected.json'), 'utf8')) as Record<string, Entry>;
const entries = Object.entries(expected).filter(([k]) => !k.startsWith('_'));

interface Run { code: number; stdout: string; stderr: string }
function lockpick(...args: string[]): Promise<Run> {
  return new Promise((done) => {
    execFile(process.execPath, [join(ROOT, 'bin/lockpick.mjs'), ...args], { cwd: ROOT }, (err, stdout, stderr) => {
      done({ code: err ? (err as { code?: number }).code ?? -1 : 0, stdout, stderr });
    });
  });
}

/** Runs jobs two at a time (the machine has two cores; each CLI start costs ~0.3 s). */
async function pool<T>(jobs: (() => Promise<T>)[], width = 2): Promise<T[]> {
  const out: T[] = new Array(jobs.length);
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < jobs.length) { const i = next++; out[i] = await jobs[i]!(); }
  }));
  return out;
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]);
}

test('every file in histories/ has an expected verdict with a comment, and every entry a file', () => {
  const files = walk(HISTORIES).map((f) => relative(HISTORIES, f)).filter((f) => f !== 'expected.json').sort();
  assert.deepEqual(files, entries.map(([k]) => k).sort());
  for (const [name, e] of entries) assert.ok(e.comment && e.comment.length > 10, `${name} needs a comment saying what it shows`);
});

// One CLI run per model (several files print one JSON line each) keeps process starts few;
// the malformed-input rules the issue names also run one file at a time for their own exit code.
const ALONE = new Set(['not-json', 'unknown-type', 'completion-without-invoke', 'second-invoke', 'invoke-after-info', 'bad-index']);

function checkMalformed(name: string, e: Entry, r: Run, out: { error?: { line: number; rule: string } }): string | undefined {
  const file = join('histories', name);
  if (!r.stderr.includes(`${file}:${e.line}: ${e.rule}:`)) return `${name}: stderr does not name line ${e.line} and rule ${e.rule}: ${r.stderr}`;
  if (out.error?.line !== e.line || out.error?.rule !== e.rule) return `${name}: --json error is ${JSON.stringify(out)}`;
  return undefined;
}

test('every history in histories/ gives its expected verdict and exit code through the CLI', async () => {
  const byModel = new Map<string, [string, Verdict][]>();
  const malformed: [string, Entry][] = [];
  for (const [name, e] of entries) {
    if (e.exit === 2) { malformed.push([name, e]); continue; }
    for (const [model, want] of [[e.model!, { valid: e.valid!, anomalies: e.anomalies! }] as [string, Verdict], ...Object.entries(e.also_under ?? {})]) {
      byModel.set(model, [...byModel.get(model) ?? [], [name, want]]);
    }
  }
  const jobs: (() => Promise<string[]>)[] = [];
  for (const [model, files] of byModel) {
    jobs.push(async () => {
      const r = await lockpick('check', ...files.map(([n]) => join('histories', n)), '--model', model, '--json');
      const problems: string[] = [];
      const wantCode = files.some(([, w]) => !w.valid) ? 1 : 0;
      if (r.code !== wantCode) problems.push(`${model}: exit ${r.code}, expected ${wantCode}; ${r.stderr}`);
      const outs = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as CheckResult & { file: string });
      files.forEach(([name, want], i) => {
        const out = outs[i]!;
        const where = `${name} under ${model}`;
        const types = [...new Set(out.anomalies.map((a) => a.type))].sort();
        if (out.file !== join('histories', name)) problems.push(`${where}: output out of order (${out.file})`);
        else if (out.valid !== want.valid) problems.push(`${where}: valid ${out.valid}, expected ${want.valid}`);
        else if (JSON.stringify(types) !== JSON.stringify([...want.anomalies].sort())) problems.push(`${where}: anomalies ${types.join(', ')}, expected ${want.anomalies.join(', ')}`);
        else if (out.model !== model || typeof out.parse_ms !== 'number' || typeof out.check_ms !== 'number') problems.push(`${where}: result fields ${JSON.stringify(out)}`);
      });
      return problems;
    });
  }
  jobs.push(async () => {
    const r = await lockpick('check', ...malformed.map(([n]) => join('histories', n)), '--json');
    const outs = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    const problems = malformed.map(([name, e], i) => checkMalformed(name, e, r, outs[i])).filter((p): p is string => !!p);
    if (r.code !== 2) problems.push(`malformed files together: exit ${r.code}, expected 2`);
    return problems;
  });
  for (const [name, e] of malformed.filter(([, e]) => ALONE.has(e.rule!))) {
    jobs.push(async () => {
      const r = await lockpick('check', join('histories', name), '--json');
      const p = r.code !== 2 ? `${name}: exit ${r.code}, expected 2` : checkMalformed(name, e, r, JSON.parse(r.stdout));
      return p ? [p] : [];
    });
  }
  assert.equal(malformed.filter(([, e]) => ALONE.has(e.rule!)).length >= ALONE.size, true, 'each rule the issue names has an example');
  const problems = (await pool(jobs)).flat();
  assert.deepEqual(problems, []);
});

test('human output: verdict first, then each anomaly with processes, lines and times', async () => {
  const r = await lockpick('check', 'histories/double-holder.jsonl');
  assert.equal(r.code, 1);
  const lines = r.stdout.split('\n');
  assert.match(lines[0]!, /^histories\/double-holder\.jsonl: INVALID under model mutex \(4 ops, 1 key; parsed in \d+ ms, checked in \d+ ms\)$/);
  assert.match(r.stdout, /1\. double-holder on key "orders": .*process 0.*/);
  assert.match(r.stdout, /processes: 0, 1/);
  assert.match(r.stdout, /lines: 2, 4, 5/);
  assert.match(r.stdout, /times: 0\.004 s, 0\.005 s/);
});

test('several files: one JSON object per line, and the most serious exit code (2, then 1, then 3)', async () => {
  const valid = 'histories/mutex-valid.jsonl', invalid = 'histories/double-holder.jsonl', bad = 'histories/malformed/second-invoke.jsonl';
  const both = await lockpick('check', valid, invalid, '--json');
  assert.equal(both.code, 1);
  const out = both.stdout.trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(out.map((o) => [o.file, o.valid]), [[valid, true], [invalid, false]]);
  assert.equal((await lockpick('check', valid, invalid, bad, '--json')).code, 2);
  const text = await lockpick('check', valid, valid);
  assert.equal(text.code, 0);
  assert.equal(text.stdout.match(/VALID under model mutex/g)?.length, 2);
});

test('a limit reached before a verdict gives unknown, exit 3', async () => {
  const r = await lockpick('check', 'histories/mutex-valid.jsonl', '--max-memory', '1', '--json');
  assert.equal(r.code, 3, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal(out.valid, 'unknown');
  assert.match(out.reason, /memory limit/);
  const text = await lockpick('check', 'histories/mutex-valid.jsonl', '--max-memory', '1');
  assert.equal(text.code, 3);
  assert.match(text.stdout, /UNKNOWN under model mutex[^\n]*\n  no verdict: [^\n]*memory limit/);
});

test('usage errors exit 2 with a message that says what to do', async () => {
  const [unknownModel, none, badLimit, badOption, missing, wrongModel, help] = await pool([
    () => lockpick('check', 'histories/mutex-valid.jsonl', '--model', 'bakery'),
    () => lockpick('check'),
    () => lockpick('check', 'histories/mutex-valid.jsonl', '--time-limit', 'soon'),
    () => lockpick('check', 'histories/mutex-valid.jsonl', '--modle', 'mutex'),
    () => lockpick('check', 'histories/no-such.jsonl'),
    () => lockpick('check', 'histories/register-valid.jsonl'),
    () => lockpick('check', '--help'),
  ]);
  assert.equal(unknownModel.code, 2);
  assert.match(unknownModel.stderr, /unknown model "bakery"; known models: .*mutex.*knossos-mutex.*reentrant-mutex.*fenced-mutex.*register.*cas-register/);

  assert.equal(none.code, 2);
  assert.match(none.stderr, /no history file given/);

  assert.equal(badLimit.code, 2);
  assert.match(badLimit.stderr, /--time-limit must be a positive number; got "soon"/);

  assert.equal(badOption.code, 2);
  assert.match(badOption.stderr, /--modle/);

  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /cannot read histories\/no-such\.jsonl: no such file/);

  assert.equal(wrongModel.code, 2);
  assert.match(wrongModel.stderr, /register-valid\.jsonl:1: unknown-operation: model 'mutex' has no operation 'read'.*\n  fix: choose a model that has it with --model/);

  assert.equal(help.code, 0);
  assert.match(help.stdout, /^usage: lockpick check FILE\.\.\./);
  assert.match(help.stdout, /exit codes: 0 .* 1 .* 2 .* 3/s);
});

test('text report is bounded: the first 10 anomalies, then "and N more"', () => {
  const anomalies = Array.from({ length: 25 }, (_, i) => ({
    type: 'double-holder' as const, key: 'k', processes: [i, i + 1], lines: [2 * i + 1, 2 * i + 2], times: [i * 1e9], message: `overlap number ${i}`,
  }));
  const r: CheckResult = { valid: false, model: 'mutex', ops: 50, keys: 1, anomalies, keys_detail: { k: { valid: false, ops: 50 } }, elapsed_ms: 1 };
  const text = formatResult('h.jsonl', r);
  assert.ok(text.startsWith('h.jsonl: INVALID under model mutex (50 ops, 1 key)'));
  assert.match(text, /overlap number 9\n/);
  assert.doesNotMatch(text, /overlap number 10/);
  assert.match(text, /and 15 more \(use --json to see them all\)/);
  assert.match(text, /times: 3\.000 s/);
  const long = formatResult('h.jsonl', { ...r, anomalies: [{ ...anomalies[0]!, lines: Array.from({ length: 40 }, (_, i) => i + 1) }] });
  assert.match(long, /lines: 1, 2, .*, 12, … \(28 more\)/);
});

test('a JSONL file from a temp dir with an index gap: exit 2 names file and line', async () => {
  const p = tmpHistory(jsonl({ type: 'invoke', f: 'acquire', process: 0, index: 0 }, { type: 'ok', f: 'acquire', process: 0, index: 5 }));
  const r = await lockpick('check', p);
  assert.equal(r.code, 2);
  assert.ok(r.stderr.includes(`${p}:2: bad-index:`), r.stderr);
});
