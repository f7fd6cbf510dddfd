// `lockpick run --keep-going` on real Redis: Redlock under every fault kind breaks
// in more than one way (a master restarted empty, Kleppmann's partition + clock
// jump). After the first violation the search goes on for all of --time and lists
// each distinct failure once, by cause (bugs of the lock first), each with its own
// counterexample that the checker rejects and a plan that replays. A seed is no promise about real timing, so what
// is asserted holds for any number of classes found (seed 1 found two in 8 s).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { lockpick, tempStore } from './run-helpers.ts';
import { validatePlan } from '../../src/workload/plan.ts';

const RESOURCE_ANOMALIES = ['lost-update', 'stale-write', 'stale-token'];

test('redlock --faults all --keep-going: every distinct failure listed once, each with a counterexample lockpick check rejects', async () => {
  // Seed 1 found its first class after 1.0 s and three more by 12.9 s on the quiet CI machine
  // (2026-11-26), and its first after about 5 s at load 18; a 15 s search at load 20 once found
  // none. Each new class is shrunk off the search clock, so a short shrink budget keeps the test short.
  const timeS = 14;
  const r = await lockpick(['run', '--lock', 'redlock', '--faults', 'all', '--keep-going', '--time', String(timeS), '--shrink-time', '3', '--seed', '1', '--store', tempStore(), '--json'], 240_000);
  assert.equal(r.code, 1, r.stderr.slice(-3000));
  const s = r.summary!;
  const failures = s.failures ?? [];
  assert.ok(failures.length >= 1);
  console.log(`keep-going: ${failures.length} class(es), after ${failures.map((f) => f.after_ms).join(', ')} ms of ${s.throughput.searchMs} ms`);
  // It went on after the first violation: the whole search budget was spent.
  assert.ok(s.throughput.searchMs >= timeS * 1000, `searched ${s.throughput.searchMs} ms`);
  // Bugs of the lock first, then what could not be classified, then failures inherent to its design.
  const rank = { bug: 0, unknown: 1, inherent: 2 };
  assert.ok(failures.every((f, i) => i === 0 || rank[f.nature] >= rank[failures[i - 1]!.nature]), failures.map((f) => f.class).join(' | '));
  // The first found is in counterexample/ (found after firstAfterMs), the others in counterexample-N in the order found.
  const byFind = [...failures].sort((a, b) => a.after_ms - b.after_ms);
  assert.equal(byFind[0]!.after_ms, s.firstAfterMs);
  assert.ok(byFind[0]!.after_ms < s.throughput.searchMs);
  assert.equal(byFind[0]!.counterexample, path.join(s.dir, 'counterexample'));
  assert.deepEqual(new Set(failures.map((f) => path.basename(f.counterexample))), new Set(failures.map((_, i) => (i === 0 ? 'counterexample' : `counterexample-${i + 1}`))));
  assert.equal(new Set(failures.map((f) => f.class)).size, failures.length, `a class listed twice: ${failures.map((f) => f.class).join(' | ')}`);
  failures.forEach((f) => {
    assert.ok(f.class.startsWith(`${f.nature}: `) && f.cause.length > 0, f.class);
    assert.ok(f.kinds.length > 0 && f.anomalies.length > 0 && f.runs >= 1, f.class);
    if (f.counterexample !== path.join(s.dir, 'counterexample')) {
      // Its own test.json: `lockpick run --replay DIR` runs its shrunk plan.
      const test = JSON.parse(readFileSync(path.join(f.counterexample, 'test.json'), 'utf8')) as { plan: unknown };
      assert.equal(validatePlan(test.plan, 'test.json').faults.length, f.faults);
    }
  });
  for (const f of failures) {
    const h = path.join(f.counterexample, 'history.jsonl');
    assert.ok(existsSync(h), h);
    // A class named by resource anomalies only broke the counter, not the lock history the checker reads.
    if (f.anomalies.every((a) => RESOURCE_ANOMALIES.includes(a))) continue;
    const c = await lockpick(['check', h], 60_000);
    assert.equal(c.code, 1, `lockpick check ${h}: exit ${c.code}\n${c.stdout}${c.stderr}`);
  }
  assert.match(r.stderr, new RegExp(`distinct failures: ${failures.length} `));
  const results = JSON.parse(readFileSync(path.join(s.dir, 'results.json'), 'utf8')) as { failures: unknown };
  assert.deepEqual(results.failures, failures);
});
