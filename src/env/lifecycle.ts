// Lifecycle safety: every process lockpick starts is recorded in a pid file;
// on SIGINT/SIGTERM/SIGHUP, a fatal exception or a plain exit it is stopped;
// after a SIGKILLed lockpick the next invocation finds the leftovers
// (cleanupLeftovers) and stops them, checking the pid still is the same process.
import { readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pidDir } from './state.ts';
import { cmdline, cwd, isAlive, isRunning, startTime } from './procfs.ts';

export interface PidRecord {
  pid: number;
  startTime?: string;
  name: string;            // e.g. 'redis-server n1'
  kind: 'server' | 'proxy' | 'env-up';
  /** A string that must appear in the process's cwd or cmdline for it to be ours. */
  match: string;
  /** A private temp dir to remove with the process (under os.tmpdir(), 'lockpick-' prefix). */
  dir?: string;
  ownerPid: number;
  ownerStartTime?: string;
}

const mine = new Map<number, PidRecord>();
const teardowns = new Set<() => Promise<void>>();
const ownerStart = startTime(process.pid);

function recordFile(pid: number): string {
  return path.join(pidDir(), `${pid}.json`);
}

/** Records a process this lockpick started (a pid file), so nothing outlives us. */
export function recordProcess(r: Omit<PidRecord, 'ownerPid' | 'ownerStartTime' | 'startTime'>): PidRecord {
  const rec: PidRecord = { ...r, startTime: startTime(r.pid), ownerPid: process.pid, ownerStartTime: ownerStart };
  writeFileSync(recordFile(r.pid), JSON.stringify(rec) + '\n', { mode: 0o600 });
  mine.set(r.pid, rec);
  installExitHook();
  return rec;
}

export function forgetProcess(pid: number): void {
  mine.delete(pid);
  try {
    unlinkSync(recordFile(pid));
  } catch {
    /* already gone */
  }
}

/** Only private dirs we created: under os.tmpdir(), inside a 'lockpick-*' directory. */
function safeToRemove(dir: string): boolean {
  const tmp = path.resolve(os.tmpdir());
  const d = path.resolve(dir);
  return d.startsWith(tmp + path.sep) && d.slice(tmp.length + 1).split(path.sep).some((s) => s.startsWith('lockpick-'));
}

export function removeDir(dir: string | undefined): void {
  if (dir && safeToRemove(dir)) rmSync(dir, { recursive: true, force: true });
}

/** Is the recorded process still the one we started (not a reused pid)? */
function stillOurs(r: PidRecord): boolean {
  if (!isRunning(r.pid)) return false;
  if (r.startTime !== undefined && startTime(r.pid) !== r.startTime) return false;
  return cwd(r.pid).includes(r.match) || cmdline(r.pid).includes(r.match);
}

/** Synchronous last resort: SIGKILL every process this lockpick started. */
export function killAllMineSync(): void {
  for (const r of [...mine.values()]) {
    if (r.kind !== 'env-up' && stillOurs(r)) {
      try {
        process.kill(r.pid, 'SIGKILL');
      } catch {
        /* raced with its exit */
      }
    }
    forgetProcess(r.pid);
    removeDir(r.dir);
    removeDir(envRootOf(r.match));   // an exit with the environment still up (an internal error): its whole dir
  }
}

let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', killAllMineSync);
  // A fatal exception nobody handles ends the process: stop our servers first.
  process.on('uncaughtExceptionMonitor', () => {
    if (process.listenerCount('uncaughtException') === 0) killAllMineSync();
  });
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
let stopping = false;
let claims = 0;
// The contract's codes (README "Exit codes"), never 128 + the signal's number: Ctrl-C 130, another signal no verdict (3).
let signalExit = (sig: (typeof SIGNALS)[number]): number => (sig === 'SIGINT' ? 130 : 3);

/**
 * The exit code after a signal's teardown (130 for Ctrl-C, else 3, by default). `lockpick env up`,
 * which stays up until it is told to stop, ends with 0 when SIGTERM or SIGHUP tells it
 * (`lockpick env down` sends SIGTERM) and keeps 130 for Ctrl-C, as every command does.
 */
export function exitCodeOnSignal(code: (sig: (typeof SIGNALS)[number]) => number): void {
  signalExit = code;
}

/**
 * A caller that handles SIGINT/SIGTERM itself (lockpick run: store what it found,
 * then tear down) claims them, and these handlers stand aside until released.
 * The exit hook still kills every server of ours, whatever happens.
 */
export function claimSignals(): () => void {
  claims++;
  let released = false;
  return () => { if (!released) { released = true; claims--; } };
}

async function onSignal(sig: (typeof SIGNALS)[number]): Promise<void> {
  if (claims > 0) return;
  if (stopping) return; // a second Ctrl-C while tearing down: the exit hook still kills
  stopping = true;
  const all = [...teardowns].map((t) => t().catch((e: unknown) => console.error(`lockpick: teardown: ${String(e)}`)));
  await Promise.race([Promise.all(all), new Promise((r) => setTimeout(r, 10_000).unref())]);
  killAllMineSync();
  process.exit(signalExit(sig));
}

const handlers = new Map<string, () => void>();
/**
 * Registers an async teardown (an environment's down()) run on SIGINT/SIGTERM/SIGHUP.
 * Returns the function that unregisters it. Signal handlers exist only while
 * something is registered, so a process without live environments keeps the defaults.
 */
export function onTeardown(fn: () => Promise<void>): () => void {
  teardowns.add(fn);
  installExitHook();
  if (handlers.size === 0) {
    for (const sig of SIGNALS) {
      const h = (): void => void onSignal(sig);
      handlers.set(sig, h);
      process.on(sig, h);
    }
  }
  return () => {
    teardowns.delete(fn);
    if (teardowns.size === 0) {
      for (const [sig, h] of handlers) process.off(sig, h);
      handlers.clear();
    }
  };
}

function readRecords(): PidRecord[] {
  const out: PidRecord[] = [];
  for (const f of readdirSync(pidDir())) {
    if (!f.endsWith('.json')) continue;
    try {
      out.push(JSON.parse(readFileSync(path.join(pidDir(), f), 'utf8')) as PidRecord);
    } catch {
      try {
        unlinkSync(path.join(pidDir(), f));
      } catch {
        /* raced */
      }
    }
  }
  return out;
}

function ownerAlive(r: PidRecord): boolean {
  if (r.ownerPid === process.pid) return true;
  return isAlive(r.ownerPid) && (r.ownerStartTime === undefined || startTime(r.ownerPid) === r.ownerStartTime);
}

function stopRecorded(r: PidRecord, why: string, log: (m: string) => void): void {
  if (r.kind !== 'env-up' && stillOurs(r)) {
    try {
      process.kill(r.pid, 'SIGKILL');
      log(`lockpick: stopped leftover ${r.name} (pid ${r.pid}) ${why}`);
    } catch {
      /* exited meanwhile */
    }
  }
  try {
    unlinkSync(recordFile(r.pid));
  } catch {
    /* gone */
  }
  removeDir(r.dir);
  // The whole environment dir of the lockpick that is gone (its servers' dirs, logs, pid files),
  // not only the one server's: every record of that owner is cleared in the same pass.
  removeDir(envRootOf(r.match));
}

/** The `<tmp>/lockpick-env-*` dir a server's cwd lies in, or undefined. */
export function envRootOf(p: string): string | undefined {
  const tmp = path.resolve(os.tmpdir());
  const d = path.resolve(p);
  if (!d.startsWith(tmp + path.sep)) return undefined;
  const top = d.slice(tmp.length + 1).split(path.sep)[0]!;
  return top.startsWith('lockpick-env-') ? path.join(tmp, top) : undefined;
}

/**
 * Finds processes recorded by a lockpick that is no longer running (killed by
 * SIGKILL, say) and stops them, saying so. Returns how many were stopped or cleared.
 */
export function cleanupLeftovers(log: (m: string) => void = (m) => console.error(m)): number {
  let n = 0;
  for (const r of readRecords()) {
    if (ownerAlive(r)) continue;
    stopRecorded(r, `left by lockpick pid ${r.ownerPid}, which is gone`, log);
    n++;
  }
  return n;
}

/**
 * `lockpick env down`: asks every running `lockpick env up` to stop (SIGTERM),
 * waits for them, then stops whatever they or dead lockpicks left behind.
 */
export async function stopEnvUps(log: (m: string) => void = (m) => console.error(m)): Promise<number> {
  const ups = readRecords().filter((r) => r.kind === 'env-up' && r.pid !== process.pid);
  let n = 0;
  for (const up of ups) {
    if (isRunning(up.pid) && startTime(up.pid) === up.startTime) {
      process.kill(up.pid, 'SIGTERM');
      log(`lockpick: asked 'env up' (pid ${up.pid}) to stop`);
      n++;
    }
  }
  const deadline = Date.now() + 15_000;
  while (ups.some((u) => isRunning(u.pid) && startTime(u.pid) === u.startTime) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
  }
  for (const r of readRecords()) {
    if (r.kind === 'env-up' && !isRunning(r.pid)) stopRecorded(r, '', () => {});
    else if (ups.some((u) => u.pid === r.ownerPid)) {
      stopRecorded(r, `left by 'env up' pid ${r.ownerPid}`, log);
      n++;
    }
  }
  return n + cleanupLeftovers(log);
}
