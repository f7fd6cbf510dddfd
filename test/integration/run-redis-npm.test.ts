// `lockpick run` end to end (issue 5) on the npm lock libraries, unpatched, under
// the faults that break the redlock recipe. What they do, asserted as measured:
// npm:redlock and redis-semaphore's Mutex / RedlockMutex lose mutual exclusion
// to a client pause longer than the lease (their refresh timers stop too);
// npm:redlock and RedlockMutex to Kleppmann's scenario and to a master restarted
// without persistence; the delayed restart keeps npm:redlock safe.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { assertDoubleHolder, assertSafe, replayScenario, replayScenarioAs } from './run-scenarios.ts';

// The pauses replay scenarios/redlock-pause (c1 paused 1200 ms in its critical section, an
// 800 ms lease): that random search finds such a pause is shown on the recipes themselves
// (run-pause, run-redis-multi and run-redis-failover.test.ts); here, what the libraries do with it.
test('npm:redlock + client pause longer than the TTL: double holder', async () => {
  assertDoubleHolder(await replayScenarioAs('redlock-pause', 'npm:redlock'));
});

test("npm:redlock + Kleppmann's scenario: double holder", async () => {
  assertDoubleHolder(await replayScenario('npm-redlock-kleppmann'));
});

test('npm:redlock + one master restarted without persistence: double holder', async () => {
  // Up to 3 runs (the replay stops at the first that breaks): the restarted master must be back
  // within c2's 2000 ms of retries, and once under a loaded CI the one run's c2 found it not yet up.
  assertDoubleHolder(await replayScenario('npm-redlock-restart', 3));
});

test('npm:redlock + the restart delayed beyond the TTL: safe', async () => {
  // Two runs of the plan: SAFE needs a hold released, and on a loaded machine one run's timing
  // once left none (exit 3, no violation); the coverage of both counts.
  const r = await replayScenario('npm-redlock-restart-delayed', 2);
  assertSafe(r);
  // The restart really waited past the lease (npm:redlock's second client gives up meanwhile: no double holder).
  const history = readFileSync(path.join(r.summary!.dir, 'history.jsonl'), 'utf8');
  const down = /"f":"kill-stop".*?"down_ms":(\d+)/.exec(history);
  assert.ok(down && Number(down[1]) >= 6000, `kill-stop: ${down?.[0]}`);
});

test('npm:redis-semaphore (Mutex, one node) + client pause longer than the TTL: double holder', async () => {
  assertDoubleHolder(await replayScenarioAs('redlock-pause', 'npm:redis-semaphore'));
});

// Up to 3 runs, stopping at the first that breaks: once in CI its one run's c2 did not get the lock
// (5 of 5 single runs broke it alone, 2026-11-30); the clock jump on n3 comes 300 ms before c2 asks.
test("npm:redis-semaphore-redlock (RedlockMutex) + Kleppmann's scenario: double holder", async () => {
  assertDoubleHolder(await replayScenario('npm-redis-semaphore-redlock-kleppmann', 3));
});
