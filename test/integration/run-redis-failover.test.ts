// `lockpick run` end to end (issue 5): Redis Sentinel loses the lock in a
// failover before replication, with and without WAIT 1 (fixed schedules in
// scenarios/), and the Redisson-style watchdog lock breaks when its client is
// paused (the watchdog stops with it), found by search.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { CliResult } from './run-helpers.ts';
import { assertDoubleHolder, replayScenario, searchPauseDoubleHolder } from './run-scenarios.ts';

/** The stored history shows the failover: a replica promoted, the old primary demoted after it came back. */
function failoverRecord(r: CliResult): void {
  const events = readFileSync(path.join(r.summary!.dir, 'history.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { f: string; value?: Record<string, unknown> });
  const start = events.find((e) => e.f === 'failover-start')?.value;
  assert.ok(start && start.new_primary !== start.old_primary, `no promotion recorded: ${JSON.stringify(start)}`);
  const stop = events.find((e) => e.f === 'failover-stop')?.value;
  assert.equal(stop?.demoted, true, `old primary not demoted: ${JSON.stringify(stop)}`);
}

test('redis-sentinel + failover before replication: double holder', async () => {
  const r = await replayScenario('sentinel-failover');
  assertDoubleHolder(r);
  failoverRecord(r);
});

test('redis-sentinel (WAIT 1 after the SET) + failover before replication: still a double holder', async () => {
  const r = await replayScenario('sentinel-failover-wait');
  assertDoubleHolder(r);
  failoverRecord(r);
});

test('redisson-style + client pause longer than the TTL (the watchdog stops too): double holder', async () => {
  const r = await searchPauseDoubleHolder('redisson-style');
  assert.match(r.stderr, /under model reentrant-mutex/);
});
