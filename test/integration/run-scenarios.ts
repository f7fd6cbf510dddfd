// Helpers for the issue-5 run tests: replay a stored scenario (scenarios/<name>/test.json)
// through the CLI, and the two verdicts those tests assert.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { lockpick, repoRoot, tempStore, type CliResult } from './run-helpers.ts';

/** Runs one stored scenario once, as the README tells users to. */
export function replayScenario(name: string, runs = 1): Promise<CliResult> {
  return lockpick(['run', '--replay', path.join(repoRoot, 'scenarios', name), '--runs', String(runs), '--store', tempStore(), '--json'], 60_000 * runs);
}

/**
 * Runs a stored scenario's plan against another lock (up to `runs` times, until it breaks):
 * the same schedule for a library that implements the same recipe, with every attempt
 * renewing while it holds (a lock's own refresh timer, which a paused client's stops too).
 */
export function replayScenarioAs(name: string, lock: string, runs = 3): Promise<CliResult> {
  return replayPlanAs(name, lock, { runs, renew: true });
}

/** A stored scenario's plan on another lock (or judged by another property), `runs` times at most. */
export function replayPlanAs(name: string, lock: string, o: { runs?: number; renew?: boolean; property?: string } = {}): Promise<CliResult> {
  const test = JSON.parse(readFileSync(path.join(repoRoot, 'scenarios', name, 'test.json'), 'utf8')) as { property?: string; plan: { clients: { attempts: { renew: boolean }[] }[] } };
  if (o.renew) for (const c of test.plan.clients) for (const a of c.attempts) a.renew = true;
  const dir = tempStore();
  writeFileSync(path.join(dir, 'test.json'), JSON.stringify({ ...test, description: `${name}, on ${lock}`, lock, lock_spec: { name: lock }, property: o.property ?? test.property }));
  return lockpick(['run', '--replay', dir, '--runs', String(o.runs ?? 3), '--store', tempStore(), '--json'], 90_000);
}

/**
 * A plan replayed on a user lock module: c1 paused for 2 s just before a command of its release
 * (`point`, e.g. send:release:2: the DEL of a GET-then-DEL unlock), past its 2 s lease; c2, asking
 * while c1 holds, gets the lock meanwhile and holds it within its own lease while c1 wakes; c3 asks
 * before c2 is done. A release that deletes whatever is there frees c2's lock and c3 holds it too
 * (a stale unlock); a compare-and-delete release finds c2's value and leaves it. `more` faults join c1's.
 */
export function replayReleasePause(lock: string, point: string, more: object[] = [], flags: string[] = []): Promise<CliResult> {
  const dir = tempStore();
  writeFileSync(path.join(dir, 'test.json'), JSON.stringify({
    description: 'c1 paused before a command of its release past its lease; c2 holds meanwhile, c3 asks before c2 is done', lock, lock_spec: { path: lock }, property: 'both',
    plan: {
      ttlMs: 2000,
      clients: [
        { attempts: [{ key: 'k0', delayMs: 0, waitMs: 1000, holdMs: 600, renew: false }] },
        { attempts: [{ key: 'k0', delayMs: 300, waitMs: 3000, holdMs: 1500, renew: false }] },
        { attempts: [{ key: 'k0', delayMs: 3000, waitMs: 2000, holdMs: 100, renew: false }] },
      ],
      faults: [{ kind: 'client-pause', at_ms: 0, duration_ms: 2000, target: 'c1', params: { point } }, ...more],
    },
  }));
  return lockpick(['run', '--replay', dir, '--runs', '1', '--store', tempStore(), '--json', ...flags], 90_000);
}

/** The lock history of the run had two holders at once, and the resource saw it too. */
export function assertDoubleHolder(r: CliResult): void {
  assert.equal(r.code, 1, r.stderr);
  const types = ((r.summary?.minimal?.anomalies ?? []) as { type: string }[]).map((a) => a.type);
  assert.ok(types.includes('double-holder'), `anomalies: ${types}\n${r.stderr}`);
}

export function assertSafe(r: CliResult): void {
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.summary!.verdict, true);
  assert.equal(r.summary!.lockViolations, 0);
  assert.equal(r.summary!.resource.lostUpdates + r.summary!.resource.staleWritesAccepted, 0);
}


