// The per-node wall-clock offset read by the clock shim (native/clockshim.c).
import { renameSync, writeFileSync } from 'node:fs';
import { shimPath } from './clock-shim.ts';

export { shimPath };

/**
 * Why servers started without the shim (no C compiler to build it, say), or undefined.
 * Such servers run fine, but their clocks cannot move: a clock fault's start then fails
 * (recorded as not applied, so the run is inconclusive, never SAFE).
 */
let noShim: string | undefined;

/** Writes the offset so the shim sees it on its next wall-clock call (new inode via rename). */
export function writeClockOffset(file: string, ms: number): void {
  if (!Number.isInteger(ms)) throw new Error(`lockpick: clock offset must be an integer of milliseconds, got ${ms}`);
  if (ms !== 0 && noShim) throw new Error(`lockpick: the servers run without the clock shim, so their clocks cannot move: ${noShim}`);
  const tmp = `${file}.tmp`;
  // Readable by the node's own uid (its dir is private to it already).
  writeFileSync(tmp, `${ms}\n`, { mode: 0o644 });
  renameSync(tmp, file);
}

/** Environment variables that put a server under the shim with its own offset file (none when the shim cannot be had: said once). */
export function shimEnv(clockFile: string): Record<string, string> {
  try {
    return { LD_PRELOAD: shimPath(), LOCKPICK_CLOCK_FILE: clockFile };
  } catch (e) {
    if (!noShim) process.stderr.write(`${(e as Error).message}\nlockpick: the servers start without it; clock faults cannot take effect (a run asking for them is inconclusive)\n`);
    noShim = (e as Error).message;
    return {};
  }
}
