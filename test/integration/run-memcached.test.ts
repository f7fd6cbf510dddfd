// test-lane: beside
// memcached on a real server: the protocol client's three outcomes; the plain-delete lock's
// stale delete under a client pause, the fenced cas lock keeping the resource right and the cas
// lock that reports its validity keeping the lock safe under the same plan; a kill that forgets,
// found on memcached and on Redis without persistence through the same aim (lease-restart: a
// kill, or a graceful stop, anchored at the holder's critical section); clock-bump refused; no
// fault, liveness: safe.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { anomalyTypes, lockpick, tempStore } from './run-helpers.ts';
import { startEnvironment } from '../../src/env/index.ts';
import { MemcachedClient } from '../../src/locks/memcached-client.ts';
import { isDefiniteFailure } from '../../src/locks/lock.ts';

test('the client: replies, refusals (certainly not done) and silence (unknown); cas to an expired item frees only an unchanged one', async () => {
  const env = await startEnvironment('memcached');
  try {
    const n1 = env.nodes.find((n) => n.id === 'n1')!;
    const mc = new MemcachedClient({ host: '127.0.0.1', port: n1.port }, 500);
    await mc.connect();
    assert.deepEqual([await mc.add('k', 'a', 5), await mc.add('k', 'b', 5)], [true, false]);
    const item = (await mc.gets('k'))!;
    assert.equal(item.value, 'a');
    assert.equal(await mc.cas('k', '', -1, String(Number(item.cas) + 1)), 'EXISTS', 'another unique: not ours to free');
    assert.equal(await mc.cas('k', '', -1, item.cas), 'STORED');
    assert.equal(await mc.gets('k'), undefined, 'a negative exptime: gone at once');
    assert.deepEqual([await mc.add('k', 'c', 5), await mc.touch('k', 5), await mc.delete('k'), await mc.delete('k')], [true, true, true, false]);
    // Refused by the server (an item over memcached's 1 MB limit): certainly not stored.
    await assert.rejects(mc.add('big', 'x'.repeat(2 << 20), 5), (e: unknown) => isDefiniteFailure(e) && /SERVER_ERROR/.test((e as Error).message));
    // Written, and the server stopped: the outcome is unknown (a plain error), and the next command connects afresh.
    await n1.pause();
    await assert.rejects(mc.add('k2', 'v', 5), (e: unknown) => !isDefiniteFailure(e) && /outcome unknown/.test((e as Error).message));
    await n1.resume();
    // The old connection's buffered add and this one's gets are served by the server's threads in either order: awaited.
    let got: string | undefined;
    for (let i = 0; i < 50 && (got = (await mc.gets('k2'))?.value) !== 'v'; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(got, 'v', 'the unanswered add did happen');
    // Killed: nothing to connect to, so nothing was sent (certainly not done); a restart forgets every item.
    await n1.kill();
    await assert.rejects(mc.gets('k2'), (e: unknown) => isDefiniteFailure(e));
    await n1.restart();
    assert.equal(await mc.gets('k2'), undefined, 'a restart forgets');
    mc.close();
  } finally {
    await env.down();
  }
});

/** The plan a search found: c1 stopped in its critical section past its lease and the item's whole-second lag; c2 takes the lock meanwhile. */
function pausePlan(lock: string, property: string, lockOptions: Record<string, unknown> = {}): string {
  const dir = tempStore();
  const plan = {
    ttlMs: 1000,
    clients: [
      { attempts: [{ key: 'k0', delayMs: 80, waitMs: 1000, holdMs: 64, renew: false }] },
      { attempts: [{ key: 'k0', delayMs: 574, waitMs: 4000, holdMs: 507, renew: false }] },
      { attempts: [] },
    ],
    faults: [{ kind: 'client-pause', at_ms: 0, duration_ms: 3133, target: 'c1', params: { point: 'in-critical-section' } }],
  };
  writeFileSync(path.join(dir, 'test.json'), JSON.stringify({ lock, lock_spec: { name: lock }, property, lock_options: lockOptions, plan }));
  return dir;
}

test('memcached-add-delete, its holder paused past the lease: the plain delete frees the next holder\'s lock (exit 1); memcached-add-cas-fenced under the same plan keeps the resource right (exit 0)', async () => {
  const bad = await lockpick(['run', '--replay', pausePlan('memcached-add-delete', 'both'), '--runs', '1', '--shrink-time', '0', '--store', tempStore(), '--json'], 120_000);
  assert.equal(bad.code, 1, `exit ${bad.code}\n${bad.stderr}`);
  assert.ok(anomalyTypes(bad).includes('stale-release'), anomalyTypes(bad).join(', '));
  const good = await lockpick(['run', '--replay', pausePlan('memcached-add-cas-fenced', 'resource'), '--runs', '1', '--store', tempStore(), '--json'], 120_000);
  assert.equal(good.code, 0, `exit ${good.code}\n${good.stderr}`);
  assert.match(good.stderr, /stale step\(s\) rejected by the fencing check/);
  // The owner-checked cas unlock, its holder told its validity (--lock-opt validity=reported): the
  // careful client stops at that validity, before c2's grant, so the lock is safe under the same plan.
  const told = await lockpick(['run', '--replay', pausePlan('memcached-add-cas', 'lock', { validity: 'reported' }), '--runs', '1', '--store', tempStore(), '--json'], 120_000);
  assert.equal(told.code, 0, `exit ${told.code}\n${told.stderr}`);
  assert.ok(told.summary!.coverage.contended > 0, 'c2 waited for the lock');
});

// Detection is the point: a short search with a fixed seed; the first failure's class and plan.
// A graceful stop (server-term) fills the same aim: it restarts servers (KindDef.breaks).
for (const [lock, kind] of [['memcached-add-cas', 'kill'], ['redis-set-px-lua', 'kill'], ['memcached-add-cas', 'server-term']] as const) {
  test(`--faults ${kind} on ${lock}: the restart that forgets, drawn by the lease-restart aim (a ${kind} when the holder is in its critical section)`, async () => {
    const store = tempStore();
    const r = await lockpick(['run', '--lock', lock, '--faults', kind, '--first-failure', '--time', '20', '--shrink-time', '5', '--seed', '1', '--store', store, '--json'], 150_000);
    assert.equal(r.code, 1, `exit ${r.code}\n${r.stderr}`);
    const failure = (r.summary as unknown as { failures: { cause: string; kinds: string[] }[] }).failures[0]!;
    // memcached takes some 400 ms over a graceful stop, c1 held at its point meanwhile: it may then hold
    // past its lease, inherent too (the stop's words either way).
    assert.match(failure.cause, kind === 'kill' ? /a server that forgets its locks on restart/ : /^inherent to (a server that forgets its locks on restart|an unfenced lease): .*\(server-term\)$/);
    const plan = (JSON.parse(readFileSync(path.join(r.summary!.dir, 'test.json'), 'utf8')) as { plan: { faults: { kind: string; anchor?: unknown; params?: { persistence?: string } }[] } }).plan;
    const restart = plan.faults.find((f) => f.kind === kind)!;
    assert.deepEqual(restart.anchor, { client: 'c1', point: 'in-critical-section' });
    // Persistence is a parameter only where the topology has the option (and the kind takes it: a graceful stop restarts as started).
    assert.equal(restart.params?.persistence, lock.startsWith('redis') ? 'none' : undefined);
  });
}

test('--faults clock-bump on memcached: refused (exit 2), its expiry follows its own monotonic clock', async () => {
  const r = await lockpick(['run', '--lock', 'memcached-add-cas', '--faults', 'clock-bump', '--time', '10', '--store', tempStore()], 60_000);
  assert.equal(r.code, 2, `exit ${r.code}\n${r.stderr}`);
  assert.match(r.stderr, /fault 'clock-bump' moves the servers' wall clock, and memcached's holds expire by its own monotonic clock/);
});

test('memcached-add-cas without faults, --property liveness: safe (exit 0) within the bound its lease lag widens', async () => {
  const dir = tempStore();
  const attempt = (delayMs: number, holdMs: number) => ({ key: 'k0', delayMs, waitMs: 2000, holdMs, renew: false });
  // Three clients at one key, each waiting while another holds, then again: contended and released.
  const plan = { ttlMs: 1000, clients: [0, 1, 2].map((c) => ({ attempts: [attempt(c * 50, 300), attempt(100, 200)] })), faults: [] };
  writeFileSync(path.join(dir, 'test.json'), JSON.stringify({ lock: 'memcached-add-cas', lock_spec: { name: 'memcached-add-cas' }, property: 'liveness', lock_options: {}, plan }));
  const r = await lockpick(['run', '--replay', dir, '--runs', '3', '--store', tempStore(), '--json'], 120_000);
  assert.equal(r.code, 0, `exit ${r.code}\n${r.stderr}`);
  // The bound: 2 × TTL plus memcached's 2000 ms lease lag (whole-second expiry).
  assert.equal((r.summary as unknown as { liveness: { bound_ms: number } }).liveness.bound_ms, 4000);
});
