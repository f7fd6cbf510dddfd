// mkdir -p with the real reason when it fails: Node's recursive mkdir reports a read-only or
// unwritable parent as ENOENT ("no such file or directory"), which sends the user looking for
// a missing directory. This finds the first existing ancestor and says what is wrong with it.
// The missing directories are made one at a time, from the top: Node's recursive mkdirSync
// loops for ever where a directory cannot be made though its parent is there (/proc/x:
// ENOENT again and again), so `--out /proc/x` or `--store /proc/x` would hang.
import { accessSync, constants, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** Creates dir (and its parents); on failure throws an errno error naming the directory really at fault. */
export function makeDir(dir: string): void {
  const missing: string[] = [];
  for (let p = resolve(dir); ; ) {
    let isDir: boolean;
    try {
      isDir = statSync(p).isDirectory();
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw realCause(dir, e as NodeJS.ErrnoException);
      const up = dirname(p);
      if (up === p) throw realCause(dir, e as NodeJS.ErrnoException);
      missing.push(p);
      p = up;
      continue;
    }
    if (!isDir) throw errno('ENOTDIR', `${p} is a file where a directory is needed`, p);
    break;
  }
  for (const p of missing.reverse()) {
    try {
      mkdirSync(p);
    } catch (e) {
      const x = e as NodeJS.ErrnoException;
      if (x.code === 'EEXIST' && isDirectory(p)) continue;   // made meanwhile (another run)
      throw realCause(dir, x);
    }
  }
}

function isDirectory(p: string): boolean {
  try { return statSync(p).isDirectory(); } catch { return false; }
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
    // The parent is there and may be written, yet no directory can be made in it: not an
    // ordinary directory (/proc, /sys: the kernel's files).
    return errno(e.code, `no directory can be made in ${p}: its file system refuses new directories (as /proc and /sys do)`, e.path ?? p);
  }
}

function errno(code: string, words: string, path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${words}`), { code, path });
}
