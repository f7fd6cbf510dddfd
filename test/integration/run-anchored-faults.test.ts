// Event-anchored server faults (FaultSpec.anchor): a kill that starts the moment a
// client's acquire returns, on a real redis-server; and random search drawing them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { assertDoubleHolder, replayScenario } from './run-scenarios.ts';
import { lockpick, tempStore, type CliResult } from './run-helpers.ts';

interface Ev { type: string; f: string; process: unknown; client?: string; value?: Record<string, unknown> }
const events = (r: CliResult, dir = r.summary!.dir): Ev[] =>
  readFileSync(path.join(dir, 'history.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Ev);

test("set-px-lua-restart-anchored: n1 restarts empty the moment c1's acquire returns; c2 then locks too", async () => {
  const r = await replayScenario('set-px-lua-restart-anchored');
  assertDoubleHolder(r);
  const h = events(r);
  // Completions name the process, invokes the client too.
  const c1 = h.find((e) => e.type === 'invoke' && e.client === 'c1')!.process;
  const c1Acquired = h.findIndex((e) => e.type === 'ok' && e.f === 'acquire' && e.process === c1);
  const kill = h.findIndex((e) => e.process === 'nemesis' && e.f === 'kill-start');
  const c1Release = h.findIndex((e) => e.type === 'invoke' && e.f === 'release' && e.client === 'c1');
  assert.ok(c1Acquired >= 0 && kill > c1Acquired, `the kill (line ${kill + 1}) comes after c1's acquire returned (line ${c1Acquired + 1})`);
  assert.ok(c1Release < 0 || kill < c1Release, 'and before c1 releases');
  assert.match(r.stdout + r.stderr, /when client c1 reaches 'in-critical-section'/, 'the plan says it in words');
});

test('random search draws event-anchored server faults, and each starts right when its client reaches the point', async () => {
  // Seed 1 draws three anchored pauses within its first 13 runs (one server fault in four is anchored; unseeded, 25 s sometimes drew none).
  const r = await lockpick(['run', '--lock', 'redis-set-px-lua', '--faults', 'pause', '--clients', '3', '--first-failure', '--time', '25', '--seed', '1', '--store', tempStore(), '--json'], 120_000);
  assert.equal(r.code, 0, `a pause of the server alone does not break the Lua unlock: ${r.stderr}`);
  const h = events(r);
  const reached = h.map((e, i) => [e, i] as const).filter(([e]) => e.process === 'nemesis' && e.f === 'anchor-reached');
  assert.ok(reached.length >= 1, 'some pauses were anchored to a client event');
  for (const [e, i] of reached) {
    // The next nemesis event is that pause starting (the client waits until it is in place).
    const next = h.slice(i + 1).find((x) => x.process === 'nemesis');
    assert.equal(next?.f, 'pause-start', `after ${JSON.stringify(e.value)}`);
  }
});

test('a node healed by two faults at once (a timed kill and an anchored one) restarts one restart at a time', async () => {
  const { startEnvironment } = await import('../../src/env/index.ts');
  const { redisPing } = await import('../../src/env/redis.ts');
  const env = await startEnvironment('redis', { masters: 1 });
  try {
    const n1 = env.node('n1');
    // Before the node serialised them, two restarts at once raced for the port ("Address already in use": exit 4 in a search).
    await Promise.all([n1.kill(), n1.kill()]);
    await Promise.all([n1.restart({ persistence: 'none' }), n1.restart({ persistence: 'none' }), n1.restart({ persistence: 'none' })]);
    assert.equal(await redisPing(n1.port), true);
  } finally {
    await env.down();
  }
});
