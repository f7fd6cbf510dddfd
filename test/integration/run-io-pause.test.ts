// Client pauses at I/O points (src/runner/io-points.ts) on real Redis: a user lock that declares
// no pause point is paused between its GET and its DEL by random search alone, and the same lock
// with an atomic Lua unlock stays SAFE under the same faults and budget. Both are restricted to
// the I/O points (--pause-at send,reply): a pause in the critical section longer than the lease
// breaks every lease lock (the classic GC pause), which would hide what these points add.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { anomalyTypes, lockpick, tempStore } from './run-helpers.ts';
import { parseIoPoint } from '../../src/workload/plan.ts';

// Six clients of up to six attempts: a DEL let go late frees another's key, and only a third
// acquire inside that holder's lease shows it, so the race needs clients queueing.
const io = ['--faults', 'client-pause', '--pause-at', 'send,reply', '--clients', '6', '--max-attempts', '6', '--store'];

test('GET-then-DEL unlock with no declared points: a pause between GET and DEL is found, shrunk, and told in words', async () => {
  const r = await lockpick(['run', '--lock', './test/fixtures/locks/get-del-unlock.ts', ...io, tempStore(),
    '--time', '90', '--shrink-time', '10', '--seed', '2', '--json'], 150_000);
  assert.equal(r.code, 1, r.stderr.slice(-3000));
  const s = r.summary!;
  const types = [...anomalyTypes(r), ...(s.firstAnomalies as { type: string }[]).map((a) => a.type)];
  // Only a pause inside the unlock frees another client's key: the stale unlock names it.
  assert.ok(types.includes('stale-release'), `anomalies: ${types}`);
  const points = s.minimal!.plan.faults.map((f) => String(f.params?.point));
  assert.ok(points.length >= 1 && points.every((p) => parseIoPoint(p)), `the counterexample pauses at an I/O point: ${points}`);
  assert.match(r.stderr, /pause client c\d for \d+ ms just (before|after) the \d+(st|nd|rd|th) (command|reply) of its next (acquire|release) \((send|reply):(acquire|release):\d+\)/);
  // The history records the fault as every anchored pause: start and stop with the point's name.
  const events = readFileSync(path.join(s.dir, 'counterexample', 'history.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const start = events.find((e) => e.f === 'client-pause-start');
  assert.ok(start && parseIoPoint(start.value.point), JSON.stringify(start));
  assert.ok(events.some((e) => e.f === 'client-pause-stop' && e.value.point === start.value.point));
});

test('the same lock with a Lua unlock stays SAFE under pauses at every I/O point', async () => {
  const r = await lockpick(['run', '--lock', './test/fixtures/locks/lua-unlock.ts', ...io, tempStore(),
    '--time', '35', '--seed', '2', '--json'], 120_000);
  assert.equal(r.code, 0, r.stderr.slice(-3000));
  assert.equal(r.summary!.verdict, true);
  // Pauses did land (a SAFE verdict promises every requested kind took effect).
  assert.match(r.stderr, /faults applied: client-pause [1-9]/);
});
