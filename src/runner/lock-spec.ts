// Turns `--lock NAME|./path.ts` into a recipe, through the lock registry, and
// says how a run directory stores it: a module's path relative to the
// directory lockpick ran in (the project root) and the module's content hash,
// so a run dir copied elsewhere (a CI artifact on a laptop) replays there and
// a lock that changed since is named.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { notRegularFile } from '../regular-file.ts';
import { isAbsolute, relative, resolve } from 'node:path';
import type { LockRecipe } from '../locks/lock.ts';
import type { LockSpec } from './protocol.ts';

/**
 * `exec:CMD` is a process client (a name, so test.json keeps the command); a path-looking argument
 * (./x, ../x, /x, or ending in .ts .mts .cts .js .mjs .cjs, or .json: a process client's recipe file) names a user's module.
 */
export function parseLockArg(arg: string): LockSpec {
  if (arg.startsWith('exec:')) return { name: arg };
  if (/^(\.{1,2}\/|\/)/.test(arg) || /\.([cm]?[jt]s|json)$/.test(arg)) return { path: resolve(arg) };
  return { name: arg };
}

export async function resolveRecipe(spec: LockSpec): Promise<LockRecipe> {
  const reg = await import('../locks/registry.ts');
  if ('path' in spec) return reg.loadUserLock(spec.path);
  return reg.getRecipe(spec.name);   // throws naming the known locks
}

/** A lock in words: a registry name, or a module path relative to the working directory (absolute when outside it). */
export function lockLabel(spec: LockSpec, cwd = process.cwd()): string {
  if (!('path' in spec)) return spec.name;
  const rel = relative(cwd, spec.path);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : spec.path;
}

/** sha256 of a lock module's bytes (undefined when it cannot be read). */
export function moduleHash(file: string): string | undefined {
  if (notRegularFile(file) !== undefined) return undefined;   // a FIFO would block the read for good
  try {
    return createHash('sha256').update(readFileSync(file)).digest('hex');
  } catch {
    return undefined;
  }
}

/** test.json's "lock_spec" and "lock_sha256" for a lock: a module path relative to `cwd` when inside it. */
export function storedLock(spec: LockSpec, cwd = process.cwd()): { lock_spec: LockSpec; lock_sha256?: string } {
  if (!('path' in spec)) return { lock_spec: spec };
  return { lock_spec: { path: lockLabel(spec, cwd) }, lock_sha256: moduleHash(spec.path) };
}

/** A stored lock_spec as a run uses it: a relative module path resolved against `cwd` (the project root of the replay). */
export function lockFromStored(spec: LockSpec, cwd = process.cwd()): LockSpec {
  return 'path' in spec ? { path: resolve(cwd, spec.path) } : spec;
}
