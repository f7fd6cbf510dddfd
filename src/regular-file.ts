// A path the user gave lockpick to read whole (a recipe file, a lock module, a run dir's
// test.json, an --endpoints file) must be a regular file, checked before it is opened: opening
// a FIFO nobody writes blocks the process (no timer or signal handler runs again), /dev/zero
// never ends, a directory or a socket fails with an errno that names neither the path nor the fix.
// History files are the exception: `lockpick check <(zcat h.jsonl.gz)` reads a pipe on purpose
// (src/history/source.ts).
import { statSync } from 'node:fs';
import { UsageError, fsReason } from './errors.ts';

/**
 * What `path` is when it is there but not a regular file, in words ("a FIFO (named pipe: ...)");
 * undefined for a regular file (symbolic links followed) and for a path that is not there, which
 * its reader reports in its own words (and with its own fix).
 */
export function notRegularFile(path: string): string | undefined {
  let s;
  try {
    s = statSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? undefined : `out of reach: ${fsReason(e)}`;
  }
  if (s.isFile()) return undefined;
  if (s.isDirectory()) return 'a directory';
  if (s.isFIFO()) return 'a FIFO (named pipe: reading it waits for a writer)';
  if (s.isCharacterDevice()) return 'a character device';
  if (s.isBlockDevice()) return 'a block device';
  if (s.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * Refuses (UsageError, exit 2) a path that is not a regular file, before anything opens it:
 * "WHERE: PATH must be a regular file, but it is a FIFO ..." (WHERE: the flag or command, when
 * the path alone does not say it), then the fix when one is given.
 */
export function requireRegularFile(path: string, where: string, fix?: string): void {
  const is = notRegularFile(path);
  if (is !== undefined) throw new UsageError(`${where ? `${where}: ` : ''}${path} must be a regular file, but it is ${is}${fix ? `\n  fix: ${fix}` : ''}`);
}
