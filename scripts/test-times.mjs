// The tests' own durations, kept from each run of scripts/test.sh and read back by
// `bash scripts/test.sh --slowest`.
//   as a node:test reporter (--test-reporter=./scripts/test-times.mjs): one JSON line per
//     top-level test, {file, name, s}, file relative to the repository;
//   as a script (node scripts/test-times.mjs FILE...): the slowest ten of those files' tests
//     and each file's total.
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** A failed test's error in a few lines: the assertion's own message, else the error's. */
function failure(err) {
  const e = err?.cause ?? err;
  const text = String(e?.message ?? e ?? 'unknown failure');
  return text.split('\n').slice(0, 12).join('\n').slice(0, 1500);
}

export default async function* times(source) {
  for await (const e of source) {
    if ((e.type === 'test:pass' || e.type === 'test:fail') && e.data.nesting === 0 && !e.data.skip) {
      const file = e.data.file ? path.relative(root, e.data.file) : '?';
      const row = { file, name: e.data.name, s: Math.round((e.data.details?.duration_ms ?? 0) / 100) / 10, ok: e.type === 'test:pass', end: Date.now() };
      // A failure's message is kept, so the end of a long CI log still says why (its first lines).
      if (e.type === 'test:fail') row.error = failure(e.data.details?.error);
      yield `${JSON.stringify(row)}\n`;
    }
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const files = process.argv.slice(2).filter((f) => existsSync(f));
  if (files.length === 0) {
    console.error('no test times yet: run `bash scripts/test.sh` first (it keeps them in .test-times/)');
    process.exit(2);
  }
  const lanes = files.map((f) => readFileSync(f, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)));
  const rows = lanes.flat();
  const pad = (s) => `${s.toFixed(1)} s`.padStart(8);
  console.log('slowest ten tests of the last run:');
  for (const r of [...rows].sort((a, b) => b.s - a.s).slice(0, 10)) console.log(`${pad(r.s)}  ${r.file}  ${r.name}${r.ok ? "" : "  (failed)"}`);
  const byFile = new Map();
  for (const r of rows) byFile.set(r.file, (byFile.get(r.file) ?? 0) + r.s);
  console.log('slowest ten files (their tests\' durations summed):');
  for (const [f, s] of [...byFile].sort((a, b) => b[1] - a[1]).slice(0, 10)) console.log(`${pad(s)}  ${f}`);
  console.log(`${rows.length} tests, ${rows.reduce((n, r) => n + r.s, 0).toFixed(0)} s in all (${files.join(', ')})`);
  // Time no test accounts for: a test file whose process outlived its tests (a child left
  // running holds it open), seen as a gap before the next file's first test started.
  // A file is measured from the previous file's last event to its own last one: what its tests'
  // durations leave of that went to the previous file's process outliving its tests (a child it
  // left running holds it open) or to this file's loading and hooks.
  for (const lane of lanes) {
    const files = [];
    for (const r of lane.filter((x) => x.end)) {
      const f = files.at(-1);
      if (f && f.file === r.file) { f.end = Math.max(f.end, r.end); f.ms += r.s * 1000; }
      else files.push({ file: r.file, end: r.end, ms: r.s * 1000 });
    }
    for (let i = 1; i < files.length; i++) {
      const outside = (files[i].end - files[i - 1].end - files[i].ms) / 1000;
      if (outside > 30) console.log(`${outside.toFixed(0)} s passed outside any test between ${files[i - 1].file}'s last test and ${files[i].file}'s end (a process the first left running keeps it alive; or the second's loading and hooks)`);
    }
  }
  const failed = rows.filter((r) => !r.ok);
  if (failed.length > 0) {
    console.log(`failed tests (${failed.length}):`);
    for (const r of failed) console.log(`  ${r.file}  ${r.name}\n${String(r.error ?? '(no message kept)').split('\n').map((l) => `      ${l}`).join('\n')}`);
  }
}
