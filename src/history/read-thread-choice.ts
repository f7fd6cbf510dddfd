// Whether a JSON Lines file is read on a second thread (./jsonl-threaded.ts): apart from it so
// that a check of small files never loads the thread's code.
import { statSync, type Stats } from 'node:fs';
import { cpus } from 'node:os';
import { isSniffed } from './source.ts';

const forced = process.env.LOCKPICK_READ_THREAD_BYTES;

/**
 * Files from this size are read on a second thread, while the machine has a core to spare (the
 * thread path takes about a third more CPU in all: on busy cores it gains nothing). Tests set
 * minBytes 0 and minIdle -Infinity to read every regular file there (LOCKPICK_READ_THREAD_BYTES=0
 * runs a whole test file so; =Infinity reads none there).
 */
export const READ_THREAD = {
  minBytes: Number(forced ?? 32 * 1024 * 1024),
  /** The idle cores, looked at just before the read, from which the thread is used: most of one. */
  minIdle: forced !== undefined ? -Infinity : 0.75,
  /** Whether this thread scans chunks too when it waits (false: tests of the batches alone). */
  share: true,
};

/** Whether `path` is read on a second thread: a regular file of READ_THREAD.minBytes or more, and a core to spare. */
export async function readsOnThread(path: string): Promise<boolean> {
  if (isSniffed(path)) return false;
  // A synchronous stat, as openSource reads a small file (./source.ts): an asynchronous one waits its
  // turn on libuv's thread pool, which costs more than reading a small history.
  let s: Stats | undefined;
  try { s = statSync(path); } catch { s = undefined; }
  if (s === undefined || !s.isFile() || s.size < READ_THREAD.minBytes) return false;
  return READ_THREAD.minIdle === -Infinity || (await idleCores()) >= READ_THREAD.minIdle;
}

/**
 * The cores idle over a short look (the CPU times twice, 50 ms apart; this thread waits meanwhile,
 * so what is busy is other work). Not the 1-minute load average: it lags a minute behind, so a
 * check just after another (a bench's runs, a CI step) would find no core spare on an idle machine.
 * A file this size takes seconds to check: 50 ms is small beside it.
 */
async function idleCores(ms = 50): Promise<number> {
  const total = (t: { user: number; nice: number; sys: number; idle: number; irq: number }) => t.user + t.nice + t.sys + t.idle + t.irq;
  const a = cpus();
  await new Promise((r) => setTimeout(r, ms));
  const b = cpus();
  let idle = 0;
  let all = 0;
  b.forEach((c, i) => {
    const p = a[i];
    if (!p) return;
    all += total(c.times) - total(p.times);
    idle += c.times.idle - p.times.idle;
  });
  return all > 0 ? (idle / all) * b.length : b.length;
}
