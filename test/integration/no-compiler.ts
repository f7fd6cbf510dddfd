// A machine without a C or C++ compiler, for the package test. Each command runs in a
// mount namespace of its own (util-linux `unshare`; `--map-root-user` when not root) in
// which every compiler and make on PATH is really gone: an overlay over its directory
// whites the names out, so `cc` is "not found" (ENOENT) for node-gyp, the clock shim's
// build and a shell alike, as on a slim CI image, and the shim caches are empty. Where
// no namespace can be made, the PATH alone hides them (a bin directory of links to
// everything else) and `how` says so.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, realpathSync, symlinkSync } from 'node:fs';
import path from 'node:path';

/** The programs a native build looks for: C/C++ compiler drivers (also target-prefixed and versioned) and make. */
const COMPILER = /^(cc|c\+\+|gcc|g\+\+|cpp|c89-gcc|c99-gcc|clang.*|make|gmake|.*-(gcc|g\+\+|cpp|cc|c\+\+)(-[0-9.]+)?|(gcc|g\+\+|cpp)-[0-9.]+)$/;

export interface NoCompiler {
  /** 'namespace': the compilers are absent from the file system the commands see; 'path': only from their PATH. */
  how: 'namespace' | 'path';
  /** In words, for test names and logs. */
  says: string;
  env: NodeJS.ProcessEnv;
  /** The command line that runs `cmd args` on the compiler-less machine. */
  wrap(cmd: string, args: string[]): [string, string[]];
}

const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** Real directory → compiler names in it, over the PATH's directories. */
function compilersOnPath(pathVar: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const d of pathVar.split(':')) {
    let real: string;
    let names: string[];
    try { real = realpathSync(d); names = readdirSync(real); } catch { continue; }
    if (out.has(real)) continue;
    const hits = names.filter((n) => COMPILER.test(n));
    if (hits.length) out.set(real, hits);
  }
  return out;
}

/**
 * A shell script that, run as root of a fresh mount namespace, lays an overlay with a whiteout
 * for each compiler over its directory, an empty tmpfs over each of `empty` (caches), then
 * execs its arguments. `scratch` is an empty directory for the overlays' upper layers.
 */
function namespaceScript(scratch: string, dirs: Map<string, string[]>, empty: string[], back?: { uid: number; gid: number }): string {
  const lines = ['set -e', `mount -t tmpfs lockpick-no-cc ${q(scratch)}`];
  let i = 0;
  for (const [dir, names] of dirs) {
    const u = path.join(scratch, `u${i}`), w = path.join(scratch, `w${i++}`);
    lines.push(`mkdir ${q(u)} ${q(w)}`, ...names.map((n) => `mknod ${q(path.join(u, n))} c 0 0`),
      `mount -t overlay lockpick-no-cc -o ${q(`lowerdir=${dir},upperdir=${u},workdir=${w}`)} ${q(dir)}`);
  }
  for (const d of empty) lines.push(`mount -t tmpfs lockpick-empty ${q(d)}`);
  // Not root: the namespace was made as root of a user namespace; the command runs as the user again.
  lines.push(back ? `exec unshare --user --map-user=${back.uid} --map-group=${back.gid} -- "$@"` : 'exec "$@"');
  return lines.join('\n');
}

/**
 * The compiler-less machine, under `root` (a fresh directory). `emptyDirs`: existing directories
 * that must look empty there (root's clock shim cache, which ignores XDG_CACHE_HOME).
 */
export function noCompiler(root: string, emptyDirs: string[] = []): NoCompiler {
  mkdirSync(root, { recursive: true });
  const { CC: _cc, CXX: _cxx, ...rest } = process.env;
  // A fresh cache: no clock shim built by an earlier run (building one needs cc).
  const env: NodeJS.ProcessEnv = { ...rest, XDG_CACHE_HOME: path.join(root, 'cache') };
  const scratch = path.join(root, 'ns');
  mkdirSync(scratch);
  const uid = process.getuid?.() ?? 0;
  const back = uid === 0 ? undefined : { uid, gid: process.getgid?.() ?? uid };
  const script = namespaceScript(scratch, compilersOnPath(env.PATH ?? ''), emptyDirs.filter((d) => existsSync(d)), back);
  const ns: NoCompiler = {
    how: 'namespace', says: `a mount namespace where cc, g++ and make are absent (unshare${back ? ' --map-root-user' : ''})`, env,
    wrap: (cmd, args) => ['unshare', ['--mount', ...(back ? ['--map-root-user'] : []), '--', 'sh', '-c', script, 'sh', cmd, ...args]],
  };
  // The proof: no compiler is found, and cc itself cannot be run.
  const probe = spawnSync(...ns.wrap('sh', ['-c', 'for c in cc c++ gcc g++ cpp make; do command -v $c && exit 9; done; exec cc --version']), { env, encoding: 'utf8', timeout: 30_000 });
  if (probe.status === 127 && probe.stdout === '') return ns;
  const why = (probe.error?.message ?? probe.stderr.trim().split('\n')[0]) || `the probe exited ${String(probe.status)}`;
  return { ...pathOnly(root, env), says: `the compilers hidden from PATH only (no mount namespace: ${why})` };
}

/** The fallback: every program on PATH except the compilers, linked into one directory that becomes the PATH. */
function pathOnly(root: string, env: NodeJS.ProcessEnv): Omit<NoCompiler, 'says'> {
  const bin = path.join(root, 'bin');
  mkdirSync(bin);
  for (const d of (env.PATH ?? '').split(':')) {
    let names: string[];
    try { names = readdirSync(d); } catch { continue; }
    for (const n of names) if (!COMPILER.test(n) && !existsSync(path.join(bin, n))) symlinkSync(path.join(d, n), path.join(bin, n));
  }
  return { how: 'path', env: { ...env, PATH: bin }, wrap: (cmd, args) => [cmd, args] };
}
