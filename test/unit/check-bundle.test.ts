// `lockpick check` from the built package loads one bundle (scripts/bundle-check.mjs), not its ~50
// modules: it must say exactly what the same check through the sources says, on the paths where
// a bundle could go wrong: the topology registry loaded on use (the backends' words: one
// registry, not a copy the bundle cannot see), a lazy reader's errors (EDN: one HistoryError
// class), the reader thread started beside a bundled module (its path), --format junit. Needs
// a fresh dist/ (`npm run build`, as scripts/test.sh does first); without one it says so and skips.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
// @ts-expect-error: a plain .mjs module without types
import { distFresh } from '../../bin/dist-fresh.mjs';

const ROOT = resolve(import.meta.dirname, '../..');
const fresh = distFresh() as boolean;
const skip = fresh ? false : 'skipped: dist/ is not built from these sources (npm run build)';

interface Run { code: number; stdout: string; stderr: string }
function lockpick(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((done) => {
    execFile(process.execPath, [join(ROOT, 'bin/lockpick.mjs'), ...args], { cwd: ROOT, env: { ...process.env, ...env }, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      done({ code: err ? (err as { code?: number }).code ?? -1 : 0, stdout, stderr });
    });
  });
}
/** Timings differ from run to run; everything else must not. */
const untimed = (s: string) => s.replace(/"(elapsed|check|parse)_ms":\d+/g, '').replace(/(parsed|checked) in \d+ ms/g, '').replace(/time="[\d.]+"/g, '');

async function sameBothWays(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const [bundled, sources] = await Promise.all([lockpick(args, env), lockpick(args, { ...env, LOCKPICK_NO_DIST: '1' })]);
  assert.equal(bundled.code, sources.code, `exit codes differ\nbundle: ${bundled.stderr}\nsources: ${sources.stderr}`);
  assert.equal(untimed(bundled.stdout), untimed(sources.stdout));
  assert.equal(untimed(bundled.stderr), untimed(sources.stderr));
  return bundled;
}

const evidence = readdirSync(join(ROOT, 'scenarios/evidence')).map((d) => join(ROOT, 'scenarios/evidence', d, 'history.jsonl')).filter((f) => existsSync(f)).sort();

test('run histories naming their backend: the bundle prints what the sources print, backend words included', { skip }, async () => {
  const r = await sameBothWays(['check', ...evidence, '--json']);
  assert.equal(r.code, 1, 'the evidence histories hold violations');
  assert.equal(r.stdout.trim().split('\n').length, evidence.length);
});

test('a malformed EDN history (read by a module loaded on use): the same error, exit 2', { skip }, async () => {
  const r = await sameBothWays(['check', join(ROOT, 'histories/malformed/edn-completion-without-invoke.edn')]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /edn-completion-without-invoke\.edn:\d+/);
});

test('a history read on the reader thread, and --format junit: the same', { skip }, async () => {
  await sameBothWays(['check', join(ROOT, 'histories/double-holder.jsonl'), join(ROOT, 'histories/mutex-valid.jsonl'), '--json'], { LOCKPICK_READ_THREAD_BYTES: '0' });
  const r = await sameBothWays(['check', join(ROOT, 'histories/double-holder.jsonl'), join(ROOT, 'histories/mutex-valid.jsonl'), '--format', 'junit']);
  assert.match(r.stdout, /<testsuites/);
});

test('the bundle loads few files at start, each of which exists', { skip }, () => {
  // The files `check` loads as it is imported: its static imports followed through lockpick's own files.
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const m of readFileSync(file, 'utf8').matchAll(/^(?:import|export)\s[^;]*?from\s*"(\.[^"]+)"|^import\s*"(\.[^"]+)"/gm)) {
      const next = resolve(dirname(file), (m[1] ?? m[2])!);
      assert.ok(existsSync(next), `${file} imports ${next}, which is not there`);
      visit(next);
    }
  };
  visit(join(ROOT, 'dist/src/commands/check.js'));
  assert.ok(seen.size <= 20, `check loads ${seen.size} files at start: ${[...seen].map((f) => f.slice(ROOT.length + 1)).join(', ')}`);
});
