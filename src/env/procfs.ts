// Small reads of /proc used to tell "our" process from a reused pid.
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Field 22 of /proc/<pid>/stat (start time in clock ticks since boot), or undefined. */
export function startTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may contain spaces.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return rest[19];
  } catch {
    return undefined;
  }
}

export function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}

export function cwd(pid: number): string {
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return '';
  }
}

/** A zombie or dead process counts as gone. */
export function isRunning(pid: number): boolean {
  if (!isAlive(pid)) return false;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/**
 * Pids of the processes (ours: others' environ cannot be read) whose environment holds
 * NAME=VALUE. A variable set on a worker is inherited by everything it starts, detached or
 * double-forked, unless that clears its environment: how a client's leftovers are found.
 */
export function pidsWithEnv(name: string, value: string): number[] {
  const needle = Buffer.from(`${name}=${value}\0`);
  const out: number[] = [];
  let entries: string[];
  try { entries = readdirSync('/proc'); } catch { return out; }
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    let env: Buffer;
    try { env = readFileSync(`/proc/${e}/environ`); } catch { continue; }
    const at = env.indexOf(needle);
    if (at === 0 || (at > 0 && env[at - 1] === 0)) out.push(Number(e));
  }
  return out;
}
