// `lockpick run` on a real ZooKeeper ensemble, random search (no fixed plan), 3 clients:
// seed 000's own code (proceeds as holder when its wait runs out) breaks on a wait shorter
// than the queue ahead; a client that ignores Disconnected and is cut off past its session
// timeout while it holds (an anchored partition) keeps believing after the server gave its
// node away; the careful client (treat-as-loss, renewing through its holds) stays safe under
// the same partitions and ZooKeeper server pauses.
import { test } from 'node:test';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { anomalyTypes, lockpick, tempStore, type CliResult } from './run-helpers.ts';

const ZK = ['run', '--lock', 'zk-ephemeral-sequential', '--clients', '3', '--shrink-time', '3', '--json'];
const firstTypes = (r: CliResult) => [...anomalyTypes(r), ...((r.summary?.firstAnomalies ?? []) as { type: string }[]).map((a) => a.type)];
const planned = (r: CliResult, re: RegExp) => r.summary!.minimal!.plan.faults.some((f) => re.test(JSON.stringify(f)));

test('seed 000 (afterWait=assume-held), no faults, 3 clients: double holder', async () => {
  const r = await lockpick([...ZK, '--lock-opt', 'afterWait=assume-held', '--time', '100', '--store', tempStore()], 170_000);
  assert.equal(r.code, 1, r.stderr);
  assert.ok(firstTypes(r).includes('double-holder'), `anomalies: ${firstTypes(r)}`);
  console.log(`assume-held: first violation after ${r.summary!.firstAfterMs} ms of search`);
});

test('onDisconnect=ignore + a client partitioned in its critical section past its session: double holder', async () => {
  const r = await lockpick([...ZK, '--lock-opt', 'onDisconnect=ignore', '--faults', 'partition', '--time', '120', '--store', tempStore()], 200_000);
  assert.equal(r.code, 1, r.stderr);
  assert.ok(firstTypes(r).includes('double-holder'), `anomalies: ${firstTypes(r)}`);
  // Found through the anchored cut, and the plans asked for renew (the sloppy client has none to call).
  assert.ok(planned(r, /"point":"in-critical-section"/), JSON.stringify(r.summary!.minimal!.plan.faults));
  assert.ok(r.summary!.minimal!.plan.clients.every((c) => c.attempts.every((a) => a.renew)));
  console.log(`ignore: first violation after ${r.summary!.firstAfterMs} ms of search`);
});

test('onDisconnect=treat-as-loss + the same partitions and server pauses, leader pauses among them: SAFE', async () => {
  const store = tempStore();
  const r = await lockpick([...ZK, '--faults', 'partition,pause', '--time', '60', '--store', store], 150_000);
  assert.equal(r.code, 0, `${r.stderr}\n${JSON.stringify(r.summary?.gaps)}`);
  assert.equal(r.summary!.verdict, true);
  assert.ok(r.summary!.coverage.faultsApplied.partition! > 0 && r.summary!.coverage.faultsApplied.pause! > 0);
  // The ensemble's leader was among the paused servers (resolved when each pause started).
  const events = readdirSync(store).flatMap((d) => readFileSync(join(store, d, 'history.jsonl'), 'utf8').split('\n'))
    .filter((l) => l.includes('"pause-start"')).map((l) => JSON.parse(l) as { value: { target: string; nodes: string[] } });
  const leaderPauses = events.filter((e) => e.value.target === 'leader');
  assert.ok(leaderPauses.length > 0, `pauses: ${events.map((e) => e.value.target).join(', ')}`);
  console.log(`treat-as-loss: ${events.length} server pauses applied, ${leaderPauses.length} of the leader (${leaderPauses.map((e) => e.value.nodes[0]).join(', ')})`);
});
