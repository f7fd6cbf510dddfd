// The one output layer for files: every file lockpick writes (results.json, test.json, JUnit,
// HTML, a counterexample's history, --out) goes through here, so a failed write always means
// the same exit code with the path named (README "Exit codes"): the disk failed (full, quota,
// I/O error) → InconclusiveError, exit 3; the path cannot be written (read-only file system,
// no permission, no such directory, a directory in the way) → UsageError, exit 2; anything else
// is lockpick's own failure and is thrown as it is (exit 4). A regular file is written whole or
// not at all (a temporary file beside it, then a rename): a reader never sees half a
// results.json. A device or pipe (--junit /dev/stdout) is written as it is.
// Standard output and error are the process's edge: bin/lockpick.mjs maps their errors.
import { realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { fsReason, InconclusiveError, UsageError } from './errors.ts';

/** The disk, not the path, failed: nothing the user could have given better. */
export const DISK_ERRORS: ReadonlySet<string> = new Set(['ENOSPC', 'EDQUOT', 'EIO', 'EFBIG']);
/** The path given cannot be written: the user's to fix. */
export const PATH_ERRORS: ReadonlySet<string> = new Set(['EROFS', 'EACCES', 'EPERM', 'ENOENT', 'ENOTDIR', 'EISDIR', 'ELOOP', 'ENAMETOOLONG', 'EEXIST', 'EBADF', 'ENXIO', 'EPIPE']);

/**
 * A failed write as its exit code: `what` names the file (and the flag that chose it), `fix`
 * says what to do about a path that cannot be written. Not a file-system error: `e` itself.
 */
export function outputError(what: string, e: unknown, fix: string): Error {
  const code = (e as NodeJS.ErrnoException)?.code;
  if (typeof code !== 'string') return e as Error;
  if (DISK_ERRORS.has(code)) return new InconclusiveError(`${what}: ${fsReason(e)}; no verdict could be delivered\n  fix: free some space (or write to another disk) and run again`, { cause: e });
  if (PATH_ERRORS.has(code)) return new UsageError(`${what}: ${fsReason(e)}\n  fix: ${fix}`, { cause: e });
  return e as Error;
}

export interface WriteOptions {
  /** The file in words, e.g. "--junit junit.xml" (default: "cannot write PATH"). */
  what?: string;
  /** What to do about a path that cannot be written. */
  fix?: string;
}

/** Whether `path` is (or would be) a regular file, written atomically; a device, FIFO or socket is not. */
function regular(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return true;   // not there yet: a new file
  }
}

/** Writes `text` to `path`: whole or not at all for a file; errors mapped as `outputError`. */
export function writeOutput(path: string, text: string | Uint8Array, o: WriteOptions = {}): void {
  const what = o.what ?? `cannot write ${path}`;
  const fix = o.fix ?? 'give a path in a directory that exists and can be written';
  if (!regular(path)) {
    try { writeFileSync(path, text); } catch (e) { throw outputError(what, e, fix); }
    return;
  }
  // A symlink to a file: its target is replaced, the link kept.
  let target = path;
  try { target = realpathSync(path); } catch { /* a new file */ }
  const tmp = `${target}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, text);
    renameSync(tmp, target);
  } catch (e) {
    try { rmSync(tmp, { force: true }); } catch { /* never made */ }
    throw outputError(what, e, fix);
  }
}
