// test-lane: beside (its memcached is its own; the verdict is one aimed replay, not a race)
// A Python process client on memcached (pymemcache, test/fixtures/process-clients/) gets `send`
// points from the fault proxy's memcached framing (src/proxy/framing/memcached.ts): calibration
// learns the GET and the DELETE of its release, and a pause held just before the DELETE
// (send:release:2), past the item's whole-second expiry, deletes the next holder's lock. The
// recipe declares its real lease (whole seconds, a margin): lease_ms is recorded by it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { anomalyTypes, lockpick, markedProcesses, tempStore } from './run-helpers.ts';

const LOCK = './test/fixtures/process-clients/memcached-get-delete.json';

test('pymemcache GET-then-DELETE: calibration learns its release\'s two sends', async () => {
  const r = await lockpick(['run', '--lock', LOCK, '--faults', 'client-pause', '--pause-at', 'send', '--time', '1', '--shrink-time', '0', '--seed', '1', '--store', tempStore()], 90_000);
  assert.match(r.stdout + r.stderr, /points learned from a calibration run: acquire sends 1\.\.\d+( \(of \d+\))?, release sends 1\.\.2\b/, (r.stdout + r.stderr).slice(-3000));
});

test('pymemcache GET-then-DELETE: paused at send:release:2 past its item\'s expiry, it deletes the next holder\'s lock (UNSAFE, stale release)', async () => {
  const dir = tempStore();
  // ttl 2500 ms: the client asks for exptime 4 s, so the item lives 3 to 4 s: the recipe declares
  // whole seconds and a 1 s margin (realLease), so lease_ms is 3000. c1 is held before its DELETE for 4.5 s;
  // c2 takes the lock once c1's item expired and holds it within its lease; c3 asks after c1's
  // DELETE went out, and finds the lock free.
  writeFileSync(path.join(dir, 'test.json'), JSON.stringify({
    description: 'c1 held before the DELETE of its release past its item\'s life; c2 holds meanwhile; c3 asks after the DELETE', lock: LOCK, lock_spec: { path: LOCK }, property: 'both',
    plan: {
      ttlMs: 2500,
      clients: [
        { attempts: [{ key: 'k0', delayMs: 0, waitMs: 1000, holdMs: 300, renew: false }] },
        { attempts: [{ key: 'k0', delayMs: 300, waitMs: 5000, holdMs: 2500, renew: false }] },
        { attempts: [{ key: 'k0', delayMs: 5200, waitMs: 2000, holdMs: 100, renew: false }] },
      ],
      faults: [{ kind: 'client-pause', at_ms: 0, duration_ms: 4500, target: 'c1', params: { point: 'send:release:2' } }],
    },
  }));
  const mark = randomUUID();
  const r = await lockpick(['run', '--replay', dir, '--runs', '1', '--store', tempStore(), '--json'], 90_000, { LOCKPICK_TEST_MARK: mark });
  assert.deepEqual(markedProcesses(mark, /python3|memcached/), [], 'processes left behind');
  assert.equal(r.code, 1, `exit ${r.code}\n${r.stderr.slice(-3000)}`);
  // The DELETE frees c2's lock and c3 joins it: a double holder caused by the pause before the DELETE.
  // When c1's release is answered, it is named a stale release too; pymemcache's socket deadline
  // may pass during the pause, and a release of unknown outcome is no proven stale one.
  assert.ok(anomalyTypes(r).includes('double-holder'), `anomalies: ${anomalyTypes(r)}\n${r.stderr.slice(-4000)}`);
  assert.match(r.stderr, /c1 \(process \d+\) was paused for \d+ ms from [\d.]+ s, just before its DELETE \(the 2nd command of its release\) went out|client-pause of c1 for \d+ ms from [\d.]+ s, just before its DELETE \(the 2nd command of its release\) went out/);
  if (/release \d+ ok, \d+ fail, 0 unknown/.test(r.stderr)) assert.ok(anomalyTypes(r).includes('stale-release'), `anomalies: ${anomalyTypes(r)}\n${r.stderr.slice(-4000)}`);
  const history = readFileSync(path.join(r.summary!.dir, 'history.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const start = history.find((e) => e.f === 'client-pause-start');
  assert.equal(start?.value.point, 'send:release:2', JSON.stringify(start));
  assert.equal(start?.value.command, 'DELETE', 'the proxy names the held command');
  const leases = history.filter((e) => e.type === 'ok' && e.f === 'acquire').map((e) => e.lease_ms);
  assert.ok(leases.length >= 2 && leases.every((ms) => ms === 3000), `lease_ms recorded by the declared real lease: ${leases}`);
});
