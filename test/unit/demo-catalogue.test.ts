// The `lockpick demo` catalogue is consistent without running it: every entry has
// a valid fixed plan for a registered lock and existing fault kinds, its code
// excerpt still matches the recipe source, and its fix link names an entry.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEMOS, findDemo } from '../../src/demo/registry.ts';
import { excerpt } from '../../src/demo/code.ts';
import { scenarioDir, statusOf } from '../../src/demo/run.ts';
import { readTestJson } from '../../src/runner/store.ts';
import { getRecipe } from '../../src/locks/registry.ts';
import { FAULT_KINDS } from '../../nemesis/index.ts';
import { demoExitCode } from '../../src/commands/demo.ts';
import type { RunPlan } from '../../src/workload/plan.ts';

test('names are unique and every entry has a valid scenario for a registered lock and known fault kinds', () => {
  assert.equal(new Set(DEMOS.map((d) => d.name)).size, DEMOS.length);
  const kinds = new Set(FAULT_KINDS.map((k) => k.kind));
  for (const d of DEMOS) {
    const t = readTestJson(scenarioDir(d));
    const recipe = getRecipe(String((t.lock_spec as { name: string }).name));
    assert.equal(recipe.name, t.lock, d.name);
    const plan = t.plan as RunPlan;
    // A demo shows a fault, unless its words say the setup alone breaks the lock (a pooler).
    assert.ok(plan.faults.length > 0 || /^No fault/.test(d.fault), `${d.name}: a demo shows a fault`);
    for (const f of plan.faults) assert.ok(kinds.has(f.kind), `${d.name}: fault kind ${f.kind}`);
  }
});

test('every code excerpt is found in src/locks and is a few lines, not a file', () => {
  for (const d of DEMOS) {
    assert.ok(d.code.length > 0, d.name);
    for (const c of d.code) {
      const x = excerpt(c);
      assert.ok(x.lines.length >= 1 && x.lines.length <= 30, `${d.name}: ${c.file} excerpt has ${x.lines.length} lines`);
      assert.ok(x.lines[0]!.includes(c.from.trim()));
    }
  }
  assert.throws(() => excerpt({ file: 'set-px-del.ts', from: 'no such line', to: 'x' }), /set-px-del\.ts has no line containing "no such line"/);
});

test('fix links name entries; each SAFE entry links back to a failure it fixes', () => {
  for (const d of DEMOS) {
    if (d.fixDemo) assert.ok(findDemo(d.fixDemo), `${d.name}: fixDemo ${d.fixDemo}`);
    if (d.expected === 'SAFE') assert.equal(findDemo(d.fixDemo!)?.expected, 'UNSAFE', d.name);
  }
  // The catalogue the issue asks for, at least.
  for (const n of ['set-px-del-pause', 'set-px-check-del-race', 'setnx-getset-clock-skew', 'set-px-lua-clock-jump', 'set-px-lua-restart', 'set-px-lua-pause',
    'set-px-lua-fenced-pause', 'redlock-pause', 'redlock-kleppmann', 'redlock-restart', 'redlock-restart-delayed', 'sentinel-failover', 'sentinel-failover-wait',
    'redisson-style-pause', 'zk-ignore-disconnect', 'zk-treat-as-loss', 'mysql-unique-key-holder-crash', 'mysql-for-update-dropped-session', 'mysql-get-lock-dropped-session']) {
    assert.ok(findDemo(n), n);
  }
});

test('status and exit code: a fix that broke is 1, a break not reproduced is 3, all as expected is 0', () => {
  assert.equal(statusOf('UNSAFE', 'UNSAFE'), 'as expected');
  assert.equal(statusOf('UNSAFE', 'SAFE'), 'not reproduced');
  assert.equal(statusOf('UNSAFE', 'INCONCLUSIVE'), 'not reproduced');
  assert.equal(statusOf('SAFE', 'INCONCLUSIVE'), 'not reproduced');
  assert.equal(statusOf('SAFE', 'UNSAFE'), 'fix broke');
  const o = (status: 'as expected' | 'not reproduced' | 'fix broke') => ({ status }) as Parameters<typeof demoExitCode>[0][number];
  assert.equal(demoExitCode([o('as expected'), o('as expected')]), 0);
  assert.equal(demoExitCode([o('as expected'), o('not reproduced')]), 3);
  assert.equal(demoExitCode([o('not reproduced'), o('fix broke')]), 1);
});
