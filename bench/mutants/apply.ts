// Turning a mutant fixture into a lock module lockpick can load: the mutated
// file (and, when the mutated file is a helper, the recipe module that imports
// it) copied to src/locks/.mutants/<name>/, its relative imports pointed back
// at the real src/locks/ files, and a default export of the recipe, so
// `lockpick run --lock <that file>` loads it as any user's lock module would
// (src/locks/user-lock.ts). Pure text functions first, the file system last.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Mutant } from './types.ts';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const LOCKS_DIR = path.join(REPO, 'src', 'locks');
export const MUTANTS_DIR = path.join(LOCKS_DIR, '.mutants');

/** How many times `needle` occurs in `hay` (non-overlapping). */
export function occurrences(hay: string, needle: string): number {
  if (needle === '') return 0;
  let n = 0;
  for (let i = hay.indexOf(needle); i >= 0; i = hay.indexOf(needle, i + needle.length)) n++;
  return n;
}

/** The source with the mutant's one change made; throws unless its search text occurs exactly once. */
export function mutate(source: string, m: Pick<Mutant, 'name' | 'file' | 'search' | 'replace'>): string {
  const n = occurrences(source, m.search);
  if (n !== 1) {
    throw new Error(`mutant ${m.name}: its search text occurs ${n} times in src/locks/${m.file} (must be exactly once); the recipe changed: update bench/mutants/fixtures.ts`);
  }
  if (m.search === m.replace) throw new Error(`mutant ${m.name}: search and replace are the same text`);
  return source.replace(m.search, () => m.replace);
}

/**
 * Points `./x.ts` imports of a copy two folders down (src/locks/.mutants/<name>/)
 * back at src/locks/, except the files copied beside it (`local`).
 */
export function redirectImports(source: string, local: ReadonlySet<string>): string {
  return source.replace(/(\bfrom\s+|\bimport\s*\(\s*)(['"])\.\/([^'"]+)\2/g, (_all, lead: string, q: string, file: string) =>
    `${lead}${q}${local.has(file) ? './' : '../../'}${file}${q}`);
}

/** The relative imports of a module (`./x.ts` → `x.ts`). */
export function relativeImports(source: string): string[] {
  return [...source.matchAll(/\bfrom\s+['"]\.\/([^'"]+)['"]/g)].map((x) => x[1]!);
}

/** The files of a mutant's module: name → text. `mutated: false` gives the unmutated copy (the base run). */
export function moduleFiles(m: Mutant, mutated = true, read: (file: string) => string = (f) => readFileSync(path.join(LOCKS_DIR, f), 'utf8')): Map<string, string> {
  const entry = m.module ?? m.file;
  const files = new Map<string, string>();
  files.set(m.file, mutated ? mutate(read(m.file), m) : read(m.file));
  if (entry !== m.file) {
    const src = read(entry);
    if (!relativeImports(src).includes(m.file)) {
      throw new Error(`mutant ${m.name}: src/locks/${entry} does not import ./${m.file} directly; name the recipe module that does`);
    }
    files.set(entry, src);
  }
  const local = new Set(files.keys());
  for (const [f, text] of files) files.set(f, redirectImports(text, local));
  files.set(entry, `${files.get(entry)}\n// bench/mutants: the recipe under test.\nexport default ${m.exportName ?? 'recipe'};\n`);
  return files;
}

/** Writes the module under src/locks/.mutants/<dir>/; returns the path to pass to --lock and a cleanup. */
export function materialize(m: Mutant, dir: string, mutated = true): { lockPath: string; remove: () => void } {
  const at = path.join(MUTANTS_DIR, dir);
  rmSync(at, { recursive: true, force: true });
  mkdirSync(at, { recursive: true });
  for (const [f, text] of moduleFiles(m, mutated)) writeFileSync(path.join(at, f), text);
  return { lockPath: path.join(at, m.module ?? m.file), remove: () => rmSync(at, { recursive: true, force: true }) };
}
