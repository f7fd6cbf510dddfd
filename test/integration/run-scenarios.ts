// Helpers for the issue-5 run tests: replay a stored scenario (scenarios/<name>/test.json)
// through the CLI, and the two verdicts those tests assert.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { lockpick, repoRoot, tempStore, type CliResult } from './run-helpers.ts';

/** Runs one stored scenario once, as the README tells users to. */
export function replayScenario(name: string): Promise<CliResult> {
  return lockpick(['run', '--replay', path.join(repoRoot, 'scenarios', name), '--runs', '1', '--store', tempStore(), '--json'], 60_000);
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


