// A LockRecipe as plain data: what lockpick's own process needs of a user's recipe (topology,
// model, lease, fencing, points, options...), copied out of the process that loaded the module
// (src/locks/recipe-probe-child.ts). Only JSON values cross: a getter, a function or a cycle
// in a field is refused here, in the child, as a recipe problem.

/** The recipe fields lockpick reads outside the client workers. */
export const DATA_FIELDS = ['name', 'summary', 'source', 'topology', 'model', 'fencing', 'lease', 'points', 'channels', 'renews', 'keepsAlive', 'commandTimeoutMs', 'ioPoints', 'optionsHelp', 'optionValues', 'packages', 'lacks', 'realLease'] as const;

export interface RecipeData {
  fields: Record<string, unknown>;
  /** sessionMs(options) for each option set asked (JSON of the options → ms), when the recipe has it. */
  sessionMs?: Array<[string, number]>;
  hasSessionMs: boolean;
}

/** JSON-like deep copy (plain objects, arrays, strings, finite numbers, booleans, null), bounded in depth. */
export function plain(v: unknown, where: string, depth = 0): unknown {
  if (depth > 32) throw new Error(`${where}: nested too deep`);
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new Error(`${where}: ${v} is not a finite number`);
    return v;
  }
  if (Array.isArray(v)) return v.map((x, i) => plain(x, `${where}[${i}]`, depth + 1));
  if (typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
    const out: Record<string, unknown> = Object.create(null);
    for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = plain(x, `${where}.${k}`, depth + 1);
    return out;
  }
  throw new Error(`${where}: ${typeof v === 'function' ? 'a function' : 'a value'} where plain data is expected`);
}

export function optionsKey(o: Record<string, unknown> | undefined): string {
  return JSON.stringify(o ?? {});
}

export function recipeData(r: object, optionSets: Array<Record<string, unknown> | undefined>): RecipeData {
  const rec = r as Record<string, unknown>;
  const fields: Record<string, unknown> = Object.create(null);
  for (const f of DATA_FIELDS) if (rec[f] !== undefined) fields[f] = plain(rec[f], f);
  const fn = rec.sessionMs;
  if (typeof fn !== 'function') return { fields, hasSessionMs: false };
  const sessionMs = optionSets.map((o): [string, number] => {
    const ms: unknown = fn.call(r, o);
    if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) throw new Error(`sessionMs(${optionsKey(o)}) returned ${String(ms)}; a number of milliseconds ≥ 0 is expected`);
    return [optionsKey(o), ms];
  });
  return { fields, sessionMs, hasSessionMs: true };
}
