// The per-node wall-clock offset read by the clock shim (native/clockshim.c).
import { existsSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** build/libclockshim.so, built by scripts/setup.sh; LOCKPICK_CLOCKSHIM overrides. */
export function shimPath(): string {
  const p = process.env.LOCKPICK_CLOCKSHIM ?? path.join(repoRoot, 'build', 'libclockshim.so');
  if (!existsSync(p)) {
    throw new Error(`lockpick: the clock shim ${p} is missing; build it with: bash scripts/setup.sh (needs cc from gcc)`);
  }
  return p;
}

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
