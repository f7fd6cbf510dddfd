// What a bug report says the lock under test is, from a stored run's test.json: a built-in
// recipe (its summary, what it follows, the npm packages it loads and their versions), a user's
// module (the package it belongs to, name@version from the nearest package.json), or a process
// client (its recipe file's command, summary and source), and whether that file changed since.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { LockSpec } from '../runner/protocol.ts';
import { lockFromStored, lockLabel, moduleHash } from '../runner/lock-spec.ts';
import { createRequire } from 'node:module';
import { packageRoot } from '../package-root.ts';
import { notRegularFile } from '../regular-file.ts';
import type { LockFacts } from './issue.ts';

const readJson = (p: string): Record<string, unknown> | undefined => {
  if (notRegularFile(p) !== undefined) return undefined;   // none there, or a FIFO that would block the read
  try {
    const v = JSON.parse(readFileSync(p, 'utf8')) as unknown;
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? v as Record<string, unknown> : undefined;
  } catch { return undefined; }
};

/** name@version of the package a file belongs to (the nearest package.json above it that names one). */
export function owningPackage(file: string): string | undefined {
  for (let d = dirname(resolve(file)); ; d = dirname(d)) {
    const pj = readJson(join(d, 'package.json'));
    if (typeof pj?.name === 'string') return `${pj.name}@${typeof pj.version === 'string' ? pj.version : 'unversioned'}`;
    if (dirname(d) === d) return undefined;
  }
}

/** name@version of an npm package lockpick loads, as installed beside it, or undefined. */
function npmPackage(pkg: string): string | undefined {
  try {
    return owningPackage(createRequire(join(packageRoot(), 'package.json')).resolve(pkg));
  } catch { return undefined; }
}

export async function lockFacts(test: Record<string, unknown>, cwd = process.cwd()): Promise<LockFacts> {
  const stored = test.lock_spec as LockSpec | undefined;
  const label = typeof test.lock === 'string' ? test.lock : stored ? lockLabel(stored, cwd) : 'unknown lock';
  if (!stored) return { label, lines: [`${label} (the run did not record how the lock was given)`] };
  if ('name' in stored) {
    if (stored.name.startsWith('exec:')) return { label, lines: [`a process client run as ${'`'}${stored.name.slice('exec:'.length)}${'`'} (the lockpick process-client protocol)`] };
    const { RECIPES } = await import('../locks/registry.ts');
    const r = RECIPES.find((x) => x.name === stored.name);
    if (!r) return { label, lines: [`${stored.name} (not a recipe this lockpick knows)`] };
    const pkgs = (r.packages ?? []).map((p) => npmPackage(p) ?? `${p} (not installed)`);
    return { label, lines: [`lockpick's built-in recipe ${'`'}${r.name}${'`'}: ${r.summary}`, `follows: ${r.source}`, ...(pkgs.length ? [`npm packages: ${pkgs.join(', ')}`] : [])] };
  }
  const file = stored as { path: string };   // as the run stored it: relative to its project when inside it
  const path = (lockFromStored(stored, cwd) as { path: string }).path;
  const lines: string[] = [];
  if (!existsSync(path) || !statSync(path).isFile()) return { label, lines: [`${file.path} (not found from ${cwd}: run the report from the project the run was made in)`] };
  if (path.endsWith('.json')) {
    const rec = readJson(path) ?? {};
    const name = typeof rec.name === 'string' ? ` ${'`'}${rec.name}${'`'}` : '';
    lines.push(`a process client${name}: ${'`'}${String(rec.exec ?? '?')}${'`'} (recipe ${'`'}${file.path}${'`'})`);
    if (typeof rec.summary === 'string') lines.push(rec.summary);
    if (typeof rec.source === 'string') lines.push(`library: ${rec.source}`);
  } else {
    const pkg = owningPackage(path);
    lines.push(`a lock module: ${'`'}${file.path}${'`'}${pkg ? `, in package ${'`'}${pkg}${'`'}` : ''}`);
  }
  const was = typeof test.lock_sha256 === 'string' ? test.lock_sha256 : undefined;
  const now = moduleHash(path);
  if (was && now && was !== now) lines.push(`note: ${file.path} changed since the run (sha256 ${was.slice(0, 12)}… then, ${now.slice(0, 12)}… now); the report describes the run`);
  return { label, lines };
}
