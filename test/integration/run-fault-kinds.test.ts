// Every registered fault kind really acts in a `lockpick run` (not only in the
// nemesis' own tests): its history holds the kind's start and stop events, the
// run's results count it as applied, and nothing is left faulted afterwards.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { KINDS } from '../../nemesis/index.ts';
import { lockpick, tempStore } from './run-helpers.ts';

/**
 * Which lock to run each kind against (its topology must have what the kind acts on).
 * The fenced lock under `--property resource` keeps the resource right even when a fault
 * breaks the lock, so the search goes on for all its runs instead of stopping at the first
 * violation, which may come before this kind's fault was due (a clock-bump before its reset).
 */
const LOCK_FOR: Record<string, string[]> = { failover: ['--lock', 'redis-sentinel'] };
const DEFAULT_LOCK = ['--lock', 'redis-set-px-lua-fenced', '--property', 'resource'];
/** Runs per kind: a failover run waits for promotion and demotion (tens of seconds), so two. */
const RUNS_FOR: Record<string, number> = { failover: 2 };

for (const def of KINDS) {
  const kind = def.schema.kind;
  test(`fault '${kind}' takes effect in a run and is healed`, async () => {
    // Several runs: in one run a fault may come after the clients are done, or a client may
    // never reach an anchored pause's point (such runs are inconclusive, by design); and a
    // search that finds a violation stops, maybe before this kind was due (a bump before its
    // reset). So up to three searches, until one shows the kind applied.
    const runs = RUNS_FOR[kind] ?? 6;
    let seen = '';
    for (let attempt = 0; attempt < 3; attempt++) {
      const r = await lockpick(['run', ...(LOCK_FOR[kind] ?? DEFAULT_LOCK), '--faults', kind, '--runs', String(runs), '--time', '90',
        '--shrink-time', '0', '--store', tempStore(), '--json'], 240_000);
      assert.ok(r.summary, `no summary (exit ${r.code}):\n${r.stderr}`);
      assert.notEqual(r.code, 2, r.stderr);
      assert.notEqual(r.code, 4, r.stderr);
      const events = readFileSync(path.join(r.summary!.dir, 'history.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      const nemesis = events.filter((e) => e.process === 'nemesis').map((e) => e.f as string);
      assert.ok(!nemesis.some((f) => f.endsWith('-start-failed') || f === 'heal-failed'), nemesis.join(', '));
      seen = [...new Set(nemesis)].join(', ');
      if (!nemesis.includes(`${kind}-start`)) continue;
      assert.ok(nemesis.includes(`${kind}-stop`), `${kind}-stop recorded`);
      const results = JSON.parse(readFileSync(path.join(r.summary!.dir, 'results.json'), 'utf8'));
      // Applied in a conclusive run, or it broke the lock (a violation is conclusive too).
      assert.ok(results.coverage.faultsApplied[kind] > 0 || results.verdict === false, JSON.stringify(results.coverage));
      return;
    }
    assert.fail(`${kind}-start never recorded in three searches; nemesis events: ${seen}`);
  });
}
