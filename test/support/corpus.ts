// The public history corpora with known verdicts (Jepsen's etcd register histories as JSON Lines,
// Knossos' EDN histories) are not part of this repository: a clone has none. Tests and benches
// that check against them read the folder LOCKPICK_CORPUS names (with etcd/ and knossos/, each
// with its expected.json); without it they are skipped, saying so. scripts/test.sh and .ci/run
// set it when CI has laid shared/corpus beside the clone.
import { existsSync } from 'node:fs';
import path from 'node:path';

/** Why a corpus test is skipped (node:test prints it beside the test's name). */
export const CORPUS_SKIP = 'skipped: LOCKPICK_CORPUS not set (a folder holding etcd/ and knossos/ with their expected.json)';

/**
 * The corpus folder LOCKPICK_CORPUS names, resolved; undefined when the variable is unset or
 * empty. A folder named but missing throws: whoever set it meant the tests to run.
 */
export function corpusDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const raw = env.LOCKPICK_CORPUS;
  if (raw === undefined || raw === '') return undefined;
  const dir = path.resolve(raw);
  if (!existsSync(dir)) throw new Error(`LOCKPICK_CORPUS=${raw}: no such folder (${dir}); unset it to skip the corpus tests`);
  return dir;
}

/** node:test options: run when the corpus is there, else skip with the reason. */
export function corpusTest(): { skip: string | false } {
  return { skip: corpusDir() === undefined ? CORPUS_SKIP : false };
}
