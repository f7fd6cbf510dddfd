// The exit-code contract of every `lockpick` command (README "Exit codes"), and
// the two kinds of failure that are not a bug of lockpick. Anything else thrown
// out of a command is an internal error: exit 4, never 1 (a verdict) or 3.
export const EXIT = { ok: 0, invalid: 1, usage: 2, unknown: 3, internal: 4, interrupted: 130 } as const;

/** The exit codes as every --help states them (README "Exit codes"). */
export const EXIT_HELP = `exit codes: 0 safe/valid, 1 unsafe/invalid, 2 bad input or usage, 3 inconclusive (no verdict),
            4 internal error of lockpick, 130 interrupted by Ctrl-C (a run stopped by another signal:
            1 if it had found a violation, else 3; README "Exit codes")`;

/** What the user gave is wrong (arguments, options, files, store paths, replay dirs, lock modules): exit 2. */
export class UsageError extends Error {
  readonly exitCode = EXIT.usage;
}

/** No test was possible, through no fault of the input (an environment that did not start, a full disk): exit 3. */
export class InconclusiveError extends Error {
  readonly exitCode = EXIT.unknown;
}

/** Memory that could not be had (a cap such as `ulimit -v`): no bug of lockpick, and no verdict (bin/lockpick.mjs words it the same). */
const NO_MEMORY = /out of memory|Cannot allocate (Wasm )?memory|ENOMEM|allocation failed/i;
export function outOfMemory(e: unknown): boolean {
  return (e instanceof RangeError || (e as NodeJS.ErrnoException)?.code === 'ENOMEM') && NO_MEMORY.test(String((e as Error).message));
}

/** The exit code an error stands for: 2 or 3 for the classes above (3 for memory that could not be had), undefined for anything else (an internal error). */
export function exitCodeOf(e: unknown): 2 | 3 | undefined {
  if (e instanceof UsageError || e instanceof InconclusiveError) return e.exitCode;
  return outOfMemory(e) ? EXIT.unknown : undefined;
}

/** "ENOSPC" → "no space left on device (ENOSPC)": the reason of a failed file operation, in words. */
export function fsReason(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  if (typeof err?.code === 'string' && typeof err.message === 'string') {
    // Node reads "ENOSPC: no space left on device, write" or "listen EADDRINUSE: address already in use …": keep the words.
    const words = /\b[A-Z][A-Z0-9]+: ([^,]+)/.exec(err.message)?.[1];
    return words ? `${words} (${err.code})` : `${err.message} (${err.code})`;
  }
  return String((e as Error)?.message ?? e);
}
