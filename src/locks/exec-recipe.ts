// How a process client is named: `--lock exec:'CMD'` (a lock on one Redis master, a mutex
// with a lease, nothing else declared), or a recipe file `--lock ./my-lock.json` that gives the
// command and what a recipe gives (topology, model, lease, fencing, renews, points, the
// runtime's clock). The command of a recipe file runs in the file's directory, so a project
// and its recipe move together; an `exec:` command runs in lockpick's working directory.
import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { LockRecipe, RecipeTopology } from './lock.ts';
import { ExecLock, type ExecConfig } from './exec-lock.ts';
import { shimPath } from '../env/clock-shim.ts';
import { realLeaseProblems, type RealLease } from './real-lease.ts';
import { commandTimeoutProblems } from './command-timeout.ts';

export const EXEC_PREFIX = 'exec:';

/** The fields of a recipe file (docs/process-clients.md). */
export const FIELDS = ['exec', 'name', 'summary', 'source', 'topology', 'model', 'semaphore', 'modes', 'lease', 'fencing', 'renews', 'keepsAlive', 'channels', 'points', 'clock', 'sessionMs', 'startMs', 'commandTimeoutMs', 'realLease', 'ioPoints'];

/** Bounds of the recipe's numbers (ms): the time to answer ready (a JVM under load takes 20 s), a session (an hour, as a TTL). */
export const START_MS_MAX = 600_000;
export const SESSION_MS_MAX = 3_600_000;
/** Bounds of its words: a command line, a name or summary, the named points. */
const TEXT_MAX = 4096;
const POINTS_MAX = 64;

/** Why the client-clock fault cannot reach a runtime that reads its clock without libc. */
export const NO_LIBC_CLOCK = "the lock's runtime reads its clock without libc (recipe \"clock\": \"none\", e.g. a Go binary), so the clock shim cannot move it";

/**
 * The program a command starts, when it is plainly named (its first word after any VAR=value, no
 * quotes or shell syntax), and whether it can be found: a path from `cwd`, else on PATH. A missing
 * one is said before any server starts; anything the shell would have to work out is left to it.
 */
export function missingProgram(command: string, cwd: string): string | undefined {
  const rest = command.slice(/^\s*(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*/.exec(command)![0].length);
  const word = /^[A-Za-z0-9_./+-]+(?=\s|$)/.exec(rest)?.[0];
  if (!word) return undefined;
  const runnable = (p: string) => { try { accessSync(p, constants.X_OK); return statSync(p).isFile(); } catch { return false; } };
  if (word.includes('/')) return runnable(resolve(cwd, word)) ? undefined : `${word} is not an executable file${word.startsWith('/') ? '' : ` (from ${cwd})`}`;
  const found = (process.env.PATH ?? '').split(':').filter(Boolean).some((d) => runnable(join(d, word)));
  return found ? undefined : `${word} is not on PATH`;
}

function build(command: string, cwd: string, o: Record<string, unknown>, label: string): LockRecipe {
  const missing = missingProgram(command, cwd);
  if (missing) throw new Error(`--lock ${label}: the client's program cannot be found: ${missing}\n  fix: install it, or give its full path in the command (docs/process-clients.md)`);
  const clock = (o.clock ?? 'libc') as 'libc' | 'none';
  const renews = o.renews === true;
  const sessionMs = typeof o.sessionMs === 'number' ? o.sessionMs : undefined;
  const realLease = o.realLease as RealLease | undefined;
  const cfg: ExecConfig = { command, cwd, clock, renews, shim: () => shimPath(), ...(typeof o.startMs === 'number' ? { startMs: o.startMs } : {}), ...(realLease ? { realLease } : {}) };
  return {
    name: typeof o.name === 'string' ? o.name : label,
    summary: typeof o.summary === 'string' ? o.summary : `process client: ${command}`,
    source: typeof o.source === 'string' ? o.source : command,
    topology: (o.topology ?? { kind: 'redis', masters: 1 }) as RecipeTopology,
    model: (o.model ?? 'mutex') as LockRecipe['model'],
    fencing: o.fencing === true,
    // A semaphore (its limit; shapeProblems checks it with the model) or a read-write lock (its modes).
    ...(o.semaphore !== undefined ? { semaphore: o.semaphore as LockRecipe['semaphore'] } : {}),
    ...(o.modes !== undefined ? { modes: o.modes as LockRecipe['modes'] } : {}),
    ...(typeof o.lease === 'boolean' ? { lease: o.lease } : {}),
    ...(Array.isArray(o.points) ? { points: o.points as string[] } : {}),
    ...(renews ? { renews } : {}),
    ...(o.keepsAlive === true ? { keepsAlive: true } : {}),
    ...(typeof o.commandTimeoutMs === 'number' ? { commandTimeoutMs: o.commandTimeoutMs } : {}),
    // Further connections (a lease's keep-alives): their endpoints come in start's `channels`, each on links of its own.
    ...(Array.isArray(o.channels) ? { channels: o.channels as string[] } : {}),
    ...(sessionMs !== undefined ? { sessionMs: () => sessionMs } : {}),
    ...(clock === 'none' ? { lacks: { 'client-clock': NO_LIBC_CLOCK } } : {}),
    ...(realLease ? { realLease } : {}),
    // Its requests leave another process: the fault proxy makes its I/O points (send:<op>:N).
    ioPoints: 'proxy',
    create: async (ctx) => {
      const lock = new ExecLock(cfg, ctx);
      try {
        await lock.start();
      } catch (e) {
        await lock.close().catch(() => {});
        throw e;
      }
      return lock;
    },
  };
}

/** `exec:CMD` as a recipe; undefined when `name` is not one. */
export function execRecipeFromName(name: string): LockRecipe | undefined {
  if (!name.startsWith(EXEC_PREFIX)) return undefined;
  const command = name.slice(EXEC_PREFIX.length).trim();
  if (!command) throw new Error(`--lock exec: needs a command, e.g. --lock exec:'/usr/bin/python3 my_lock.py' (docs/process-clients.md)`);
  return build(command, process.cwd(), {}, name);
}

function inRange(v: unknown, max: number): boolean {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 && v <= max;
}

/** What is wrong with a recipe file's fields (the topology and the rest are checked as any recipe's, by user-lock.ts). */
function fileProblems(o: Record<string, unknown>): string[] {
  const out: string[] = [];
  if (typeof o.exec !== 'string' || !o.exec.trim() || o.exec.length > TEXT_MAX) out.push(`exec: the command that starts the client, a non-empty string of at most ${TEXT_MAX} characters`);
  for (const f of ['name', 'summary', 'source'] as const) if (o[f] !== undefined && !(typeof o[f] === 'string' && o[f].length > 0 && o[f].length <= TEXT_MAX)) out.push(`${f}: a non-empty string of at most ${TEXT_MAX} characters`);
  for (const k of Object.keys(o)) if (!FIELDS.includes(k)) out.push(`${k}: not a recipe field (known: ${FIELDS.join(', ')})`);
  for (const f of ['lease', 'fencing', 'renews', 'keepsAlive'] as const) if (o[f] !== undefined && typeof o[f] !== 'boolean') out.push(`${f}: true or false`);
  if (o.clock !== undefined && o.clock !== 'libc' && o.clock !== 'none') out.push("clock: 'libc' (the runtime reads the clock through libc: Python, the JVM) or 'none' (a Go binary)");
  if (o.points !== undefined && !(Array.isArray(o.points) && o.points.length <= POINTS_MAX && o.points.every((p) => typeof p === 'string' && /^[a-z][a-z0-9-]{0,63}$/.test(p)))) out.push(`points: the names of the points the client announces, at most ${POINTS_MAX} lower-case words of up to 64 characters`);
  if (o.sessionMs !== undefined && !inRange(o.sessionMs, SESSION_MS_MAX)) out.push(`sessionMs: a number of ms above 0 and at most ${SESSION_MS_MAX}`);
  if (o.startMs !== undefined && !inRange(o.startMs, START_MS_MAX)) out.push(`startMs: a number of ms above 0 and at most ${START_MS_MAX} (how long the client has to answer start with ready)`);
  if (o.realLease !== undefined) out.push(...realLeaseProblems(o.realLease));
  out.push(...commandTimeoutProblems(o.commandTimeoutMs));
  if (o.ioPoints !== undefined && o.ioPoints !== 'proxy') out.push("ioPoints: 'proxy', the only value for a process client (its requests leave another process, so only the fault proxy sees them: send points, no reply points)");
  return out;
}

/** A recipe file (.json) as a recipe; throws naming what is wrong. */
export function execRecipeFromFile(file: string, label: string): LockRecipe {
  let o: unknown;
  try {
    o = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Error(`--lock ${label}: not a JSON recipe file: ${(e as Error).message}`);
  }
  if (typeof o !== 'object' || o === null || Array.isArray(o)) throw new Error(`--lock ${label}: a recipe file holds one JSON object ({"exec": "CMD", "topology": {...}, ...}: docs/process-clients.md)`);
  const problems = fileProblems(o as Record<string, unknown>);
  if (problems.length) throw new Error(`--lock ${label}: the recipe file is wrong:\n  - ${problems.join('\n  - ')}\n  see docs/process-clients.md`);
  const r = o as Record<string, unknown>;
  return build((r.exec as string).trim(), dirname(resolve(file)), r, label);
}
