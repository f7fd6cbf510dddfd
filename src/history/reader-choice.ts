// Which reader takes a JSON Lines file: a second thread (./jsonl-threaded.ts) for a large one while
// a core is spare, JSON.parse line by line for a small one, else the byte scanner on this thread.
// Apart from the readers so that a check of small files never loads the thread's code.
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
  /** The idle cores, looked at while the thread starts (coreSpare), from which the thread is used: most of one. */
  minIdle: forced !== undefined ? -Infinity : 0.75,
  /** Whether this thread scans chunks too when it waits (false: tests of the batches alone). */
  share: true,
};

const forcedParse = process.env.LOCKPICK_JSON_PARSE_BYTES;

/**
 * Files up to maxFileBytes are read line by line with JSON.parse (./jsonl-line.ts parseLine), while
 * this process has read less than totalBytes so: the byte scanner (./jsonl-scan.ts) is the faster
 * once the engine has compiled it, after some thousands of lines, and slower until then, in
 * JavaScript that runs cold where JSON.parse is native. A directory of small run histories (the 102
 * of Jepsen's etcd corpus, 1.1 MB) reads in about three quarters of the time so; a large file or a long run of
 * files goes to the scanner, which pays its warm-up once. Both give the same events and the same
 * errors (test/unit/history-json-route.test.ts). LOCKPICK_JSON_PARSE_BYTES=0 sends every file to
 * the scanner (tests of the scanner), a number sets maxFileBytes.
 */
export const JSON_PARSE = {
  maxFileBytes: Number(forcedParse ?? 1024 * 1024),
  totalBytes: forcedParse !== undefined ? Infinity : 2 * 1024 * 1024,
};
let parsedBytes = 0;

export type Reader = 'thread' | 'scanner' | 'json-parse';

/**
 * The reader of `path`: 'thread' for a regular file of READ_THREAD.minBytes or more (if coreSpare()
 * says so; else the scanner); 'json-parse' (when mayParse) for one of JSON_PARSE.maxFileBytes or less while
 * JSON_PARSE.totalBytes allows (counted here); else 'scanner' (a pipe, too).
 */
export async function readerOf(path: string, mayParse: boolean): Promise<Reader> {
  if (isSniffed(path)) return 'scanner';
  // A synchronous stat, as openSource reads a small file (./source.ts): an asynchronous one waits its
  // turn on libuv's thread pool, which costs more than reading a small history.
  let s: Stats | undefined;
  try { s = statSync(path); } catch { s = undefined; }
  if (s === undefined || !s.isFile()) return 'scanner';
  if (s.size >= READ_THREAD.minBytes) return 'thread';
  if (mayParse && s.size <= JSON_PARSE.maxFileBytes && parsedBytes + s.size <= JSON_PARSE.totalBytes) {
    parsedBytes += s.size;
    return 'json-parse';
  }
  return 'scanner';
}

/** Whether a core is spare for the reader thread (looked at while the thread starts). */
export function coreSpare(): Promise<boolean> {
  return READ_THREAD.minIdle === -Infinity ? Promise.resolve(true) : idleCores().then((idle) => idle >= READ_THREAD.minIdle);
}

/**
 * The cores not used by other work over a short look (the CPU times twice, 50 ms apart). This
 * process's own use in that time counts as idle: the reader thread starts and reads meanwhile,
 * and that must not look like a busy machine. Not the 1-minute load average: it lags a minute
 * behind, so a check just after another (a bench's runs, a CI step) would find no core spare on
 * an idle machine. A file this size takes seconds to check: 50 ms is small beside it.
 */
async function idleCores(ms = 50): Promise<number> {
  const total = (t: { user: number; nice: number; sys: number; idle: number; irq: number }) => t.user + t.nice + t.sys + t.idle + t.irq;
  const a = cpus();
  const own = process.cpuUsage();
  await new Promise((r) => setTimeout(r, ms));
  const b = cpus();
  const used = process.cpuUsage(own);
  let idle = (used.user + used.system) / 1000; // µs to the ms of cpus()
  let all = 0;
  b.forEach((c, i) => {
    const p = a[i];
    if (!p) return;
    all += total(c.times) - total(p.times);
    idle += c.times.idle - p.times.idle;
  });
  return all > 0 ? Math.min(b.length, (idle / all) * b.length) : b.length;
}
