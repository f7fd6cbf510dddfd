// Client libraries load lazily (ARCHITECTURE): no command of the CLI and no library entry imports
// one at its top, for every client library package.json declares (all its dependencies but the
// few lockpick runs on, named with their reasons). `lockpick check` loads only what checking
// needs: many small histories in a CI gate pay its start-up on every call. The topology registry
// gives the checker its words; the server client libraries behind it load on use, never for `check`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../support/temp-dir.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The dependencies lockpick itself runs on, loaded by every command: each with its reason. Every
 * other dependency in package.json (dependencies and optionalDependencies) is a client library,
 * loaded where it is used with `await import(...)` (ARCHITECTURE: client libraries load lazily).
 */
const RUNS_ON: Record<string, string> = {
  'fast-check': 'the search draws and shrinks its plans with it',
  tsx: 'runs the TypeScript sources (bin/lockpick.mjs)',
  'toxiproxy-node-client': 'every environment drives the fault proxy through it',
};

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies?: Record<string, string>; optionalDependencies?: Record<string, string> };
const CLIENT_LIBRARIES = Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies }).filter((d) => !Object.hasOwn(RUNS_ON, d));

/** The packages a source imports at its top (`import x from 'pkg'`, `export ... from`, `import 'pkg'`), not `import type` nor a lazy `import()`. */
export function eagerImports(source: string): { local: string[]; packages: string[] } {
  const local: string[] = [], packages: string[] = [];
  const statics = /^[ \t]*(?:import|export)\s+(?!type\b)(?:\{[^}]*\}|\*(?:\s+as\s+\w+)?|\w+(?:\s*,\s*(?:\{[^}]*\}|\*\s+as\s+\w+))?)\s+from\s+['"]([^'"]+)['"]|^[ \t]*import\s+['"]([^'"]+)['"]/gm;
  for (const m of source.matchAll(statics)) {
    const spec = (m[1] ?? m[2])!;
    if (spec.startsWith('.')) local.push(spec);
    else if (!spec.startsWith('node:')) packages.push(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
  }
  return { local, packages };
}

/** Every package `entry` loads as it is imported (its static imports, followed through lockpick's own files), with the file that imports each. */
function loadedAtImport(entry: string): Map<string, string> {
  const seen = new Set<string>();
  const packages = new Map<string, string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const { local, packages: pkgs } = eagerImports(readFileSync(file, 'utf8'));
    for (const p of pkgs) if (!packages.has(p)) packages.set(p, relative(root, file));
    for (const l of local) {
      const next = resolve(dirname(file), l);
      if (existsSync(next)) visit(next);
    }
  };
  visit(join(root, entry));
  return packages;
}

/** What the CLI loads for any command (each subcommand's module) and what the library entry loads. */
const ENTRIES = ['src/cli.ts', 'src/index.ts', ...readdirSync(join(root, 'src/commands')).filter((f) => f.endsWith('.ts')).map((f) => `src/commands/${f}`)];

test('the guard reads its client libraries from package.json, and its walk sees an eager import', () => {
  assert.ok(CLIENT_LIBRARIES.length >= 5 && ['ioredis', 'pg', 'mysql2', 'redlock', 'etcd3'].every((d) => CLIENT_LIBRARIES.includes(d)), CLIENT_LIBRARIES.join(', '));
  for (const d of Object.keys(RUNS_ON)) assert.ok(Object.hasOwn({ ...pkg.dependencies, ...pkg.optionalDependencies }, d), `${d}: not a dependency any more; drop it from RUNS_ON`);
  assert.deepEqual(eagerImports("import { Redis } from 'ioredis';\nimport type { Pool } from 'pg';\nimport m, { x } from 'mysql2/promise';\nexport { y } from './y.ts';\nimport '@scope/lib/side';\nconst z = await import('etcd3');\nimport { a } from 'node:fs';"),
    { local: ['./y.ts'], packages: ['ioredis', 'mysql2', '@scope/lib'] });
});

test('no command and no library entry loads a client library at import: every one in package.json loads where it is used', () => {
  const eager = ENTRIES.flatMap((e) => [...loadedAtImport(e)].filter(([p]) => CLIENT_LIBRARIES.includes(p)).map(([p, by]) => `${e} loads ${p} (imported at the top of ${by})`));
  assert.deepEqual(eager, [], `make these imports lazy (await import(...) where the library is used):\n${eager.join('\n')}`);
});

test('importing the check command loads no client library (the require cache shows none)', () => {
  const script = `
    const { createRequire } = await import('node:module');
    await import('./src/commands/check.ts');
    const names = ${JSON.stringify(CLIENT_LIBRARIES)};
    const loaded = Object.keys(createRequire(import.meta.url).cache).filter((f) => names.some((n) => f.includes('/node_modules/' + n + '/')));
    // The probe itself: requiring one shows up in that cache (else this test could never fail).
    createRequire(import.meta.url)('ioredis');
    const probe = Object.keys(createRequire(import.meta.url).cache).some((f) => /node_modules\\/ioredis\\//.test(f));
    console.log(JSON.stringify({ loaded, probe }));`;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' });
  const { loaded, probe } = JSON.parse(out.trim().split('\n').pop()!) as { loaded: string[]; probe: boolean };
  assert.equal(probe, true, 'the require cache shows a loaded package');
  assert.deepEqual(loaded, []);
});

test('the topology registry (its backends\' words) loads only for a history or an option that names a backend', () => {
  // A stale unlock under a lease (checkers/stale-unlock.ts): its words are the backend's.
  const stale = [
    '{"type":"invoke","f":"acquire","process":0,"key":"k","time":0,"lease_ms":800}', '{"type":"ok","f":"acquire","process":0,"key":"k","time":1000000}',
    '{"type":"invoke","f":"acquire","process":1,"key":"k","time":2000000}', '{"type":"ok","f":"acquire","process":1,"key":"k","time":900000000}',
    '{"type":"invoke","f":"release","process":0,"key":"k","time":950000000}', '{"type":"ok","f":"release","process":0,"key":"k","time":951000000}',
  ];
  const runStart = '{"type":"info","f":"run-start","process":"nemesis","value":{"run":1,"backend":"redis"}}';
  // The history is written here, in this file's temp dir (removed on exit), not by the child.
  const dir = tempDir('lockpick-loads-');
  let n = 0;
  const script = (history: string, extra: string[]) => `
    const lines = [];
    const log = console.log; console.log = (s) => lines.push(String(s));
    const { run } = await import('./src/commands/check.ts');
    // Streamed (a sweep model, no limit: checkers/stream.ts), then read whole (checkers/threads.ts).
    for (const limit of [[], ['--time-limit', '60']]) await run([${JSON.stringify(history)}, ...${JSON.stringify(extra)}, ...limit, '--json']);
    console.log = log;
    const b = await import('./checkers/backends.ts');
    let loaded = true; try { b.backendNames(); } catch { loaded = false; }
    console.log(JSON.stringify({ loaded, out: lines.join('\\n') }));`;
  const check = (file: string, extra: string[] = []) => {
    const history = join(dir, `h${n++}.jsonl`);
    writeFileSync(history, file);
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script(history, extra)], { cwd: root, encoding: 'utf8' });
    return JSON.parse(out.trim().split('\n').pop()!) as { loaded: boolean; out: string };
  };
  const plain = check(`${stale.join('\n')}\n`);
  assert.equal(plain.loaded, false);
  assert.equal(plain.out.match(/the unlock freed the lock, which by then was process 1's/g)?.length, 2, plain.out);
  const named = check(`${[runStart, ...stale].join('\n')}\n`);
  assert.equal(named.loaded, true);
  assert.equal(named.out.match(/the unlock deleted the key, which by then was process 1's lock/g)?.length, 2, named.out);
  const given = check(`${stale.join('\n')}\n`, ['--backend', 'redis']);
  assert.equal(given.loaded, true);
  assert.equal(given.out.match(/the unlock deleted the key/g)?.length, 2, given.out);
});
