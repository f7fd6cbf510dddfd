// Ends a process lockpick started (a client worker, a module probe) and everything under it:
// its process group (it was started detached, so it leads one), its descendants by parent pid
// (a snapshot of /proc taken before anything is killed, so a child in a new session is still
// found under its parent), and any process still carrying its tag variable (a double-forked
// daemon reparented to init keeps the environment unless it cleared it).
import { readFileSync, readdirSync } from 'node:fs';
import { pidsWithEnv } from './procfs.ts';

/** Parent pid of every process in /proc (ours and others'), read once. */
function parents(): Map<number, number[]> {
  const kids = new Map<number, number[]>();
  let entries: string[];
  try { entries = readdirSync('/proc'); } catch { return kids; }
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    let stat: string;
    try { stat = readFileSync(`/proc/${e}/stat`, 'utf8'); } catch { continue; }
    // Field 4, after the command name in parentheses (which may hold spaces and parentheses).
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    const list = kids.get(ppid);
    if (list) list.push(Number(e)); else kids.set(ppid, [Number(e)]);
  }
  return kids;
}

/** Every descendant of `pid` now alive (not `pid` itself). */
export function descendants(pid: number): number[] {
  const kids = parents();
  const out: number[] = [];
  const todo = [...(kids.get(pid) ?? [])];
  while (todo.length) {
    const p = todo.pop()!;
    if (out.includes(p)) continue;
    out.push(p);
    todo.push(...(kids.get(p) ?? []));
  }
  return out;
}

/**
 * SIGKILLs `pid`, its group, its descendants and the processes tagged `name=value` (never this
 * process). Each is stopped first and the tree walked again: a stopped process cannot fork, and
 * a parent killed before its children were found would hand them to init.
 */
export function killTree(pid: number | undefined, name: string, value: string): void {
  const signal = (ps: Iterable<number>, s: NodeJS.Signals) => {
    if (pid) { try { process.kill(-pid, s); } catch { /* no group */ } }
    for (const p of ps) {
      if (p === process.pid) continue;
      try { process.kill(p, s); } catch { /* gone */ }
    }
  };
  const collect = (roots: Iterable<number>) => {
    const found = new Set<number>(pidsWithEnv(name, value));
    for (const r of roots) { found.add(r); for (const p of descendants(r)) found.add(p); }
    return found;
  };
  const first = collect(pid ? [pid] : []);
  signal(first, 'SIGSTOP');
  signal(collect(first), 'SIGKILL');
}
