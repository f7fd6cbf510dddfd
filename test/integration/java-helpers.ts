// What the Java process client tests share: the example's own build (once per file) and a
// `lockpick run` of one of its recipe files that leaves no JVM or server behind.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { lockpick, markedProcesses, repoRoot, tempStore, type CliResult } from './run-helpers.ts';

export const JAVA_DIR = 'examples/process-clients/java';

/** build.sh: idempotent (compiles only when a source is newer than the last build), one build at a time. */
export function buildJavaClients(): void {
  execFileSync('/bin/sh', [path.join(repoRoot, JAVA_DIR, 'build.sh')], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 120_000 });
}

/** `lockpick run --lock ./examples/process-clients/java/<recipe>` with a fixed seed and no shrinking. */
export async function runJava(recipe: string, extra: string[], time: string): Promise<CliResult> {
  const mark = randomUUID();
  const lock = `./${JAVA_DIR}/${recipe}`;
  const r = await lockpick(['run', '--lock', lock, '--time', time, '--seed', '1', '--shrink-time', '0', '--store', tempStore(), ...extra], 180_000, { LOCKPICK_TEST_MARK: mark });
  // The JVMs, and the servers (ZooKeeper is a JVM too), are gone with the run.
  assert.deepEqual(markedProcesses(mark, /java|mariadbd|mysqld/), [], `processes left behind by ${lock}`);
  return r;
}

export const said = (r: CliResult): string => `exit ${r.code}\n${r.stdout}\n${r.stderr}`;

/** A fault-free search: SAFE, or inconclusive with its reason (no contention drawn), never a violation; some acquire answered. */
export async function assertFaultFreeSafe(recipe: string): Promise<void> {
  const r = await runJava(recipe, [], '6');
  assert.ok(r.code === 0 || (r.code === 3 && /INCONCLUSIVE/.test(r.stdout)), said(r));
  assert.match(r.stdout, /acquire\(s\)(?: in the conclusive run\(s\))?: [1-9]\d* ok/);
}
