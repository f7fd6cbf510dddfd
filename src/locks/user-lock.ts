// A user's own lock: a module of whatever kind the user's project is (.ts, .mts,
// .cts, .js, .mjs, .cjs; an ESM or a CommonJS package) whose default export,
// export `recipe`, or `module.exports` is a LockRecipe. A TypeScript one is
// loaded with tsx's hooks (ESM and CommonJS) registered for the process, as
// `--import tsx` does: run from the sources the CLI and each client worker have
// them already; from dist/ (an installed package, runLockTest in a user's test
// runner) they are registered here on the first .ts module, never for a .js one. (tsx's
// tsImport is not used: a CommonJS .ts requiring ioredis after lockpick itself
// imported ioredis fails there with "Cannot redefine property: default".)
import { shapeProblems } from './shape.ts';
import path from 'node:path';
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { LockRecipe } from './lock.ts';
import type { TopologyOptions } from '../env/types.ts';
import { topologyDef, topologyNames } from '../env/topologies.ts';
import { realLeaseProblems } from './real-lease.ts';
import { commandTimeoutProblems } from './command-timeout.ts';
import { execRecipeFromFile } from './exec-recipe.ts';

// tsx's loader has no types: importing it only registers its hooks.
const TSX_LOADER: string = 'tsx';

export const LOCK_MODULE_EXTENSIONS = ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs'];
/** TypeScript: loaded through tsx's hooks (a dependency of lockpick, started only for these). */
const TS_EXTENSIONS = ['.ts', '.mts', '.cts'];

const MODELS = ['mutex', 'reentrant-mutex', 'fenced-mutex', 'semaphore', 'rwlock'];

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
  if (r.channels !== undefined && !(Array.isArray(r.channels) && r.channels.every((c) => typeof c === 'string' && /^[a-z][a-z0-9-]*$/.test(c)))) {
    problems.push("channels: names of the lock's further connections, lower-case words (e.g. ['keepalive'])");
  }
  if (r.ioPoints !== undefined && r.ioPoints !== 'proxy' && r.ioPoints !== 'hooks') {
    problems.push("ioPoints: 'proxy' (the fault proxy counts the client's requests: a client no hook in the worker sees) or 'hooks' (the default)");
  }
  if (r.realLease !== undefined) problems.push(...realLeaseProblems(r.realLease));
  problems.push(...commandTimeoutProblems(r.commandTimeoutMs));
  // A semaphore's limit, a read-write lock's modes: declared, and agreeing with the model.
  if (typeof r.model === 'string' && MODELS.includes(r.model)) problems.push(...shapeProblems(r as unknown as Parameters<typeof shapeProblems>[0]));
  problems.push(...topologyProblems(r.topology));
  return problems;
}

/** What is wrong with a recipe's `topology`: its kind is looked up in the topology registry, its options go to that topology's validate. */
function topologyProblems(t: unknown): string[] {
  const names = topologyNames();
  if (typeof t !== 'object' || t === null || typeof (t as { kind?: unknown }).kind !== 'string') {
    return [`topology: { kind: ${names.map((k) => `'${k}'`).join(' | ')}, ... } (e.g. { kind: 'redis', masters: 1 })`];
  }
  const { kind, ...options } = t as { kind: string } & Record<string, unknown>;
  const def = topologyDef(kind);
  if (!def) return [`topology: unknown topology '${kind}'; registered: ${names.join(', ')}`];
  // A Redlock recipe says how many masters it locks on (the environment would otherwise start one).
  if (kind === 'redis' && !(Number.isInteger(options.masters) && (options.masters as number) >= 1)) {
    return ['topology.masters: an integer ≥ 1 for kind redis'];
  }
  try {
    def.validate?.(options as TopologyOptions);
  } catch (e) {
    return [`topology: ${(e as Error).message}`];
  }
  return [];
}

/**
 * Where a recipe may sit in a loaded module namespace, in the order looked at,
 * and the module's export names. A CommonJS module's `module.exports` arrives
 * as `default`; an ES module compiled to CommonJS (a `.ts` file in a CommonJS
 * package, marked `__esModule`) carries its own exports inside that object.
 */
function candidates(mod: Record<string, unknown>): { found: Array<[string, unknown]>; names: string[] } {
  const d = mod.default;
  const inner = typeof d === 'object' && d !== null ? (d as Record<string, unknown>) : undefined;
  let found: Array<[string, unknown]>;
  let names = Object.keys(mod);
  if (inner?.__esModule === true) {
    found = [['the default export', inner.default], ['export `recipe`', inner.recipe ?? mod.recipe]];
    names = Object.keys(inner);
  } else {
    found = [['the default export (module.exports in CommonJS)', d], ['export `recipe`', mod.recipe]];
    if (inner) found.push(['module.exports.default', inner.default], ['module.exports.recipe', inner.recipe]);
  }
  return { found: found.filter(([, v]) => v !== undefined), names };
}

/** What a value is, in a few words, for an error message. */
function describe(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'function') return `a function${v.name ? ` ${v.name}` : ''}`;
  if (typeof v !== 'object') return `${typeof v} ${JSON.stringify(v)}`;
  const keys = Object.keys(v);
  return keys.length ? `an object with ${keys.slice(0, 8).join(', ')}${keys.length > 8 ? ', ...' : ''}` : 'an empty object';
}

const EXPECTED = 'export a LockRecipe as `export default recipe`, `export const recipe = ...`, or in CommonJS `module.exports = recipe` (see examples/my-lock.ts)';

/** Picks the recipe out of a loaded module namespace; throws saying what was found and what is expected. */
export function recipeFromModule(mod: Record<string, unknown>, label: string): LockRecipe {
  const { found, names } = candidates(mod);
  for (const [, v] of found) if (recipeProblems(v).length === 0) return v as LockRecipe;
  // Nothing fits: explain the most specific thing found (an object holding `default`
  // or `recipe` is a CommonJS exports object, looked into above).
  const meant = found.filter(([, v]) => !(typeof v === 'object' && v !== null && ('default' in v || 'recipe' in v)));
  const [where, value] = meant[0] ?? found[0] ?? [];
  if (where === undefined) {
    throw new Error(`--lock ${label}: the module exports neither a default nor \`recipe\` (found ${names.length ? `exports ${names.join(', ')}` : 'no exports at all'}); ${EXPECTED}`);
  }
  const problems = recipeProblems(value);
  throw new Error(`--lock ${label}: ${where} is not a LockRecipe (found ${describe(value)}); missing or wrong:\n  - ${problems.join('\n  - ')}\n  ${EXPECTED}`);
}

// One load per module and process: the client workers resolve the recipe once per run.
const loaded = new Map<string, Promise<LockRecipe>>();

export function loadUserLock(file: string): Promise<LockRecipe> {
  const abs = path.resolve(file);
  let p = loaded.get(abs);
  if (!p) {
    p = load(file, abs);
    loaded.set(abs, p);
    p.catch(() => loaded.delete(abs));   // a fixed file may be tried again
  }
  return p;
}

async function load(file: string, abs: string): Promise<LockRecipe> {
  if (!existsSync(abs)) {
    throw new Error(`--lock ${file}: no such file (${abs}); give the path of ${path.extname(abs) === '.json'
      ? "a process client's recipe (docs/process-clients.md), or exec:'COMMAND' for a client without one"
      : 'a module exporting a LockRecipe, e.g. ./examples/my-lock.ts'}`);
  }
  const ext = path.extname(abs);
  if (ext === '.json') {
    // A process client's recipe file (docs/process-clients.md): checked as any recipe is.
    const r = execRecipeFromFile(abs, file);
    const problems = recipeProblems(r);
    if (problems.length) throw new Error(`--lock ${file}: the recipe file is wrong:\n  - ${problems.join('\n  - ')}`);
    return r;
  }
  if (!LOCK_MODULE_EXTENSIONS.includes(ext)) {
    throw new Error(`--lock ${file}: a lock module must be one of ${LOCK_MODULE_EXTENSIONS.join(' ')}, found ${ext ? `'${ext}'` : 'no extension'} (a process client in another language: a .json recipe file, docs/process-clients.md)`);
  }
  let mod: Record<string, unknown>;
  try {
    if (TS_EXTENSIONS.includes(ext)) await import(TSX_LOADER);   // a no-op where tsx is loaded already (same module)
    mod = (await import(pathToFileURL(abs).href)) as Record<string, unknown>;
  } catch (err) {
    throw new Error(`--lock ${file}: the module failed to load: ${(err as Error).message}`);
  }
  return recipeFromModule(mod, file);
}
