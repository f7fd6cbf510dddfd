// test-lane: beside (its servers are its own; the crash follows the cut whatever the timing)
// A user's node-redis lock with no 'error' listener, on real Redis: c1's links are cut while it
// holds the lock, its client emits 'error' with nobody listening, and its process crashes. That
// is the lock's robustness failure (client-crash: exit 1, with the stack and the cut before it),
// and the dead process is never taken for a holder when c2 is granted the lock after it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { lockpick, tempStore } from './run-helpers.ts';

const LOCK = './test/fixtures/locks/node-redis-no-listener.ts';

test("a lock whose client library throws on a cut link: client-crash with the stack and the fault before it, exit 1, no double holder", async () => {
  const plan = tempStore();
  writeFileSync(path.join(plan, 'test.json'), JSON.stringify({
    description: "c1 holds with an 800 ms lease; 150 ms in its links are cut (connections closed); c2 asks from 300 ms on",
    lock: LOCK, lock_spec: { path: LOCK }, property: 'both',
    plan: {
      ttlMs: 800,
      clients: [
        { attempts: [{ key: 'k0', delayMs: 0, waitMs: 1000, holdMs: 1500, renew: false }] },
        { attempts: [{ key: 'k0', delayMs: 300, waitMs: 2000, holdMs: 200, renew: false }] },
      ],
      faults: [{ kind: 'partition', at_ms: 150, duration_ms: 300, target: 'client:c1' }],
    },
  }));
  const r = await lockpick(['run', '--replay', plan, '--runs', '1', '--store', tempStore(), '--json'], 90_000);
  assert.equal(r.code, 1, r.stderr);
  // The text report: the anomaly, the fault before it, the library's frame in the stack; no double holder.
  // (Holding, unless a loaded machine kept its SET from returning within 150 ms.)
  assert.match(r.stderr, /client-crash on key "r1-k0": c1's process crashed (while holding the lock|during its acquire) at [\d.]+ s, after partition of client:c1 \(line \d+\): Error: Socket closed unexpectedly/);
  assert.match(r.stderr, /stack:\n\s+Error: Socket closed unexpectedly\n\s+at .*node_modules[\\/]@redis[\\/]client/);
  assert.doesNotMatch(r.stderr, /double-holder/);
  const dir = r.summary!.dir;
  const res = JSON.parse(readFileSync(path.join(dir, 'results.json'), 'utf8')) as { last: { check: { anomalies: { type: string; crash?: { fault?: { kind: string } } }[] }; problems: string[] } };
  assert.deepEqual(res.last.check.anomalies.map((a) => a.type), ['client-crash']);
  assert.equal(res.last.check.anomalies[0]!.crash!.fault!.kind, 'partition');
  assert.deepEqual(res.last.problems, [], 'a crash of the lock is its finding, not a problem of the run');
  // c2 was granted the lock after c1 died: the crash ended c1's belief before that grant.
  const history = readFileSync(path.join(dir, 'history.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { f: string; type: string; client?: string; process: unknown });
  const crashAt = history.findIndex((e) => e.f === 'client-crash');
  const held = history.some((e, i) => i < crashAt && e.f === 'acquire' && e.type === 'ok' && e.process === 0);
  const lapseAt = history.findIndex((e, i) => i > crashAt && e.f === 'release' && e.type === 'ok' && e.process === 0);
  const c2 = history.find((e) => e.client === 'c2')?.process;
  const grantAt = history.findIndex((e) => e.f === 'acquire' && e.type === 'ok' && e.process === c2);
  assert.ok(crashAt > 0 && crashAt < grantAt, `crash line ${crashAt + 1}, c2's grant ${grantAt + 1}`);
  if (held) assert.ok(crashAt < lapseAt && lapseAt < grantAt, `crash line ${crashAt + 1}, lapse ${lapseAt + 1}, c2's grant ${grantAt + 1}`);
  // JUnit and the timeline show it too.
  assert.match(readFileSync(path.join(dir, 'junit.xml'), 'utf8'), /UNSAFE: 1 anomaly \(client-crash\)[\s\S]*stack:/);
  assert.match(readFileSync(path.join(dir, 'counterexample', 'timeline.html'), 'utf8'), /class="tick-crash an-0"/);
});
