// docs/ci.md's GitHub Actions block, tested as far as this machine allows: its
// lockpick step runs under bash (as Actions runs it: -e, pipefail) with its
// environment (GITHUB_OUTPUT) and a stand-in `npx` exiting with each of
// lockpick's exit codes; the job's permissions let the JUnit report action
// publish; the artifact paths match what a run stores.
import { tempDir } from '../support/temp-dir.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { newRunDir } from '../../src/runner/store.ts';

const doc = readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), '../../docs/ci.md'), 'utf8');

function githubBlock(): string {
  const m = /GitHub Actions \(`\.github\/workflows\/lock\.yml`\):\n\n```yaml\n([\s\S]*?)\n```/.exec(doc);
  assert.ok(m, 'docs/ci.md has the GitHub Actions block');
  return m[1]!;
}

/** The `run: |` script of the step with `id: lockpick`, dedented. */
function lockpickScript(block: string): string {
  const lines = block.split('\n');
  const id = lines.findIndex((l) => /^\s+id: lockpick$/.test(l));
  const run = lines.findIndex((l, i) => i > id && /^\s+run: \|$/.test(l));
  assert.ok(id >= 0 && run > id, 'the lockpick step has id: lockpick and a run: | script');
  const indent = lines[run]!.search(/\S/);
  const body: string[] = [];
  for (const l of lines.slice(run + 1)) {
    if (l.trim() && l.search(/\S/) <= indent) break;
    body.push(l);
  }
  const cut = Math.min(...body.filter((l) => l.trim()).map((l) => l.search(/\S/)));
  return body.map((l) => l.slice(cut)).join('\n');
}

/** The upload-artifact step's `path: |` lines. */
function artifactPaths(block: string): string[] {
  const m = /uses: actions\/upload-artifact@\S+[\s\S]*?path: \|\n((?:\s+\S.*\n?)+)/.exec(block);
  assert.ok(m, 'the artifact step lists its paths');
  return m[1]!.split('\n').map((l) => l.trim()).filter((l) => l && !l.includes(':'));
}

test('docs/ci.md GitHub Actions: the job may publish checks (permissions: checks: write, contents: read)', () => {
  const block = githubBlock();
  assert.match(block, /\n {4}permissions:\n(?: {6}\S.*\n)*? {6}checks: write/);
  assert.match(block, /\n {4}permissions:\n(?: {6}\S.*\n)*? {6}contents: read/, 'a permissions block drops every other right: checkout needs contents: read');
});

test('docs/ci.md GitHub Actions: the lockpick step passes 0, fails 1, 2 and 4, and only warns on 3', () => {
  const script = lockpickScript(githubBlock());
  const dir = tempDir('lockpick-ci-actions-');
  try {
    const bin = path.join(dir, 'bin');
    mkdirSync(bin);
    writeFileSync(path.join(bin, 'npx'), '#!/bin/sh\nexit "$LOCKPICK_STUB_EXIT"\n');
    chmodSync(path.join(bin, 'npx'), 0o755);
    writeFileSync(path.join(dir, 'step.sh'), script);
    for (const code of [0, 1, 2, 3, 4]) {
      const out = path.join(dir, `output-${code}`);
      writeFileSync(out, '');
      const r = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', path.join(dir, 'step.sh')], {
        cwd: dir, encoding: 'utf8', env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, GITHUB_OUTPUT: out, LOCKPICK_STUB_EXIT: String(code) },
      });
      assert.equal(r.status, code === 3 ? 0 : code, `lockpick exit ${code}: step exit ${r.status}\n${r.stdout}${r.stderr}`);
      assert.equal(readFileSync(out, 'utf8').trim(), `code=${code}`, 'the exit code is a step output');
      assert.equal(/::warning::/.test(r.stdout), code === 3, `a warning only for 3: ${r.stdout}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('docs/ci.md GitHub Actions: every artifact path matches what a run stores', () => {
  const store = tempDir('lockpick-ci-actions-store-');
  try {
    const { dir } = newRunDir(path.join(store, 'store'), './my-lock.ts');
    for (const f of ['lockpick.log', 'test.json', 'results.json', 'counterexample/timeline.html']) {
      mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
      writeFileSync(path.join(dir, f), '');
    }
    writeFileSync(path.join(store, 'junit.xml'), '');
    for (const p of artifactPaths(githubBlock())) {
      const r = spawnSync('bash', ['-c', `shopt -s nullglob; m=(${p}); [ \${#m[@]} -gt 0 ]`], { cwd: store });
      assert.equal(r.status, 0, `the artifact path ${p} matches nothing in a stored run`);
    }
  } finally {
    rmSync(store, { recursive: true, force: true });
  }
});
