// `lockpick run` on a real ZooKeeper ensemble, random search (no fixed plan), 3 clients:
// the Redis and ZooKeeper post's own code (proceeds as holder when its wait runs out) breaks on a wait shorter
// than the queue ahead; a client that ignores Disconnected and is cut off past its session
// timeout while it holds (an anchored partition) keeps believing after the server gave its
// node away, found in seconds by the session-expiry aim (src/workload/aims/session-expiry.ts;
// 75 s of uniformly random search before it); the careful client (treat-as-loss, renewing
// through its holds) stays safe under a stored plan holding that aimed cut, a server partition
// and a pause of the ensemble's leader (a replay: SAFE is no detection, so no search is needed).
import { test } from 'node:test';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { anomalyTypes, grantsDuringAnchoredCuts, lockpick, repoRoot, runDirs, tempStore, type CliResult } from './run-helpers.ts';

const ZK = ['run', '--lock', 'zk-ephemeral-sequential', '--clients', '3', '--shrink-time', '3', '--json'];
const firstTypes = (r: CliResult) => [...anomalyTypes(r), ...((r.summary?.firstAnomalies ?? []) as { type: string }[]).map((a) => a.type)];
const planned = (r: CliResult, re: RegExp) => r.summary!.minimal!.plan.faults.some((f) => re.test(JSON.stringify(f)));

test('the Redis and ZooKeeper post\'s ZooKeeper code (afterWait=assume-held), no faults, 3 clients: double holder', async () => {
  const r = await lockpick([...ZK, '--lock-opt', 'afterWait=assume-held', '--first-failure', '--time', '100', '--store', tempStore()], 170_000);
  assert.equal(r.code, 1, r.stderr);
  assert.ok(firstTypes(r).includes('double-holder'), `anomalies: ${firstTypes(r)}`);
  console.log(`assume-held: first violation after ${r.summary!.firstAfterMs} ms of search`);
});

test('onDisconnect=ignore + a client partitioned in its critical section past its session: double holder', async () => {
  // The aim draws two plans in three and an aimed run takes ~5 s: found in the first runs.
  const r = await lockpick([...ZK, '--lock-opt', 'onDisconnect=ignore', '--faults', 'partition', '--first-failure', '--time', '45', '--store', tempStore()], 120_000);
  assert.equal(r.code, 1, r.stderr);
  assert.ok(firstTypes(r).includes('double-holder'), `anomalies: ${firstTypes(r)}`);
  // Found through the anchored cut, and the plans asked for renew (the sloppy client has none to call).
  assert.ok(planned(r, /"point":"in-critical-section"/), JSON.stringify(r.summary!.minimal!.plan.faults));
  assert.ok(r.summary!.minimal!.plan.clients.every((c) => c.attempts.every((a) => a.renew)));
  console.log(`ignore: first violation after ${r.summary!.firstAfterMs} ms of search`);
});

test('onDisconnect=treat-as-loss + the aimed cut, a server partition and a leader pause in one plan: SAFE', async () => {
  // A stored plan, not a search: what the search would have to draw (an anchored cut of the
  // holder past its session, another server partitioned, the ensemble's leader paused while
  // clients wait) all in one run, so every assertion below is about that run.
  const store = tempStore();
  const r = await lockpick(['run', '--replay', treatAsLossPlan(), '--runs', '1', '--store', store, '--json'], 90_000);
  assert.equal(r.code, 0, `${r.stderr}\n${JSON.stringify(r.summary?.gaps)}`);
  assert.equal(r.summary!.verdict, true);
  assert.ok(r.summary!.coverage.faultsApplied.partition! >= 2 && r.summary!.coverage.faultsApplied.pause! > 0, JSON.stringify(r.summary!.coverage.faultsApplied));
  // The ensemble's leader was among the paused servers (resolved when the pause started).
  const lines = runDirs(store).flatMap((d) => readFileSync(join(d, 'history.jsonl'), 'utf8').split('\n')).filter((l) => l.trim());
  const events = lines.filter((l) => l.includes('"pause-start"')).map((l) => JSON.parse(l) as { value: { target: string; nodes: string[] } });
  const leaderPauses = events.filter((e) => e.value.target === 'leader');
  assert.ok(leaderPauses.length > 0, `pauses: ${events.map((e) => e.value.target).join(', ')}`);
  // The aim played out: c1 cut in its critical section, and another client granted the lock
  // before the cut ended (after c1's session expired), while the careful c1 had given up its hold.
  const granted = grantsDuringAnchoredCuts(lines);
  assert.ok(granted > 0, 'no client got the lock while another was cut in its critical section');
  console.log(`treat-as-loss: ${events.length} server pause(s), ${leaderPauses.length} of the leader (${leaderPauses.map((e) => e.value.nodes[0]).join(', ')}); ${granted} grant(s) inside an anchored cut`);
});

/**
 * scenarios/zk-treat-as-loss (c1 cut in its critical section past its session, c2 granted during
 * the cut) with two server faults after it, a server partitioned away and the leader paused past
 * the session timeout while c1 (again) and c3 try, and c5 asking while c4 holds once all healed.
 */
function treatAsLossPlan(): string {
  const test = JSON.parse(readFileSync(join(repoRoot, 'scenarios', 'zk-treat-as-loss', 'test.json'), 'utf8')) as { description: string; plan: { clients: { attempts: unknown[] }[]; faults: unknown[] } };
  const attempt = (delayMs: number) => ({ key: 'k0', delayMs, waitMs: 8000, holdMs: 300, renew: true });
  test.plan.clients[0]!.attempts.push(attempt(500));
  test.plan.clients.push({ attempts: [attempt(3000), attempt(1000)] });
  // Two more that meet after everything healed (c5 asks while c4 holds): contention whatever the
  // faults did to the others.
  test.plan.clients.push({ attempts: [{ ...attempt(7000), holdMs: 1500 }] }, { attempts: [attempt(7700)] });
  test.plan.faults.push(
    { kind: 'partition', at_ms: 3000, duration_ms: 1500, target: 'n1' },
    { kind: 'pause', at_ms: 3500, duration_ms: 2500, target: 'leader' },
  );
  test.description = 'zk-treat-as-loss, then a partitioned server and a paused leader while c1 and c3 contend';
  const dir = tempStore();
  writeFileSync(join(dir, 'test.json'), JSON.stringify(test));
  return dir;
}
