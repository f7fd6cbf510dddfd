// `lockpick run` end to end (issue 5): Redis Sentinel loses the lock in a
// failover before replication, with and without WAIT 1 (fixed schedules in
// scenarios/), and the Redisson-style watchdog lock breaks when its client is
// paused (the watchdog stops with it), found by search; its runs re-enter the
// lock and the reentrant-mutex model counts the holds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { lockpick, tempStore, type CliResult } from './run-helpers.ts';
import { assertDoubleHolder, replayScenario } from './run-scenarios.ts';

/**
 * The stored history shows the failover: a replica promoted, the old primary demoted after it
 * came back, and no fault failed to start or heal (run-fault-kinds.test.ts leaves the failover
 * kind's "takes effect and is healed" to these replays).
 */
function failoverRecord(r: CliResult): void {
  const all = readFileSync(path.join(r.summary!.dir, 'history.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { f: string; process?: unknown; value?: Record<string, unknown> });
  // The last run's events (the replay stops at the run that broke the lock).
  const events = all.slice(all.map((e) => e.f).lastIndexOf('run-start'));
  const nemesis = events.filter((e) => e.process === 'nemesis').map((e) => e.f);
  assert.ok(!nemesis.some((f) => f.endsWith('-start-failed') || f === 'heal-failed'), nemesis.join(', '));
  const start = events.find((e) => e.f === 'failover-start')?.value;
  assert.ok(start && start.new_primary !== start.old_primary, `no promotion recorded: ${JSON.stringify(start)}`);
  const stop = events.find((e) => e.f === 'failover-stop')?.value;
  assert.equal(stop?.demoted, true, `old primary not demoted: ${JSON.stringify(stop)}`);
  // Its steps, recorded as they were taken (the timeline draws the fault from the first): the cut
  // and the kill come before the start record, written once the replica is promoted.
  const steps = events.flatMap((e, i) => (e.f === 'failover-step' ? [{ i, step: String(e.value?.step) }] : []));
  const at = events.findIndex((e) => e.f === 'failover-start');
  assert.deepEqual(steps.map((x) => x.step), [`replication of ${start.old_primary} cut`, `${start.old_primary} killed`, `${start.new_primary} promoted`, `${start.old_primary} back, until Sentinel demotes it`]);
  assert.ok(steps[1]!.i < at && steps[3]!.i > at, 'cut, kill and promotion before the start record; the primary back after it');
}

// Up to 3 runs of each plan, stopping at the first that breaks: under a loaded CI a run's promotion
// once came after c2's 5 s of retries, and that run's c2 never got the lock (no second holder).
test('redis-sentinel + failover before replication: double holder', async () => {
  const r = await replayScenario('sentinel-failover', 3);
  assertDoubleHolder(r);
  failoverRecord(r);
});

test('redis-sentinel (WAIT 1 after the SET) + failover before replication: still a double holder', async () => {
  const r = await replayScenario('sentinel-failover-wait', 3);
  assertDoubleHolder(r);
  failoverRecord(r);
});

test('redisson-style + client pause longer than the TTL (the watchdog stops too): double holder', async () => {
  // The catalogue's plan (random search finds pauses in other files: run-pause, run-redis-multi).
  const r = await replayScenario('redisson-style-pause');
  assertDoubleHolder(r);
  assert.match(r.stderr, /under model reentrant-mutex/);
});

test('redisson-style runs re-enter the lock; the reentrant-mutex model counts the holds (and catches a missing inner unlock)', async () => {
  const r = await lockpick(['run', '--lock', 'redisson-style', '--clients', '3', '--first-failure', '--time', '16', '--seed', '1', '--store', tempStore(), '--json'], 60_000);
  assert.equal(r.code, 0, r.stderr);
  const file = path.join(r.summary!.dir, 'history.jsonl');
  const lines = readFileSync(file, 'utf8').trim().split('\n');
  type Ev = { type: string; f: string; process: number | string; key?: string };
  const events = lines.map((l) => JSON.parse(l) as Ev);
  // Nested holds: an ok acquire by a process that already holds that key.
  const depth = new Map<string, number>();
  const nested: number[] = [];
  const open = new Map<number | string, Ev>();
  events.forEach((e, i) => {
    if (e.process === 'nemesis') return;
    if (e.type === 'invoke') { open.set(e.process, e); return; }
    const k = `${e.process}/${e.key}`;
    if (e.type === 'ok' && e.f === 'acquire') {
      if ((depth.get(k) ?? 0) > 0) nested.push(i);
      depth.set(k, (depth.get(k) ?? 0) + 1);
    }
    if (e.type === 'ok' && e.f === 'release') depth.set(k, (depth.get(k) ?? 1) - 1);
  });
  assert.ok(nested.length >= 3, `only ${nested.length} re-entries in ${r.summary!.runs} runs`);
  const ok = await lockpick(['check', file, '--model', 'reentrant-mutex']);
  assert.equal(ok.code, 0, ok.stdout + ok.stderr);
  // Drop the inner release (invoke and ok) that follows a re-entry whose key someone else locks later: that holder must now be a violation.
  for (const at of nested) {
    const e = events[at]!;
    const rel = events.findIndex((x, j) => j > at && x.process === e.process && x.f === 'release' && x.type === 'invoke');
    if (rel < 0) continue;
    // Its completion: the process's next event (other clients' events may come between).
    const done = events.findIndex((x, j) => j > rel && x.process === e.process);
    const later = events.some((x, j) => j > rel && x.key === e.key && x.process !== e.process && x.f === 'acquire' && x.type === 'ok');
    if (done < 0 || events[done]!.f !== 'release' || events[done]!.type !== 'ok' || !later) continue;
    const cut = path.join(r.summary!.dir, 'cut.jsonl');
    writeFileSync(cut, lines.filter((_, j) => j !== rel && j !== done).map((l, j) => l.replace(/"index":\d+/, `"index":${j}`)).join('\n') + '\n');
    const bad = await lockpick(['check', cut, '--model', 'reentrant-mutex']);
    assert.equal(bad.code, 1, `a hold left at count 1 went unnoticed:\n${bad.stdout}`);
    return;
  }
  assert.fail('no re-entry followed by another client\'s lock of the same key to tamper with');
});
