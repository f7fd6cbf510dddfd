// A cgroup (v2) per process lockpick starts for user code (a client worker, a module probe):
// what that code starts stays in it whatever it does (a new session, a cleared environment,
// a double fork that hands it to init), and `cgroup.kill` ends all of it at once. Node cannot
// make a process a child subreaper (prctl) without a native addon, and a /proc walk by parent
// pid loses a daemon whose parent already exited; a cgroup loses nothing. It needs a writable
// cgroup2 file system (root, or a delegated subtree): elsewhere `newCgroup` returns undefined
// and the caller falls back to the process group, the tag variable and the /proc walk.
import { mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { isAlive } from './procfs.ts';
import { join } from 'node:path';

export interface Cgroup {
  readonly dir: string;
  /** SIGKILLs every process in it and removes it (retried for a while: dying processes leave late). */
  kill(): void;
}

let base: string | null | undefined;
let made = 0;

/** This process's own cgroup directory on the cgroup2 mount, or null when there is none. */
function ownCgroupDir(): string | null {
  try {
    const mount = readFileSync('/proc/self/mountinfo', 'utf8').split('\n')
      .map((l) => l.split(' - '))
      .find(([, rest]) => rest?.startsWith('cgroup2 '))?.[0]?.split(' ')[4];
    const own = /^0::(\/.*)$/m.exec(readFileSync('/proc/self/cgroup', 'utf8'))?.[1];
    return mount && own !== undefined ? join(mount, own) : null;
  } catch {
    return null;
  }
}

/**
 * Moves `pid` into a new cgroup beside this process's own. Called right after fork: the child
 * is still starting node (tens of milliseconds before any user code runs), so everything user
 * code starts is born inside. Undefined when cgroups cannot be written here.
 */
export function newCgroup(pid: number | undefined, label: string): Cgroup | undefined {
  if (!pid || process.env.LOCKPICK_NO_CGROUP === '1') return undefined;
  if (base === undefined) {
    base = ownCgroupDir();
    if (base !== null) removeStale(base);
  }
  if (base === null) return undefined;
  const dir = join(base, `lockpick-${process.pid}-${++made}-${label.replace(/[^A-Za-z0-9_-]/g, '_')}`);
  try {
    mkdirSync(dir);
  } catch {
    base = null;   // not writable here: no cgroup for any process of this run
    return undefined;
  }
  try {
    writeFileSync(join(dir, 'cgroup.procs'), String(pid));
  } catch {
    try { rmdirSync(dir); } catch { /* left empty */ }
    return undefined;
  }
  return { dir, kill: () => killCgroup(dir) };
}

/**
 * The empty cgroups a lockpick that died (SIGKILLed) left: removed. One with processes in it is
 * left alone: its pid may be another pid namespace's (a container sharing this cgroup tree).
 */
function removeStale(dir: string): void {
  let names: string[];
  try { names = readdirSync(dir); } catch { return; }
  for (const n of names) {
    const pid = /^lockpick-(\d+)-\d+-/.exec(n)?.[1];
    if (!pid || Number(pid) === process.pid || isAlive(Number(pid)) || populated(join(dir, n)) !== false) continue;
    try { rmdirSync(join(dir, n)); } catch { /* another lockpick removed it */ }
  }
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/** Whether any process is still in the cgroup (undefined: it is gone). */
function populated(dir: string): boolean | undefined {
  try {
    return /^populated 1$/m.test(readFileSync(join(dir, 'cgroup.events'), 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * Kills everything in the cgroup and removes it. SIGKILLed processes leave within
 * milliseconds; this waits for that (1 s at most, in 10 ms steps) so the directory is gone
 * before lockpick exits, and else tries again in the background.
 */
function killCgroup(dir: string, tries = 20): void {
  try {
    writeFileSync(join(dir, 'cgroup.kill'), '1');
  } catch {
    // No cgroup.kill (Linux < 5.14): each process by pid, again until it is empty.
    try {
      for (const p of readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean)) {
        try { process.kill(Number(p), 'SIGKILL'); } catch { /* gone */ }
      }
    } catch { /* removed already */ return; }
  }
  for (let i = 0; i < 100 && populated(dir); i++) Atomics.wait(pause, 0, 0, 10);
  try {
    rmdirSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    if (tries > 0) setTimeout(() => killCgroup(dir, tries - 1), 500).unref();
  }
}
