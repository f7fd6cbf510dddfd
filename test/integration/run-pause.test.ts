// `lockpick run` end to end on real Redis: client pauses (SIGSTOP of a client
// worker) longer than the lease break the SET NX PX recipes whose unlock is not atomic.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { anomalyTypes, lockpick, tempStore } from './run-helpers.ts';
import { planOps } from '../../src/workload/plan.ts';

test('redis-set-px-del + client pause longer than the TTL: double holder and stale unlock, shrunk, replayable', async () => {
  const store = tempStore();
  const r = await lockpick(['run', '--lock', 'redis-set-px-del', '--faults', 'client-pause', '--pause-at', 'in-critical-section',
    '--clients', '3', '--first-failure', '--time', '60', '--shrink-time', '6', '--store', store, '--json']);
  assert.equal(r.code, 1, r.stderr);
  const s = r.summary!;
  assert.equal(s.verdict, false);
  const types = anomalyTypes(r);
  assert.ok(types.includes('double-holder'), `anomalies: ${types}`);
  const first = (s.firstAnomalies as { type: string }[]).map((a) => a.type);
  assert.ok([...types, ...first].includes('stale-release'), `no stale unlock named: ${types} / ${first}`);
  assert.ok(s.firstAfterMs! < 60_000);
  assert.ok(s.minimal!.faults <= 2 && s.minimal!.faults >= 1);
  assert.ok(planOps(s.minimal!.plan) <= 18, `shrunk plan has ${planOps(s.minimal!.plan)} ops`);
  console.log(`set-px-del: found after ${s.firstAfterMs} ms, shrunk to ${planOps(s.minimal!.plan)} ops and ${s.minimal!.faults} fault(s)`);
  // The plain-words report and the stored files.
  assert.match(r.stderr, /UNSAFE: redis-set-px-del/);
  assert.match(r.stderr, /pause client c\d for \d+ ms the next time it reaches 'in-critical-section'/);
  assert.match(r.stderr, /replay: +lockpick run --replay /);
  for (const f of ['history.jsonl', 'test.json', 'results.json', 'counterexample/history.jsonl', 'counterexample/timeline.html', 'counterexample/junit.xml']) {
    assert.ok(existsSync(path.join(s.dir, f)), `missing ${f}`);
  }
  // The stored minimal plan replays to a violation.
  const again = await lockpick(['run', '--replay', s.dir, '--runs', '3', '--store', store, '--json']);
  assert.equal(again.code, 1, again.stderr);
  assert.match(again.stderr, /REPRODUCED/);
});

test('redis-set-px-check-del + a pause between compare and delete: stale unlock found', async () => {
  const store = tempStore();
  const r = await lockpick(['run', '--lock', 'redis-set-px-check-del', '--faults', 'client-pause', '--pause-at', 'after-compare',
    '--clients', '6', '--first-failure', '--time', '60', '--shrink-time', '5', '--store', store, '--json', '--lang', 'zh-CN']);
  assert.equal(r.code, 1, r.stderr);
  // --lang: the counterexample's timeline page in Chinese, its anomalies named in it.
  const page = readFileSync(path.join(r.summary!.dir, 'counterexample', 'timeline.html'), 'utf8');
  assert.match(page, /<html lang="zh-CN">/);
  assert.match(page, /<b class="atype">误删他人的锁：/);
  const types = anomalyTypes(r);
  const first = (r.summary!.firstAnomalies as { type: string }[]).map((a) => a.type);
  assert.ok([...types, ...first].includes('stale-release'), `no stale unlock named: ${types} / ${first}`);
  assert.match(JSON.stringify(r.summary!.firstAnomalies), /stale unlock: process \d+/);
  assert.ok(r.summary!.minimal!.plan.faults.every((f) => f.params?.point === 'after-compare'));
  assert.match(r.stderr, /'after-compare'/);
});
