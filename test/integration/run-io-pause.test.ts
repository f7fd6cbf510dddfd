// Client pauses at I/O points (src/runner/io-points.ts) on real Redis: a user lock that declares
// no pause point is paused between its GET and its DEL by random search alone, and the same lock
// with an atomic Lua unlock stays SAFE under a stored plan pausing before each of its commands
// (the plan, paused before the DEL, breaks the GET-DEL lock). The search is restricted to
// the points before a command goes out (--pause-at send): a pause in the critical section longer
// than the lease (the classic GC pause), or one between a reply and the acquire's return (a late
// grant), breaks every lease lock that reports no validity, which would hide what these points add.
import { tempDir } from '../support/temp-dir.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { anomalyTypes, lockpick, tempStore } from './run-helpers.ts';
import { replayReleasePause } from './run-scenarios.ts';
import { parseIoPoint } from '../../src/workload/plan.ts';
import { installIoPoints } from '../../src/runner/io-points.ts';
import { createRedisNode } from '../../src/env/redis.ts';
import { freePort } from '../../src/env/ports.ts';

// Six clients of up to six attempts: a DEL let go late frees another's key, and only a third
// acquire inside that holder's lease shows it, so the race needs clients queueing.
const io = ['--faults', 'client-pause', '--pause-at', 'send', '--clients', '6', '--max-attempts', '6', '--store'];

test('GET-then-DEL unlock with no declared points: a pause between GET and DEL is found, shrunk, and told in words', async () => {
  const r = await lockpick(['run', '--lock', './test/fixtures/locks/get-del-unlock.ts', ...io, tempStore(),
    '--first-failure', '--time', '90', '--shrink-time', '4', '--seed', '2', '--json'], 150_000);
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
  // A pause held at a send names the command its bytes held (the report's cause says "its DEL").
  if (parseIoPoint(start.value.point)!.kind === 'send') assert.match(String(start.value.command), /^(GET|DEL|SET)$/, JSON.stringify(start));
  assert.ok(events.some((e) => e.f === 'client-pause-stop' && e.value.point === start.value.point));
});

test('the same lock with a Lua unlock stays SAFE under pauses before each of its commands, where the GET-DEL lock breaks', async () => {
  // A stored plan, not a search (SAFE is no detection): c1 paused just before a command of its
  // release past its lease while c2 takes the lock (replayReleasePause). It bites: paused before
  // the DEL (send:release:2), the GET-then-DEL lock frees c2's lock (a stale unlock).
  const broken = await replayReleasePause('test/fixtures/locks/get-del-unlock.ts', 'send:release:2');
  assert.equal(broken.code, 1, broken.stderr.slice(-3000));
  assert.ok(anomalyTypes(broken).includes('stale-release'), `anomalies: ${anomalyTypes(broken)}`);
  // The report names the cause in the user's terms: c1's pause and the late DEL it held, for every anomaly.
  const causes = broken.stderr.split('\n').filter((l) => /^\s+cause: /.test(l));
  assert.ok(causes.length >= anomalyTypes(broken).length, broken.stderr.slice(-3000));
  for (const c of causes) assert.match(c, /c1 .*paused for \d+ ms from [\d.]+ s, just before its DEL \(the 2nd command of its release\) went out/, c);
  // The Lua lock's two commands: its release's EVAL (c1, as above) and its acquire's SET (c3, briefly).
  const r = await replayReleasePause('test/fixtures/locks/lua-unlock.ts', 'send:release:1',
    [{ kind: 'client-pause', at_ms: 0, duration_ms: 200, target: 'c3', params: { point: 'send:acquire:1' } }]);
  assert.equal(r.code, 0, r.stderr.slice(-3000));
  assert.equal(r.summary!.verdict, true);
  // Both pauses landed (a SAFE verdict promises every requested kind took effect).
  assert.equal(r.summary!.coverage.faultsApplied['client-pause'], 2, r.stderr.slice(-3000));
});

test('ioredis on a real Redis: held commands and replies keep pipelines and queued commands in order', async () => {
  const root = tempDir('lockpick-io-');
  const port = await freePort();
  const node = await createRedisNode({ id: 'n1', role: 'redis', port, root, persistence: 'none' });
  const asked: string[] = [];
  const io = installIoPoints(async (name) => { asked.push(name); await sleep(300); });
  const r = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 0 });
  try {
    await r.connect();
    io.arm([port], ['send:release:2', 'reply:release:2', 'reply:acquire:1']);
    io.operation('release');
    // A SET, then in the next turn of the event loop (the 2nd send, held) commands one by one
    // without waiting (queued behind the held first of them), then a pipeline; the 1st reply
    // arrives while the 2nd send is held, so the rest come in a 2nd chunk or more.
    const set = r.set('k', '1');
    await new Promise((resolve) => setImmediate(resolve));
    const singles = Promise.all([set, r.incr('k'), r.incr('k'), r.get('k')]);
    const piped = r.pipeline().incr('k').get('k').incrby('k', 10).get('k').exec();
    assert.deepEqual(await singles, ['OK', 2, 3, '3']);
    assert.deepEqual((await piped)!.map(([e, v]) => (e ? String(e) : v)), [4, '4', 14, '14']);
    io.operation('acquire');
    assert.equal(await r.set('lock', 'me', 'PX', 1000, 'NX'), 'OK');
    assert.deepEqual(asked, ['send:release:2', 'reply:release:2', 'reply:acquire:1']);
  } finally {
    io.disarm();
    r.disconnect();
    await node.kill();
    rmSync(root, { recursive: true, force: true });
  }
});

test('a reply held through a pause as long as the command timeout is read, not timed out on (the catalogue\'s paused reader)', async () => {
  // c1's acquire reply is held at reply:acquire:1 for 500 ms, the client's command timeout: its
  // timer comes due during the stop and is only ms late on waking. The reply waiting in the
  // socket must be read first: c1 holds the read lock, and c2's write waits for it.
  const r = await lockpick(['run', '--replay', 'scenarios/lua-rwlock-reader-paused', '--store', tempStore(), '--json'], 90_000);
  assert.equal(r.code, 0, r.stderr.slice(-3000));
  const out = r.summary!.coverage.outcomes!;
  assert.ok(out.ops.acquire!.ok >= 2 && out.ops.acquire!.info === 0, `every acquire answered ok: ${JSON.stringify(out)}`);
  assert.deepEqual(out.errors, {}, 'no command timed out on the held reply');
  assert.ok(r.summary!.coverage.faultsApplied['client-pause']! >= 1);
});
