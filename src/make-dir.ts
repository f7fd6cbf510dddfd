// mkdir -p with the real reason when it fails: Node's recursive mkdir reports a read-only or
// unwritable parent as ENOENT ("no such file or directory"), which sends the user looking for
// a missing directory. This finds the first existing ancestor and says what is wrong with it.
import { accessSync, constants, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** Creates dir (and its parents); on failure throws an errno error naming the directory really at fault. */
export function makeDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (e) {
    throw realCause(dir, e as NodeJS.ErrnoException);
  }
}

function realCause(dir: string, e: NodeJS.ErrnoException): NodeJS.ErrnoException {
  if (e.code !== 'ENOENT' && e.code !== 'ENOTDIR') return e;
  let p = resolve(dir);
  for (;;) {
    const up = dirname(p);
    if (up === p) return e;
    p = up;
    let isDir: boolean;
    try { isDir = statSync(p).isDirectory(); } catch { continue; }   // missing: go up
    if (!isDir) return errno('ENOTDIR', `${p} is a file where a directory is needed`, p);
    try {
      accessSync(p, constants.W_OK);
    } catch (w) {
      const code = (w as NodeJS.ErrnoException).code ?? 'EACCES';
      return errno(code, `cannot write to ${p}: ${code === 'EROFS' ? 'read-only file system' : 'permission denied'}`, p);
    }
    return e;
  }
}

function errno(code: string, words: string, path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${words}`), { code, path });
}
