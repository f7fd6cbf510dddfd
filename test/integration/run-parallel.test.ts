// `lockpick run --parallel 2` on real Redis: plans whose faults touch only their own
// clients run two at a time, each lane with its own clients and history file. A lock
// immune to client clock skew stays SAFE (no false alarm from runs side by side), each
// lane's history checks valid on its own with keys no other lane used, and a lock that
// breaks under client pauses is still found and shrunk.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { lockpick, tempStore } from './run-helpers.ts';

/** The run keys (r<n>-...) and process ids a history file holds. */
function keysAndProcesses(file: string): { keys: Set<string>; runs: Set<number> } {
  const keys = new Set<string>();
  const runs = new Set<number>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line) continue;
    const e = JSON.parse(line) as { key?: string; f: string; value?: { run?: number } };
    if (e.key) keys.add(e.key);
    if (e.f === 'run-start') runs.add(e.value!.run!);
  }
  return { keys, runs };
}

test('redis-set-px-lua + client-clock, --parallel 2: SAFE, two lanes, each history valid alone on its own keys', async () => {
  const r = await lockpick(['run', '--lock', 'redis-set-px-lua', '--faults', 'client-clock', '--parallel', '2', '--first-failure', '--time', '8', '--store', tempStore(), '--json']);
  assert.equal(r.code, 0, r.stderr);
  const s = r.summary!;
  assert.equal(s.verdict, true);
  assert.equal(s.throughput.parallel, 2, 'no two runs were ever in flight at once');
  // How many runs fit in 8 s is the machine's speed, not the property (both lanes ran some: below).
  assert.ok(s.throughput.runs >= 2, `only ${s.throughput.runs} runs`);
  assert.match(r.stderr, /up to 2 at once/);
  const lanes = [path.join(s.dir, 'history.jsonl'), path.join(s.dir, 'history.lane2.jsonl')];
  for (const f of lanes) assert.ok(existsSync(f), `missing ${f}`);
  const [a, b] = lanes.map(keysAndProcesses);
  assert.ok(a!.runs.size > 0 && b!.runs.size > 0);
  assert.deepEqual([...a!.runs].filter((n) => b!.runs.has(n)), [], 'a run number in both lanes');
  assert.deepEqual([...a!.keys].filter((k) => b!.keys.has(k)), [], 'a key in both lanes');
  // Lane 0's history also holds the fault-free calibration run made before the search (points learned).
  assert.equal(a!.runs.size + b!.runs.size, s.runs + 1);
  // Each file is one whole valid history (its own process ids): lockpick check says so.
  const check = await lockpick(['check', ...lanes, '--json']);
  assert.equal(check.code, 0, check.stdout + check.stderr);
});

test('redis-set-px-del + client-pause, --parallel 2: the double holder is still found and shrunk', async () => {
  const r = await lockpick(['run', '--lock', 'redis-set-px-del', '--faults', 'client-pause', '--pause-at', 'in-critical-section', '--parallel', '2',
    '--first-failure', '--time', '60', '--shrink-time', '10', '--store', tempStore(), '--json']);
  assert.equal(r.code, 1, r.stderr);
  const s = r.summary!;
  assert.ok(s.firstAfterMs! < 60_000);
  assert.ok(s.minimal && s.minimal.faults >= 1);
  assert.ok(s.path && /^\d+(:\d+)*$/.test(s.path), `path ${s.path}`);
  assert.ok(s.throughput.runs >= 1 && s.throughput.runs === s.runs);
});
