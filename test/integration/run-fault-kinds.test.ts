// test-lane: beside (servers of its own on free ports; each fault is checked by its recorded start, stop and effect, not by timing)
// Every registered fault kind really acts in a `lockpick run` (not only in the
// nemesis' own tests): its history holds the kind's start and stop events, the
// run's results count it as applied, and nothing is left faulted afterwards.
// A fixed plan per kind, replayed in this process as `lockpick run --replay` does
// (src/runner replay), so the fault is due while the clients work and one run shows
// it; a kind without a plan here gets a random search through the CLI (what finding
// violations takes is the subject of the run-*.test.ts files).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { KINDS } from '../../nemesis/index.ts';
import type { FaultSpec } from '../../nemesis/types.ts';
import { replay } from '../../src/runner/index.ts';
import { recipeFor } from '../../src/options.ts';
import { lockpick, tempStore } from './run-helpers.ts';

/**
 * Which lock to run each kind against (its topology must have what the kind acts on).
 * The fenced lock under `--property resource` keeps the resource right even when a fault
 * breaks the lock, so the run is conclusive either way.
 */
const LOCK_FOR: Record<string, { lock: string; property: string }> = {
  // A server that ends sessions: PostgreSQL, the fenced advisory lock (its resource stays right).
  'session-kill': { lock: 'pg-advisory-fenced', property: 'resource' },
  // A lock whose lease keep-alives have a connection of their own (LockRecipe.channels): etcd's.
  'keepalive-cut': { lock: 'etcd-mutex-fenced', property: 'resource' },
};
const DEFAULT_LOCK = { lock: 'redis-set-px-lua-fenced', property: 'resource' };

/** Each kind's faults, due while the two clients below hold and wait (n1: the Redis server, c1/c2: the clients). */
const FAULTS_FOR: Record<string, FaultSpec[]> = {
  partition: [{ kind: 'partition', at_ms: 300, duration_ms: 700, target: 'n1' }],
  latency: [{ kind: 'latency', at_ms: 100, duration_ms: 1000, target: 'n1', params: { latency_ms: 50 } }],
  pause: [{ kind: 'pause', at_ms: 300, duration_ms: 700, target: 'n1' }],
  kill: [{ kind: 'kill', at_ms: 300, duration_ms: 100, target: 'n1', params: { persistence: 'none' } }],
  'server-term': [{ kind: 'server-term', at_ms: 300, duration_ms: 100, target: 'n1' }],
  'clock-bump': [{ kind: 'clock-bump', at_ms: 300, duration_ms: 1000, target: 'n1', params: { delta_ms: 3000 } }],
  'clock-strobe': [{ kind: 'clock-strobe', at_ms: 300, duration_ms: 800, target: 'n1', params: { delta_ms: 2000, period_ms: 100 } }],
  'clock-reset': [{ kind: 'clock-bump', at_ms: 200, target: 'n1', params: { delta_ms: 3000 } }, { kind: 'clock-reset', at_ms: 700, target: 'n1' }],
  'client-pause': [{ kind: 'client-pause', at_ms: 300, duration_ms: 700, target: 'c1' }],
  'client-clock': [{ kind: 'client-clock', at_ms: 100, duration_ms: 1200, target: 'c2', params: { delta_ms: 2000 } }],
  'client-kill': [{ kind: 'client-kill', at_ms: 300, target: 'c1' }],
  'session-kill': [{ kind: 'session-kill', at_ms: 0, target: 'c1', anchor: { client: 'c1', point: 'in-critical-section' } }],
  'keepalive-cut': [{ kind: 'keepalive-cut', at_ms: 0, duration_ms: 700, target: 'c1', params: { point: 'in-critical-section' } }],
};

/**
 * Kinds another test already shows taking effect and healed in a run, with these same checks
 * (start and stop recorded, nothing failed to start or heal, applied or the lock broke): a
 * Sentinel ensemble costs tens of seconds a run, so it is not started twice for one claim.
 */
const SHOWN_IN: Record<string, string> = {
  failover: 'run-redis-failover.test.ts (two scenario replays: promotion, demotion, no heal-failed, a double holder)',
};

/** Two clients taking turns on one key for about 2 s. */
function planFor(faults: FaultSpec[]): unknown {
  const attempt = (delayMs: number) => ({ key: 'k0', delayMs, waitMs: 1500, holdMs: 300, renew: false });
  return {
    ttlMs: 1000,
    clients: [{ attempts: [attempt(0), attempt(200), attempt(200), attempt(200)] }, { attempts: [attempt(100), attempt(200), attempt(200), attempt(200)] }],
    faults,
  };
}

/** The run directory of one replay of the kind's plan (or of a search, for a kind without one). */
async function runKind(kind: string): Promise<string> {
  const { lock, property } = LOCK_FOR[kind] ?? DEFAULT_LOCK;
  const faults = FAULTS_FOR[kind];
  if (!faults) {
    const r = await lockpick(['run', '--lock', lock, '--property', property, '--faults', kind, '--runs', '6', '--first-failure', '--time', '90',
      '--shrink-time', '0', '--store', tempStore(), '--json'], 240_000);
    assert.ok(r.summary, `no summary (exit ${r.code}):\n${r.stderr}`);
    assert.ok(r.code !== 2 && r.code !== 4, r.stderr);
    return r.summary!.dir;
  }
  const dir = tempStore();
  writeFileSync(path.join(dir, 'test.json'), JSON.stringify({ lock, lock_spec: { name: lock }, property, lock_options: {}, plan: planFor(faults) }));
  return (await replay({ dir, runs: 1, storeRoot: tempStore(), resolve: recipeFor, log: () => {} })).dir;
}

test('every fault kind is shown taking effect: here, or in the test SHOWN_IN names', () => {
  for (const kind of Object.keys(SHOWN_IN)) assert.ok(KINDS.some((d) => d.schema.kind === kind), `SHOWN_IN names no kind '${kind}'`);
});

for (const def of KINDS) {
  const kind = def.schema.kind;
  if (SHOWN_IN[kind]) continue;
  test(`fault '${kind}' takes effect in a run and is healed`, async () => {
    // Up to three tries, until one shows the kind applied: a run whose servers or clients
    // were too slow may be inconclusive (by design), and a random search that finds a
    // violation stops, maybe before this kind was due.
    let seen = '';
    for (let attempt = 0; attempt < 3; attempt++) {
      const dir = await runKind(kind);
      const events = readFileSync(path.join(dir, 'history.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      const nemesis = events.filter((e) => e.process === 'nemesis').map((e) => e.f as string);
      assert.ok(!nemesis.some((f) => f.endsWith('-start-failed') || f === 'heal-failed'), nemesis.join(', '));
      seen = [...new Set(nemesis)].join(', ');
      if (!nemesis.includes(`${kind}-start`)) continue;
      assert.ok(nemesis.includes(`${kind}-stop`), `${kind}-stop recorded`);
      const results = JSON.parse(readFileSync(path.join(dir, 'results.json'), 'utf8'));
      // Applied in a conclusive run, or it broke the lock (a violation is conclusive too).
      if (results.coverage.faultsApplied[kind] > 0 || results.verdict === false) return;
      seen += ` (not counted as applied: ${JSON.stringify(results.coverage)})`;
    }
    assert.fail(`${kind}-start never recorded and counted in three tries; nemesis events: ${seen}`);
  });
}
