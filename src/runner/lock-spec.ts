// Turns `--lock NAME|./path.ts` into a recipe, through the lock registry.
import { resolve } from 'node:path';
import type { LockRecipe } from '../locks/lock.ts';
import type { LockSpec } from './protocol.ts';

/** A path-looking argument (./x, ../x, /x, or ending in .ts .mts .cts .js .mjs .cjs) names a user's module. */
export function parseLockArg(arg: string): LockSpec {
  if (/^(\.{1,2}\/|\/)/.test(arg) || /\.[cm]?[jt]s$/.test(arg)) return { path: resolve(arg) };
  return { name: arg };
}

export async function resolveRecipe(spec: LockSpec): Promise<LockRecipe> {
  const reg = await import('../locks/registry.ts');
  if ('path' in spec) return reg.loadUserLock(spec.path);
  return reg.getRecipe(spec.name);   // throws naming the known locks
}

export function lockLabel(spec: LockSpec): string {
  return 'path' in spec ? spec.path : spec.name;
}
