// test-lane: beside (its servers are its own; its verdicts do not hang on fine timing)
// `lockpick demo NAME...` on real servers, as a teacher would run it: each entry
// gets its page with the expected verdict (UNSAFE where the lock breaks, SAFE where
// the fix holds), the index links them all, each page frames the run's timeline and
// links its fix, and the exit code says "all as expected". One entry per backend
// family here (a whole `--all` takes minutes, each entry a server start-up); every
// entry's plan, lock, fault kinds, code excerpt and links are checked without servers
// (test/unit/demo-catalogue.test.ts), and the Redlock and Sentinel scenarios are
// replayed for their verdicts in run-redis-multi.test.ts and run-redis-failover.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { lockpick, tempStore } from './run-helpers.ts';
import { DEMOS, findDemo } from '../../src/demo/registry.ts';
import { UNSAFE_RUNS, runDemo, type DemoOutcome } from '../../src/demo/run.ts';

test('lockpick demo NAME with an unknown name: exit 2, the catalogue in the message', async () => {
  const r = await lockpick(['demo', 'no-such-demo'], 30_000);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /no demo named 'no-such-demo'/);
  for (const d of DEMOS) assert.ok(r.stderr.includes(d.name), `the message lists ${d.name}`);
});

/** Redis (a failure and its fix), Redlock, ZooKeeper, MySQL: one entry or pair per backend family. */
const SAMPLE = ['set-px-lua-clock-jump', 'set-px-lua-fenced-clock-jump', 'redlock-pause', 'zk-ignore-disconnect', 'mysql-get-lock-dropped-session'];

test('lockpick demo NAME...: every page with its expected verdict, an index linking them, exit 0', async () => {
  const out = tempStore();
  const sample = SAMPLE.map((n) => findDemo(n)!);
  assert.ok(sample.every(Boolean), 'the sample names catalogue entries');
  const r = await lockpick(['demo', ...SAMPLE, '--out', out, '--json'], 300_000);
  const result = JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as { exitCode: number; outcomes: DemoOutcome[] };
  const off = (result.outcomes ?? []).filter((o) => o.status !== 'as expected').map((o) => `${o.name}: expected ${o.expected}, got ${o.verdict}${o.error ? ` (${o.error})` : ''}`);
  assert.equal(r.code, 0, `${off.join('\n')}\n${r.stderr.slice(-3000)}`);
  assert.equal(result.exitCode, 0);
  assert.deepEqual(result.outcomes.map((o) => o.name), SAMPLE);
  const index = readFileSync(path.join(out, 'index.html'), 'utf8');
  for (const d of sample) {
    assert.ok(index.includes(`<a href="${d.name}.html">`), `index links ${d.name}`);
    const page = readFileSync(path.join(out, `${d.name}.html`), 'utf8');
    assert.ok(page.includes(`data-verdict="${d.expected}"`), `${d.name}: verdict ${d.expected} on the page`);
    assert.ok(page.includes('data-status="as expected"'), d.name);
    // The code that matters, from the recipe source, and the fix's page linked.
    assert.match(page, /<code>src\/locks\/[\w-]+\.ts<\/code>, lines \d+/, d.name);
    if (d.fixDemo) assert.ok(page.includes(`href="${d.fixDemo}.html"`), `${d.name} links ${d.fixDemo}`);
    // The run's own timeline, framed by a relative path that resolves.
    const src = /<iframe src="([^"]+)"/.exec(page)?.[1];
    assert.ok(src && existsSync(path.join(out, src.replace(/&amp;/g, '&'))), `${d.name}: timeline ${src}`);
  }
  console.log(`lockpick demo: ${sample.length} entries in ${(r.ms / 1000).toFixed(0)} s`);
});

test('never pretends: a break that does not happen is "not reproduced", a fix that breaks says so', async () => {
  const out = tempStore();
  // The fenced plan (SAFE) asked to break, and the unfenced one (UNSAFE) asked to hold.
  const notBroken = await runDemo({ ...findDemo('set-px-lua-fenced-pause')!, expected: 'UNSAFE' }, { out, log: () => {} });
  assert.equal(notBroken.verdict, 'SAFE');
  assert.equal(notBroken.status, 'not reproduced');
  assert.equal(notBroken.runs, UNSAFE_RUNS, 'an expected break gets its one run');
  assert.equal(UNSAFE_RUNS, 1);
  assert.match(readFileSync(notBroken.page, 'utf8'), /data-status="not reproduced">not reproduced \(expected UNSAFE\)/);
  const broke = await runDemo({ ...findDemo('set-px-lua-pause')!, expected: 'SAFE' }, { out, log: () => {} });
  assert.equal(broke.verdict, 'UNSAFE');
  assert.equal(broke.status, 'fix broke');
  assert.match(readFileSync(broke.page, 'utf8'), /data-status="fix broke">expected SAFE: the fix did not hold/);
});
