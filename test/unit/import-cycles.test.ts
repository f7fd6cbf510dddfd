// The import graph of lockpick's own sources (src, nemesis, checkers), read from the files:
// no circle of imports that crosses folders (a folder importing one that imports it back
// makes neither a part you can change alone), and none at all in src/env, whose
// environment kinds and topologies sit above its core. Type-only and lazy `import()`s
// count, as in `npx madge --circular --extensions ts src nemesis checkers`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');
const DIRS = ['src', 'nemesis', 'checkers'];

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) return n === 'node_modules' || n.startsWith('.') ? [] : tsFiles(p);
    return p.endsWith('.ts') && !p.endsWith('.d.ts') ? [p] : [];
  });
}

/** Relative specifiers a file imports: `import ... from '...'` (also `import type`, multi-line), `export ... from`, `import '...'`, `import('...')`. */
export function importsOf(source: string): string[] {
  const out: string[] = [];
  const statics = /^[ \t]*(?:import|export)\s+(?:type\s+)?(?:\{[^}]*\}|\*(?:\s+as\s+\w+)?|\w+(?:\s*,\s*\{[^}]*\})?)\s+from\s+['"](\.{1,2}\/[^'"]+)['"]|^[ \t]*import\s+['"](\.{1,2}\/[^'"]+)['"]/gm;
  for (const m of source.matchAll(statics)) out.push((m[1] ?? m[2])!);
  // Lazy imports, outside comment lines.
  for (const line of source.split('\n')) {
    if (/^\s*(\/\/|\*|\/\*)/.test(line)) continue;
    for (const m of line.matchAll(/\bimport\s*\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g)) out.push(m[1]!);
  }
  return out;
}

/** The graph: file (relative to the root) → the files of the graph it imports. */
function graph(): Map<string, string[]> {
  const files = DIRS.flatMap((d) => tsFiles(join(ROOT, d)));
  const known = new Set(files);
  const g = new Map<string, string[]>();
  for (const f of files) {
    const deps = importsOf(readFileSync(f, 'utf8')).map((s) => resolve(dirname(f), s)).filter((p) => known.has(p));
    g.set(relative(ROOT, f), [...new Set(deps.map((p) => relative(ROOT, p)))]);
  }
  return g;
}

/** Strongly connected components of more than one file (Tarjan): the import circles. */
export function circles(g: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>(), low = new Map<string, number>(), on = new Set<string>(), stack: string[] = [], out: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index); low.set(v, index); index++;
    stack.push(v); on.add(v);
    for (const w of g.get(v) ?? []) {
      if (!idx.has(w)) { visit(w); low.set(v, Math.min(low.get(v)!, low.get(w)!)); } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      for (let w; w !== v;) { w = stack.pop()!; on.delete(w); scc.push(w); }
      if (scc.length > 1) out.push(scc.sort());
    }
  };
  for (const v of g.keys()) if (!idx.has(v)) visit(v);
  return out;
}

test('the walk finds imports of every form, and a circle across folders', () => {
  assert.deepEqual(importsOf("// kinds live in nemesis/faults/*, see there\nimport a from './a.ts';\nimport type { B } from '../b.ts';\nexport { c } from './c.ts';\nimport {\n  f,\n  g,\n} from './f.ts';\nexport * from './h.ts';\nimport './e.ts';\nconst d = await import('./d.ts');\n// import x from './no.ts';\n// const y = import('./no2.ts');\nimport fc from 'fast-check';"),
    ['./a.ts', '../b.ts', './c.ts', './f.ts', './h.ts', './e.ts', './d.ts']);
  const g = new Map([['x/a.ts', ['y/b.ts']], ['y/b.ts', ['x/a.ts']], ['x/c.ts', ['x/a.ts']]]);
  assert.deepEqual(circles(g), [['x/a.ts', 'y/b.ts']]);
});

test('no import circle crosses folders in src, nemesis and checkers', () => {
  const g = graph();
  assert.ok(g.size > 100, `read ${g.size} files`);
  const crossing = circles(g).filter((c) => new Set(c.map((f) => dirname(f))).size > 1);
  assert.deepEqual(crossing, [], `circles across folders (each: the files in it):\n${crossing.map((c) => c.join(' ')).join('\n')}`);
});

test('src/env has no import circle: environment kinds and topologies sit above its core', () => {
  const inEnv = circles(graph()).filter((c) => c.some((f) => f.startsWith(join('src', 'env'))));
  assert.deepEqual(inEnv, []);
});
