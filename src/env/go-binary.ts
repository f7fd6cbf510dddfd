// Which of a process's descendants run a Go executable. The Go runtime reads the clock from the
// vDSO itself, never through libc's clock_gettime, so the clock shim (LD_PRELOAD) cannot move it,
// whether the binary is static or linked against libc. A Go toolchain writes a section of its own
// into every executable (`.go.buildinfo` since Go 1.13, `.note.go.buildid` and `.gopclntab`
// before): the ELF section names say it without running anything.
import { closeSync, openSync, readdirSync, readFileSync, readlinkSync, readSync, statSync } from 'node:fs';

const GO_SECTIONS = new Set(['.go.buildinfo', '.note.go.buildid', '.gopclntab']);

function readAt(fd: number, pos: number, len: number): Buffer {
  const b = Buffer.alloc(len);
  const n = readSync(fd, b, 0, len, pos);
  return b.subarray(0, n);
}

/** The section names of an ELF file (32 or 64 bit, either byte order); [] for anything else or a file it cannot read. */
export function elfSectionNames(path: string): string[] {
  let fd: number;
  try { fd = openSync(path, 'r'); } catch { return []; }
  try {
    const h = readAt(fd, 0, 64);
    if (h.length < 52 || h.readUInt32BE(0) !== 0x7f454c46) return [];
    const is64 = h[4] === 2;
    const le = h[5] === 1;
    const u16 = (b: Buffer, o: number) => (le ? b.readUInt16LE(o) : b.readUInt16BE(o));
    const u32 = (b: Buffer, o: number) => (le ? b.readUInt32LE(o) : b.readUInt32BE(o));
    const uN = (b: Buffer, o: number) => (is64 ? Number(le ? b.readBigUInt64LE(o) : b.readBigUInt64BE(o)) : u32(b, o));
    const shoff = uN(h, is64 ? 0x28 : 0x20);
    const shentsize = u16(h, is64 ? 0x3a : 0x2e);
    const shnum = u16(h, is64 ? 0x3c : 0x30);
    const shstrndx = u16(h, is64 ? 0x3e : 0x32);
    if (!shoff || !shnum || shstrndx >= shnum || shentsize < (is64 ? 64 : 40) || shnum > 4096) return [];
    const table = readAt(fd, shoff, shnum * shentsize);
    if (table.length < shnum * shentsize) return [];
    // A section header: name (offset into the names section) first; its file offset and size at 0x18/0x20 (64 bit) or 0x10/0x14.
    const at = (i: number) => ({ name: u32(table, i * shentsize), off: uN(table, i * shentsize + (is64 ? 0x18 : 0x10)), size: uN(table, i * shentsize + (is64 ? 0x20 : 0x14)) });
    const strs = at(shstrndx);
    const names = readAt(fd, strs.off, Math.min(strs.size, 1 << 20));
    const out: string[] = [];
    for (let i = 0; i < shnum; i++) {
      const s = at(i).name;
      if (s >= names.length) continue;
      const end = names.indexOf(0, s);
      out.push(names.toString('latin1', s, end < 0 ? names.length : end));
    }
    return out;
  } catch {
    return [];
  } finally {
    closeSync(fd);
  }
}

const verdicts = new Map<string, boolean>();

/** Whether the executable at path was built by the Go toolchain (remembered by path, size and mtime). */
export function isGoExecutable(path: string): boolean {
  let id: string;
  try { const st = statSync(path); id = `${path}:${st.size}:${st.mtimeMs}`; } catch { return false; }
  let v = verdicts.get(id);
  if (v === undefined) {
    v = elfSectionNames(path).some((n) => GO_SECTIONS.has(n));
    verdicts.set(id, v);
  }
  return v;
}

/** root and every process below it (by the parent pid in /proc/PID/stat). */
export function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  let pids: string[];
  try { pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d)); } catch { return [root]; }
  for (const d of pids) {
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'latin1');
      // The command name in parentheses may hold spaces: the fields after its last ')' are fixed.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const l = children.get(ppid) ?? [];
      l.push(Number(d));
      children.set(ppid, l);
    } catch { /* gone meanwhile */ }
  }
  const out: number[] = [];
  const todo = [root];
  while (todo.length) {
    const p = todo.pop()!;
    out.push(p);
    todo.push(...(children.get(p) ?? []));
  }
  return out;
}

/** The Go executables running at or below root: pid and path (a process that ended meanwhile is left out). */
export function goProcesses(root: number): { pid: number; exe: string }[] {
  const out: { pid: number; exe: string }[] = [];
  for (const pid of descendants(root)) {
    let exe: string;
    try { exe = readlinkSync(`/proc/${pid}/exe`); } catch { continue; }
    // /proc/PID/exe opens the running image even when its path was replaced or deleted.
    if (isGoExecutable(`/proc/${pid}/exe`)) out.push({ pid, exe: exe.replace(/ \(deleted\)$/, '') });
  }
  return out;
}
