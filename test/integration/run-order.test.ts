// test-lane: beside (a Redis of its own; the verdicts hang on the order of events, which the plans pin, not on fine timing)
// Schedules that hold their order (nemesis/order.ts), on a real Redis: client steps and faults
// wait for the events they need, so a stored stale DEL breaks the lock on every replay however
// the machine's load moves the times; a measured rate lands on the timeline page; an anchor
// that cannot be met lets the run go on and the replay says which it missed. A search's stored
// counterexample carries its pinned order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { lockpick, runDirs, tempStore } from './run-helpers.ts';

const attempt = (after?: unknown, holdMs = 50) => ({ key: 'k0', delayMs: 0, waitMs: 3000, holdMs, renew: false, ...(after ? { after } : {}) });

/** A scenario dir with this plan on SET NX PX + a plain DEL. */
function scenario(plan: unknown): string {
  const dir = path.join(tempStore(), 'scenario');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'test.json'), JSON.stringify({ lock: 'redis-set-px-del', lock_spec: { name: 'redis-set-px-del' }, property: 'both', lock_options: {}, plan }));
  return dir;
}

// Every delay is 0: by times alone c2 and c3 would race c1 for the lock. Their order anchors make
// c2 lock once c1 is paused at the start of its release (past its 400 ms lease), and c3 once c1's
// DEL returned (it deleted c2's key): a stale release and a double holder, every time.
const staleDel = {
  ttlMs: 400,
  clients: [{ attempts: [attempt()] }, { attempts: [attempt({ fault: 0 }, 600)] }, { attempts: [attempt({ client: 'c1', op: 'release', type: 'ok', nth: 1 })] }],
  faults: [{ kind: 'client-pause', at_ms: 0, duration_ms: 1200, target: 'c1', params: { point: 'before-release' } }],
};

test('a stale DEL pinned by its order breaks the lock on every replay; the rate lands beside it and on the timeline page', async () => {
  const store = tempStore();
  const dir = scenario(staleDel);
  const r = await lockpick(['run', '--replay', dir, '--runs', '3', '--measure', '--store', store], 150_000);
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stdout, /reproduced 3\/3/);
  const rate = JSON.parse(readFileSync(path.join(dir, 'reproduction.json'), 'utf8'));
  assert.equal(rate.reproduced, 3);
  const run = runDirs(store)[0]!;
  const page = readFileSync(path.join(run, 'counterexample', 'timeline.html'), 'utf8');
  assert.match(page, /<p class="reproduction"><b>Replayed:<\/b> reproduced 3\/3, measured \d{4}-\d\d-\d\d with lockpick run --replay /);
  // The order held: c2's acquire after the pause began, c3's after c1's DEL returned.
  const lines = readFileSync(path.join(run, 'counterexample', 'history.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const at = (p: (e: Record<string, unknown>) => boolean) => lines.findIndex(p);
  const pauseBegan = at((e) => e.f === 'client-pause-start');
  const c2Invoke = at((e) => e.client === 'c2' && e.f === 'acquire' && e.type === 'invoke');
  const c1Release = lines.findIndex((e, i) => i > 0 && e.f === 'release' && e.type === 'ok' && e.process === lines.find((x) => x.client === 'c1')!.process);
  const c3Invoke = at((e) => e.client === 'c3' && e.f === 'acquire' && e.type === 'invoke');
  assert.ok(pauseBegan >= 0 && c2Invoke > pauseBegan, `c2 invoked at line ${c2Invoke + 1}, the pause began at ${pauseBegan + 1}`);
  assert.ok(c1Release >= 0 && c3Invoke > c1Release, `c3 invoked at line ${c3Invoke + 1}, c1's release returned at ${c1Release + 1}`);
});

test('an anchor that cannot be met: the clients go on, nothing hangs, and the replay says which anchor it missed (exit 3)', async () => {
  const plan = structuredClone(staleDel) as typeof staleDel;
  // c2 waits for an acquire c1 never makes: it goes on once c1 is done, too late to be robbed.
  plan.clients[1]!.attempts[0] = attempt({ client: 'c1', op: 'acquire', type: 'ok', nth: 5 });
  const r = await lockpick(['run', '--replay', scenario(plan), '--runs', '1', '--store', tempStore()], 120_000);
  assert.equal(r.code, 3, r.stdout + r.stderr);
  assert.match(r.stdout, /INCONCLUSIVE:[\s\S]*the plan's order did not hold: c2's 1st attempt waited for c1's 5th acquire returned ok, which never came \(c1 finished its steps without it\)/);
});

test('a fault ordered after another client\'s event begins after it, whatever its at_ms says', async () => {
  // The pause of c2 (timed, no point) is due at 0 ms but waits for c1's acquire to return.
  const plan = {
    ttlMs: 2000,
    clients: [{ attempts: [{ ...attempt(), delayMs: 300, holdMs: 100 }] }, { attempts: [{ ...attempt(), delayMs: 1500 }] }],
    faults: [{ kind: 'client-pause', at_ms: 0, duration_ms: 200, target: 'c2', after: { client: 'c1', op: 'acquire', type: 'ok', nth: 1 } }],
  };
  const store = tempStore();
  const r = await lockpick(['run', '--replay', scenario(plan), '--runs', '1', '--store', store], 120_000);
  assert.ok(r.code === 0 || r.code === 3, r.stdout + r.stderr);
  const lines = readFileSync(path.join(runDirs(store)[0]!, 'history.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const c1Ok = lines.findIndex((e) => e.f === 'acquire' && e.type === 'ok');
  const began = lines.findIndex((e) => e.f === 'client-pause-start');
  assert.ok(c1Ok >= 0 && began > c1Ok, `the pause began at line ${began + 1}, c1's acquire returned at ${c1Ok + 1}`);
});
