// test-lane: beside (its servers are its own; a third of its acquires raise whatever the timing)
// Every outcome counted and named (issue 41), through `lockpick run` on a real Redis: a process
// client whose library raises TypeError on about a third of its acquires never lets two clients
// hold, yet it was not used as its users would use it. The summary names the error and its
// count, results.json and JUnit carry the counts, and the verdict is INCONCLUSIVE (exit 3), not SAFE.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { lockpick, markedProcesses, runDirs, tempStore } from './run-helpers.ts';

const RAISING = 'exec:/usr/bin/python3 test/fixtures/process-clients/raising_waiter.py';
const MESSAGE = "TypeError: unsupported operand type(s) for +: 'NoneType' and 'int'";
const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

test('a lock whose library raises on a third of its acquires: the report names the error and its count; INCONCLUSIVE, not SAFE', async () => {
  const mark = randomUUID();
  const store = tempStore();
  const r = await lockpick(['run', '--lock', RAISING, '--time', '15', '--seed', '1', '--store', store], 120_000, { LOCKPICK_TEST_MARK: mark });
  assert.deepEqual(markedProcesses(mark, /python3|redis-server/), [], 'processes left behind');
  assert.equal(r.code, 3, `exit ${r.code}\n${r.stdout}\n${r.stderr}`);
  assert.match(r.stdout, /INCONCLUSIVE: no violation/);
  assert.doesNotMatch(r.stdout, /^SAFE/m);
  // The gap, in the user's words, with the count; the summary's error line with the same count.
  const gap = new RegExp(`the lock was not exercised as its users would: (\\d+) of (\\d+) acquires raised ${esc(MESSAGE)} \\(no fault touched their clients\\)`).exec(r.stdout);
  assert.ok(gap, r.stdout);
  const [n, total] = [Number(gap[1]), Number(gap[2])];
  assert.ok(n >= 3 && n >= total / 10, `${n} of ${total}`);
  assert.match(r.stdout, new RegExp(`errors: ${n}× ${esc(MESSAGE)}`));
  assert.match(r.stdout, new RegExp(`outcomes: acquire \\d+ ok, \\d+ fail, ${n} unknown`));
  assert.match(r.stdout, new RegExp(`${n} acquire error\\(s\\) while no fault touched the client`));
  // results.json and JUnit carry the same figures.
  const dir = runDirs(store)[0]!;
  const results = JSON.parse(readFileSync(path.join(dir, 'results.json'), 'utf8')) as { verdict: unknown; coverage: { acquires: number; outcomes: { unexplained: number; errors: Record<string, number>; ops: { acquire: { info: number } } } } };
  assert.equal(results.verdict, 'unknown');
  assert.equal(results.coverage.acquires, total);
  assert.equal(results.coverage.outcomes.unexplained, n);
  assert.equal(results.coverage.outcomes.ops.acquire.info, n);
  assert.deepEqual(results.coverage.outcomes.errors, { [MESSAGE]: n });
  const junit = readFileSync(path.join(dir, 'junit.xml'), 'utf8');
  assert.match(junit, /<error type="inconclusive" message="INCONCLUSIVE: the lock was not exercised as its users would: /);
  assert.match(junit, new RegExp(`<property name="unexplained_acquire_errors" value="${n}"/>`));
  assert.match(junit, new RegExp(`errors: ${n}× TypeError: unsupported operand`));
});
