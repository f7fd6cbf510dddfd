// Helpers for the issue-5 run tests: replay a stored scenario (scenarios/<name>/test.json)
// through the CLI, and the two verdicts those tests assert.
import assert from 'node:assert/strict';
import path from 'node:path';
import { lockpick, repoRoot, tempStore, type CliResult } from './run-helpers.ts';

/** Runs one stored scenario once, as the README tells users to. */
export function replayScenario(name: string): Promise<CliResult> {
  return lockpick(['run', '--replay', path.join(repoRoot, 'scenarios', name), '--runs', '1', '--store', tempStore(), '--json'], 60_000);
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


/** Searches `lock` under client pauses in the critical section; asserts the first violation is a double holder. */
export async function searchPauseDoubleHolder(lock: string, timeS = 30): Promise<CliResult> {
  const r = await lockpick(['run', '--lock', lock, '--faults', 'client-pause', '--pause-at', 'in-critical-section',
    '--clients', '3', '--time', String(timeS), '--shrink-time', '3', '--store', tempStore(), '--json'], (timeS + 30) * 1000);
  assert.equal(r.code, 1, r.stderr);
  const first = (r.summary!.firstAnomalies as { type: string }[]).map((a) => a.type);
  assert.ok(first.includes('double-holder'), `first violation: ${first}`);
  assert.ok(r.summary!.minimal!.plan.faults.every((f) => f.kind === 'client-pause'));
  return r;
}
