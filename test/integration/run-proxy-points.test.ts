// I/O points without hooks (src/proxy/points.ts, src/runner/proxy-points.ts): a lock whose client
// is redis-cli, a child process no hook of the worker sees, is paused by the fault proxy holding
// its request: just before the DEL of its GET-compare-DEL unlock (send:release:2) it frees
// another client's lock; the Lua unlock stays SAFE paused before its one release command.
// The MySQL and PostgreSQL framers on real servers: a Node lock that asks for the proxy's points
// learns one send per query (and the handshake's response), as the worker's hooks do.
// ZooKeeper's framer on a real ensemble: zk-ephemeral's C client held before its DELETE.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { anomalyTypes, lockpick, tempStore } from './run-helpers.ts';
import { assertSafe, replayReleasePause } from './run-scenarios.ts';

const historyOf = (dir: string) => readFileSync(path.join(dir, 'history.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));

test('redis-cli GET-compare-DEL: the proxy holds the DEL, c1 is paused there and frees c2\'s lock', async () => {
  const r = await replayReleasePause('test/fixtures/locks/cli-get-del-unlock.ts', 'send:release:2');
  assert.equal(r.code, 1, r.stderr.slice(-3000));
  assert.ok(anomalyTypes(r).includes('stale-release'), `anomalies: ${anomalyTypes(r)}`);
  const start = historyOf(r.summary!.dir).find((e) => e.f === 'client-pause-start');
  assert.equal(start?.value.point, 'send:release:2', JSON.stringify(start));
  assert.equal(start?.value.command, 'DEL', 'the proxy names the held command');
  assert.match(r.stderr, /just before its DEL \(the 2nd command of its release\) went out/);
});

test('redis-cli Lua unlock: SAFE paused before its release\'s EVAL and its acquire\'s SET', async () => {
  const r = await replayReleasePause('test/fixtures/locks/cli-lua-unlock.ts', 'send:release:1',
    [{ kind: 'client-pause', at_ms: 0, duration_ms: 200, target: 'c3', params: { point: 'send:acquire:1' } }]);
  assertSafe(r);
  const events = historyOf(r.summary!.dir);
  const points = events.filter((e) => e.f === 'client-pause-start').map((e) => `${e.value.point} ${e.value.command}`);
  assert.deepEqual(points.sort(), ['send:acquire:1 SET', 'send:release:1 EVAL']);
});

test('the GET-compare-DEL plan replayed against the Lua unlock (--lock), judged by --property lock: its pause before the 2nd command moved to the fix\'s one command, said; SAFE', async () => {
  const r = await replayReleasePause('test/fixtures/locks/cli-get-del-unlock.ts', 'send:release:2', [], ['--lock', 'test/fixtures/locks/cli-lua-unlock.ts', '--property', 'lock']);
  assertSafe(r);
  assert.match(r.stderr, /judged by --property lock \(the stored run's: both\)/);
  assert.match(r.stderr, /replay: plan\.faults\[0\]\.params\.point: send:release:2 moved to send:release:1: this lock's release makes 1 request\(s\) at most/);
  const starts = historyOf(r.summary!.dir).filter((e) => e.f === 'client-pause-start').map((e) => `${e.value.point} ${e.value.command}`);
  assert.deepEqual(starts, ['send:release:1 EVAL'], 'c1 paused before the fix\'s EVAL, as the stored plan paused the DEL');
  const stored = JSON.parse(readFileSync(path.join(r.summary!.dir, 'test.json'), 'utf8')) as { property: string; plan: { faults: { params: { point: string } }[] }; replay_moved: string[] };
  assert.equal(stored.plan.faults[0]!.params.point, 'send:release:1', 'the run dir replays what this replay ran');
  assert.equal(stored.property, 'lock');
  assert.equal(stored.replay_moved.length, 1);
});

test('calibration learns the proxy\'s send points of a redis-cli lock: the GET and the DEL of its release', async () => {
  const r = await lockpick(['run', '--lock', './test/fixtures/locks/cli-get-del-unlock.ts', '--faults', 'client-pause', '--pause-at', 'send',
    '--time', '1', '--shrink-time', '1', '--seed', '1', '--store', tempStore(), '--json'], 90_000);
  assert.match(r.stderr, /points learned from a calibration run: acquire sends 1\.\.\d+( \(of \d+\))?, release sends 1\.\.2\b/, r.stderr.slice(-3000));
});

for (const [lock, learned] of [
  // Its connection opens in the first acquire: the handshake response, then GET_LOCK.
  ['proxy-mysql-get-lock', /acquire sends 1\.\.2, release sends 1\.\.1\b/],
  ['proxy-pg-advisory', /acquire sends 1\.\.\d+( \(of \d+\))?, release sends 1\.\.1\b/],
] as const) {
  test(`${lock}: the proxy frames the wire protocol, one send per query (calibration)`, async () => {
    const r = await lockpick(['run', '--lock', `./test/fixtures/locks/${lock}.ts`, '--faults', 'client-pause', '--pause-at', 'send',
      '--time', '1', '--shrink-time', '1', '--seed', '1', '--store', tempStore(), '--json'], 90_000);
    assert.match(r.stderr, new RegExp(`points learned from a calibration run: ${learned.source}`), r.stderr.slice(-3000));
  });
}

test('zk-ephemeral (the zookeeper package\'s C client, no hook sees it): the proxy holds its release\'s DELETE', async () => {
  const dir = tempStore();
  writeFileSync(path.join(dir, 'test.json'), JSON.stringify({
    description: 'c1 paused just before its release\'s first request; c2 waits for the lock meanwhile', lock: 'zk-ephemeral', lock_spec: { name: 'zk-ephemeral' }, property: 'both',
    plan: {
      ttlMs: 2000,
      clients: [
        { attempts: [{ key: 'k0', delayMs: 0, waitMs: 1000, holdMs: 300, renew: false }] },
        // After c1's acquire returned ok: started 100 ms after c1, c2 could win the create under load, and c1, then a waiter,
        // sends EXISTS watches on its link (a loaded CI run held an EXISTS as c1's release began).
        { attempts: [{ key: 'k0', delayMs: 100, waitMs: 3000, holdMs: 100, renew: false, after: { client: 'c1', op: 'acquire', type: 'ok', nth: 1 } }] },
      ],
      faults: [{ kind: 'client-pause', at_ms: 0, duration_ms: 300, target: 'c1', params: { point: 'send:release:1' } }],
    },
  }));
  const r = await lockpick(['run', '--replay', dir, '--runs', '1', '--store', tempStore(), '--json'], 90_000);
  assertSafe(r);
  const start = historyOf(r.summary!.dir).find((e) => e.f === 'client-pause-start');
  assert.equal(start?.value.point, 'send:release:1', JSON.stringify(start));
  // The framer names the held request: the DELETE, or now and then a request the C client sent
  // on the same link as the release began (a GETCHILDREN2 or an EXISTS for a watch, seen in loaded
  // CI runs): the proxy counts a link's requests, not an operation's. A name it read, never a guess.
  assert.ok(['DELETE', 'GETCHILDREN2', 'EXISTS'].includes(String(start?.value.command)), `the ZooKeeper framer names the held request: ${JSON.stringify(start)}`);
});
