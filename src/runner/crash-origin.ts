// Whose code threw the error that killed a client worker: the lock's (its module, its client
// library: a robustness failure of the lock, the `client-crash` anomaly) or lockpick's own
// worker code (a bug of lockpick: the run is inconclusive, never blamed on the lock).
//
// Told by the stack's frames: the topmost frame that is code of its own (not Node's internals,
// not lockpick's pass-through hooks) says who threw. Lockpick's own code is its sources outside
// src/locks/ (the built-in recipes there are locks like a user's); the hooks the worker puts
// under every socket and clock (io-points*.ts wraps net.Socket's emit and write, skewed-clock.ts
// Date) only pass calls on, so a library's throw from inside its socket handler passes through
// them and must not count as theirs. An error with no frame of anyone's code (Node's own socket
// error, `read ECONNRESET`, emitted with no 'error' listener; a rejection with a non-Error) is
// the lock's: the server sockets are the lock's, and lockpick's own sockets (the resource store,
// the IPC channel) and promises all have handlers.
// One exception, wherever it sits in the stack: a frame of the I/O points' drain functions. They
// hand on, later, a write or a reply that lockpick held at a point (io-points*.ts), and what the
// library does with bytes delivered at a moment it could not have seen them (a reply to a socket
// it had already destroyed) is lockpick's doing: when in doubt the run is inconclusive, never the
// lock's failure. The worker raises Error.stackTraceLimit so such a frame is not cut off.
import { dirname, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export type CrashOrigin = 'lock' | 'lockpick';

/** Hooks that only pass a lock's calls and events on (their frames say nothing about who threw). */
const PASS_THROUGH = /[\\/]runner[\\/](io-points[\w-]*|skewed-clock|late-timers|send-clock)\.[cm]?[jt]s$/;
/** The I/O points' deferred delivery: "at drainIn (…/io-points.ts:1:2)", "at async drainOut (…)". */
const DEFERRED_IO = /^\s*at (?:async )?drain\w* \(.*[\\/]runner[\\/]io-points[\w-]*\.[cm]?[jt]s:\d+:\d+\)\s*$/;

/** The file a stack line names ("    at f (file:///a/b.ts:1:2)", "    at /a/b.js:1:2"), or undefined. */
export function frameFile(line: string): string | undefined {
  const m = /^\s*at (?:.*?\()?(?:async )?([^()]+?):\d+:\d+\)?\s*$/.exec(line);
  if (!m) return undefined;
  const f = m[1]!;
  if (f.startsWith('file://')) {
    try { return fileURLToPath(f); } catch { return undefined; }
  }
  return f;
}

/** Node's own frames: node:internal/..., node:events, native code. */
function isInternal(file: string): boolean {
  return file.startsWith('node:') || file.startsWith('internal/') || file === 'native' || file === '<anonymous>';
}

/**
 * Who threw: `root` is lockpick's package root (the folder holding src/, checkers/, nemesis/:
 * the sources under tsx, dist/ when built, which keeps that layout).
 */
export function crashOrigin(stack: string | undefined, root: string): CrashOrigin {
  const own = [`src${sep}`, `checkers${sep}`, `nemesis${sep}`].map((d) => root + sep + d);
  const locks = root + sep + `src${sep}locks${sep}`;
  const lines = (stack ?? '').split('\n');
  if (lines.some((l) => DEFERRED_IO.test(l.replace('file://', '')))) return 'lockpick';
  for (const line of lines) {
    const file = frameFile(line);
    if (!file || isInternal(file) || PASS_THROUGH.test(file)) continue;
    const mine = !file.includes(`${sep}node_modules${sep}`) && own.some((d) => file.startsWith(d)) && !file.startsWith(locks);
    return mine ? 'lockpick' : 'lock';
  }
  return 'lock';
}

/** lockpick's package root as seen from this file (src/runner/ under tsx, dist/src/runner/ built). */
export const PACKAGE_ROOT = dirname(dirname(dirname(fileURLToPath(import.meta.url))));

/** The error's first line and at most `frames` stack lines below it (what the anomaly shows). */
export function stackHead(stack: string, frames = 6): string {
  const lines = stack.split('\n');
  const first = lines.findIndex((l) => /^\s*at /.test(l));
  if (first < 0) return lines.slice(0, 3).join('\n');
  return lines.slice(0, first + frames).join('\n');
}
