// Where the clock shim (native/clockshim.c, an LD_PRELOAD library that moves a
// server's wall clock) comes from, in this order:
//   1. LOCKPICK_CLOCKSHIM: an explicit path (it must exist);
//   2. <package>/build/libclockshim.so: what `bash scripts/setup.sh` builds in a checkout;
//   3. the per-user cache: $XDG_CACHE_HOME/lockpick/<version>-<source hash>/libclockshim.so
//      (~/.cache when XDG_CACHE_HOME is unset; /var/cache/lockpick for root, because
//      root runs each server under its own uid, which cannot read /root);
//   4. otherwise it is built there now with `cc` (an installed package has no build/).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { packageRoot } from '../package-root.ts';

const SHIM = 'libclockshim.so';

export { packageRoot };

/** The cache directory the shim is built into, for this version of the shim's source. */
export function shimCacheDir(root: string, env: NodeJS.ProcessEnv = process.env, uid = process.getuid?.()): string {
  const version = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version;
  const hash = createHash('sha256').update(readFileSync(path.join(root, 'native', 'clockshim.c'))).digest('hex').slice(0, 12);
  const base = uid === 0 ? '/var/cache' : env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'lockpick', `${version}-${hash}`);
}

/** Compiles native/clockshim.c to `out` (atomically: concurrent lockpicks may build at once). */
export function buildShim(root: string, out: string, cc = process.env.CC || 'cc'): void {
  const src = path.join(root, 'native', 'clockshim.c');
  mkdirSync(path.dirname(out), { recursive: true, mode: 0o755 });
  const tmp = `${out}.${process.pid}.tmp`;
  try {
    execFileSync(cc, ['-O2', '-Wall', '-shared', '-fPIC', '-o', tmp, src], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 60_000 });
    renameSync(tmp, out);
  } catch (e) {
    rmSync(tmp, { force: true });
    const err = e as NodeJS.ErrnoException & { stderr?: Buffer };
    const why = err.code === 'ENOENT'
      ? `no C compiler '${cc}' on PATH`
      : `${cc} failed: ${err.stderr?.toString().trim() || err.message}`;
    throw new Error(`lockpick: cannot build the clock shim ${out} from ${src}: ${why}. ` +
      `Fix: install a C compiler (Debian/Ubuntu: apt-get install gcc), or build it yourself ` +
      `(cc -shared -fPIC -o libclockshim.so ${src}) and set LOCKPICK_CLOCKSHIM=/path/to/libclockshim.so`);
  }
}

/** The clock shim's path, built into the cache on first need. */
export function shimPath(env: NodeJS.ProcessEnv = process.env): string {
  const explicit = env.LOCKPICK_CLOCKSHIM;
  if (explicit) {
    if (!existsSync(explicit)) throw new Error(`lockpick: LOCKPICK_CLOCKSHIM=${explicit} does not exist; unset it to let lockpick build the shim, or point it at a built libclockshim.so`);
    return path.resolve(explicit);
  }
  const root = packageRoot();
  const local = path.join(root, 'build', SHIM);
  if (existsSync(local)) return local;
  const cached = path.join(shimCacheDir(root, env), SHIM);
  if (!existsSync(cached)) buildShim(root, cached);
  return cached;
}
