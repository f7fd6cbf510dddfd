// Where lockpick's own files are, from the sources (src/) or the build (dist/src/) alike.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The directory holding lockpick's package.json (a checkout or node_modules/lockpick; also from dist/). */
export function packageRoot(from = path.dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const pkg = path.join(dir, 'package.json');
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'lockpick') return dir;
    if (path.dirname(dir) === dir) throw new Error(`lockpick: no package.json of lockpick above ${from}; reinstall lockpick`);
  }
}

/** The version in lockpick's package.json. */
export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { version: string };
  return pkg.version;
}
