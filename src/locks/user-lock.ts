// A user's own lock: any module whose default export (or export `recipe`) is a
// LockRecipe. The CLI runs under tsx, so TypeScript modules load as they are.
import path from 'node:path';
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { LockRecipe } from './lock.ts';

const TOPOLOGIES = ['redis', 'redis-sentinel', 'zookeeper', 'mariadb'];
const MODELS = ['mutex', 'reentrant-mutex', 'fenced-mutex'];

/** What is wrong with `x` as a LockRecipe, one entry per problem (empty = fine). */
export function recipeProblems(x: unknown): string[] {
  if (typeof x !== 'object' || x === null) return ['it is not an object'];
  const r = x as Record<string, unknown>;
  const problems: string[] = [];
  for (const f of ['name', 'summary', 'source'] as const) {
    if (typeof r[f] !== 'string' || r[f] === '') problems.push(`${f}: a non-empty string`);
  }
  if (typeof r.create !== 'function') problems.push('create(ctx): a function returning a Lock');
  if (typeof r.fencing !== 'boolean') problems.push('fencing: true or false');
  if (typeof r.model !== 'string' || !MODELS.includes(r.model)) problems.push(`model: one of ${MODELS.join(', ')}`);
  const t = r.topology as Record<string, unknown> | undefined;
  if (typeof t !== 'object' || t === null || typeof t.kind !== 'string' || !TOPOLOGIES.includes(t.kind)) {
    problems.push(`topology: { kind: ${TOPOLOGIES.map((k) => `'${k}'`).join(' | ')}, ... } (e.g. { kind: 'redis', masters: 1 })`);
  } else if (t.kind === 'redis' && !(Number.isInteger(t.masters) && (t.masters as number) >= 1)) {
    problems.push('topology.masters: an integer ≥ 1 for kind redis');
  }
  return problems;
}

export async function loadUserLock(file: string): Promise<LockRecipe> {
  const abs = path.resolve(file);
  if (!existsSync(abs)) throw new Error(`--lock ${file}: no such file (${abs}); give the path of a module exporting a LockRecipe, e.g. ./examples/my-lock.ts`);
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(abs).href)) as Record<string, unknown>;
  } catch (err) {
    throw new Error(`--lock ${file}: the module failed to load: ${(err as Error).message}`);
  }
  const candidate = mod.default ?? mod.recipe;
  if (candidate === undefined) {
    throw new Error(`--lock ${file}: the module exports neither a default nor \`recipe\`; add \`export default recipe\` (a LockRecipe, see examples/my-lock.ts)`);
  }
  const problems = recipeProblems(candidate);
  if (problems.length) {
    throw new Error(`--lock ${file}: the exported recipe is missing or has wrong:\n  - ${problems.join('\n  - ')}\n  see examples/my-lock.ts for a complete one`);
  }
  return candidate as LockRecipe;
}
