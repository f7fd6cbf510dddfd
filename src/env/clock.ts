// The per-node wall-clock offset read by the clock shim (native/clockshim.c).
import { renameSync, writeFileSync } from 'node:fs';
import { shimPath } from './clock-shim.ts';

export { shimPath };

/** Writes the offset so the shim sees it on its next wall-clock call (new inode via rename). */
export function writeClockOffset(file: string, ms: number): void {
  if (!Number.isInteger(ms)) throw new Error(`lockpick: clock offset must be an integer of milliseconds, got ${ms}`);
  const tmp = `${file}.tmp`;
  // Readable by the node's own uid (its dir is private to it already).
  writeFileSync(tmp, `${ms}\n`, { mode: 0o644 });
  renameSync(tmp, file);
}

/** Environment variables that put a server under the shim with its own offset file. */
export function shimEnv(clockFile: string): Record<string, string> {
  return { LD_PRELOAD: shimPath(), LOCKPICK_CLOCK_FILE: clockFile };
}
