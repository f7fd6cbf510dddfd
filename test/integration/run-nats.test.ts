// test-lane: beside
// NATS JetStream KV on a real nats-server (its own free ports and temp dir): the plain-delete
// lock's stale release under a client pause (exit 1), the revision-checked delete under the same
// plan (exit 0, the late delete refused), the revision as a fencing token keeping the resource
// right when the holder is paused past its lease; a restart forgets the keys (memory buckets,
// as the topology declares); clock-bump refused by the declared clock (exit 2).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { anomalyTypes, lockpick, repoRoot, tempStore } from './run-helpers.ts';
import { startEnvironment } from '../../src/env/index.ts';
import { getRecipe } from '../../src/locks/registry.ts';
import type { LockContext } from '../../src/locks/lock.ts';

/** The demo's plan (scenarios/nats-kv-delete-stale-release): c1 paused as its release begins, past its lease; c2 takes the lock; c3 comes while c2 works. */
const STALE_RELEASE = path.join(repoRoot, 'scenarios/nats-kv-delete-stale-release/test.json');

/** A run dir to replay: `lock` under `plan` (default: the demo's stale-release plan). */
function replayAs(lock: string, property: string, plan: object = (JSON.parse(readFileSync(STALE_RELEASE, 'utf8')) as { plan: object }).plan): string {
  const dir = tempStore();
  writeFileSync(path.join(dir, 'test.json'), JSON.stringify({ lock, lock_spec: { name: lock }, property, lock_options: {}, plan }));
  return dir;
}

test('nats-kv-create-delete, its holder paused as its release begins: the plain delete frees the next holder\'s lock (exit 1); the revision-checked delete under the same plan is refused by the server (exit 0)', async () => {
  const bad = await lockpick(['run', '--replay', replayAs('nats-kv-create-delete', 'both'), '--runs', '1', '--shrink-time', '0', '--store', tempStore(), '--json'], 120_000);
  assert.equal(bad.code, 1, `exit ${bad.code}\n${bad.stderr}`);
  assert.ok(anomalyTypes(bad).includes('stale-release'), anomalyTypes(bad).join(', '));
  assert.match(bad.stderr, /put a delete marker on the key/, 'the stale release in NATS\'s words');
  const good = await lockpick(['run', '--replay', replayAs('nats-kv-create-delete-rev', 'both'), '--runs', '1', '--store', tempStore(), '--json'], 120_000);
  assert.equal(good.code, 0, `exit ${good.code}\n${good.stderr}`);
  assert.ok(good.summary!.coverage.contended > 0, 'c2 and c3 waited for the lock');
});

test('nats-kv-fenced, its holder paused past its lease in its critical section: the lock breaks, the revision as a token keeps the resource right (exit 0)', async () => {
  const plan = {
    ttlMs: 800,
    clients: [
      { attempts: [{ key: 'k0', delayMs: 0, waitMs: 1000, holdMs: 100, renew: false }] },
      { attempts: [{ key: 'k0', delayMs: 200, waitMs: 2000, holdMs: 700, renew: false }] },
    ],
    faults: [{ kind: 'client-pause', at_ms: 0, duration_ms: 1200, target: 'c1', params: { point: 'in-critical-section' } }],
  };
  const r = await lockpick(['run', '--replay', replayAs('nats-kv-fenced', 'resource', plan), '--runs', '1', '--store', tempStore(), '--json'], 120_000);
  assert.equal(r.code, 0, `exit ${r.code}\n${r.stderr}`);
  assert.match(r.stderr, /stale step\(s\) rejected by the fencing check/);
});

test('the lock on a real server: a second create waits, the revision grows, a restart forgets the keys (memory buckets: restartForgets always)', async () => {
  const env = await startEnvironment('nats');
  const n1 = env.nodes.find((n) => n.id === 'n1')!;
  const ctx = (clientId: string) => ({
    clientId, endpoints: [{ id: 'n1', host: '127.0.0.1', port: n1.port }], commandTimeoutMs: 1000,
    clock: { wallMs: () => Date.now(), monoMs: () => performance.now() },
  }) as unknown as LockContext;
  const recipe = getRecipe('nats-kv-fenced');
  const [a, b] = [await recipe.create(ctx('c1')), await recipe.create(ctx('c2'))];
  try {
    const h1 = (await a!.acquire('t:k0', { ttlMs: 5000, waitMs: 0 }))!;
    assert.equal(await b!.acquire('t:k0', { ttlMs: 5000, waitMs: 100 }), null, 'taken');
    assert.equal(await a!.release(h1), 'released');
    const h2 = (await b!.acquire('t:k0', { ttlMs: 5000, waitMs: 0 }))!;
    assert.ok(Number(h2.token) > Number(h1.token), `a later grant has a larger revision (${String(h1.token)}, ${String(h2.token)})`);
    await n1.kill();
    await n1.restart();
    // c2's entry is gone with the restart: c1 gets the lock once its client has reconnected (a
    // request sent meanwhile times out: an unknown outcome, thrown).
    let h3: Awaited<ReturnType<NonNullable<typeof a>['acquire']>> = null;
    for (let i = 0; i < 20 && !h3; i++) {
      try { h3 = await a!.acquire('t:k0', { ttlMs: 5000, waitMs: 0 }); } catch { await new Promise((r) => setTimeout(r, 200)); }
    }
    assert.ok(h3, 'a restarted server forgot c2\'s entry');
    assert.equal(await b!.release(h2), 'lost', 'c2\'s revision is gone: its delete is refused');
  } finally {
    await a!.close();
    await b!.close();
    await env.down();
  }
});

test('--faults clock-bump on nats: refused (exit 2) by its declared clock, which the clock shim cannot move', async () => {
  const r = await lockpick(['run', '--lock', 'nats-kv-create-delete', '--faults', 'clock-bump', '--time', '10', '--store', tempStore()], 60_000);
  assert.equal(r.code, 2, `exit ${r.code}\n${r.stderr}`);
  assert.match(r.stderr, /fault 'clock-bump' moves the servers' wall clock, and nats's holds expire by its own clock, which it reads without libc .*so the clock shim cannot move it/);
});
