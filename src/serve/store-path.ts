// A path under the store, from a URL: decoded once, resolved, and its real path (symlinks
// followed) compared with the store's own real path. Anything that lands outside, by `..`,
// an encoded `..%2f`, an absolute path or a symlink that points out, is refused.
import { realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';

export type Resolved = { ok: true; path: string } | { ok: false; status: 403 | 404; why: string };

/** `rel` (URL-encoded, '/'-separated) under the store whose real path is `realRoot`. */
export function storePath(realRoot: string, rel: string): Resolved {
  let decoded: string;
  try { decoded = decodeURIComponent(rel); } catch { return { ok: false, status: 403, why: 'a malformed %-escape in the path' }; }
  if (decoded.includes('\0')) return { ok: false, status: 403, why: 'a NUL in the path' };
  const parts = decoded.split(/[\\/]+/).filter(Boolean);
  if (parts.includes('..')) return { ok: false, status: 403, why: 'the path leaves the store' };
  const joined = resolve(realRoot, ...parts);
  if (!inside(joined, realRoot)) return { ok: false, status: 403, why: 'the path leaves the store' };
  let real: string;
  try { real = realpathSync(joined); } catch { return { ok: false, status: 404, why: 'no such file in the store' }; }
  if (!inside(real, realRoot)) return { ok: false, status: 403, why: 'the path is a link that leads out of the store' };
  return { ok: true, path: real };
}

export function inside(p: string, root: string): boolean {
  const r = relative(root, p);
  return r === '' || (!r.startsWith(`..${sep}`) && r !== '..' && !isAbsolute(r));
}

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8', json: 'application/json; charset=utf-8', jsonl: 'text/plain; charset=utf-8', log: 'text/plain; charset=utf-8',
  txt: 'text/plain; charset=utf-8', xml: 'application/xml; charset=utf-8', edn: 'text/plain; charset=utf-8', svg: 'image/svg+xml', png: 'image/png',
};

export function contentType(path: string): string {
  const ext = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase() ?? '';
  return Object.hasOwn(TYPES, ext) ? TYPES[ext]! : 'application/octet-stream';
}
