// test-lane: beside
// server-term, a graceful stop (SIGTERM) and restart, as a deploy does: the server comes back
// as it was started. A Redis without persistence comes back empty and a waiting client takes
// the lock its holder still holds (UNSAFE); one that writes every command to its AOF
// (the topology's persistence option) comes back with the lock, and the same plan is SAFE.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { lockpick, repoRoot, tempStore, type CliResult } from './run-helpers.ts';
import { assertDoubleHolder, assertSafe } from './run-scenarios.ts';

/** c1 holds for 1.5 s of its 2 s lease; n1 is stopped gracefully the moment c1 holds and restarted 200 ms later; c2 asks at 800 ms. */
function replayTerm(lockSpec: object, lock: string): Promise<CliResult> {
  const dir = tempStore();
  writeFileSync(path.join(dir, 'test.json'), JSON.stringify({
    description: 'n1 stopped with SIGTERM while c1 holds, restarted; c2 asks after the restart', lock, lock_spec: lockSpec, property: 'both',
    plan: {
      ttlMs: 2000,
      clients: [
        { attempts: [{ key: 'k0', delayMs: 0, waitMs: 1000, holdMs: 1500, renew: false }] },
        { attempts: [{ key: 'k0', delayMs: 800, waitMs: 3000, holdMs: 200, renew: false }] },
      ],
      faults: [{ kind: 'server-term', at_ms: 0, duration_ms: 200, target: 'n1', anchor: { client: 'c1', point: 'in-critical-section' } }],
    },
  }));
  return lockpick(['run', '--replay', dir, '--runs', '1', '--store', tempStore(), '--json'], 90_000);
}

/** The run's server-term start, as its history recorded it. */
function termStart(r: CliResult): Record<string, unknown> {
  const events = readFileSync(path.join(r.summary!.dir, 'history.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { process: string; f: string; value: Record<string, unknown> });
  const start = events.find((e) => e.process === 'nemesis' && e.f === 'server-term-start');
  assert.ok(start, 'server-term-start recorded');
  assert.ok(events.some((e) => e.process === 'nemesis' && e.f === 'server-term-stop'), 'server-term-stop recorded');
  return start.value;
}

test('server-term: a Redis without persistence restarts empty and the lock is held twice', async () => {
  const r = await replayTerm({ name: 'redis-set-px-lua' }, 'redis-set-px-lua');
  assertDoubleHolder(r);
  const v = termStart(r);
  assert.deepEqual(v.nodes, ['n1']);
  assert.equal(v.forced, undefined, 'redis-server stopped on SIGTERM, within the bound');
});

test('server-term: with AOF persistence (fsync always) the lock survives the restart: SAFE', async () => {
  const r = await replayTerm({ path: path.join(repoRoot, 'test/fixtures/locks/set-px-lua-aof.ts') }, 'set-px-lua-aof');
  assertSafe(r);
  assert.deepEqual(termStart(r).nodes, ['n1']);
  assert.equal(r.summary!.coverage.faultsApplied['server-term'], 1);
});
