// Where lockpick records the processes it started, so that a later invocation
// can find and stop what a SIGKILLed lockpick left behind.
import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** os.tmpdir()/lockpick-<uid>: private (0700) to the user running lockpick. */
export function stateDir(): string {
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  const dir = process.env.LOCKPICK_STATE_DIR ?? path.join(os.tmpdir(), `lockpick-${uid}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

export function pidDir(): string {
  const dir = path.join(stateDir(), 'pids');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}
