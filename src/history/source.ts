// A history file is read once, front to back. A pipe, FIFO or device (`lockpick check
// <(zcat h.jsonl.gz)`) cannot be opened a second time: the bytes the format sniff took
// (peekHead) are kept, with the open handle, for the reader that follows (openSource).
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';

/**
 * A regular file up to this size is read with synchronous calls: each asynchronous open, read and
 * close waits its turn on libuv's thread pool, which for a history of a few KB costs more than
 * reading it (a directory of run histories checked in one call). Larger files are read
 * asynchronously, the next chunk while the last is scanned.
 */
export const SYNC_READ_BYTES = 1 << 20;

export interface Source {
  /** The file's size when it is a small regular file (read whole into a buffer this size and one more byte). */
  size?: number;
  /** Reads the next bytes into `into` at `at` (at most `len`); 0 bytes read is the end. */
  read(into: Buffer, at: number, len: number): Promise<{ bytesRead: number }>;
  close(): Promise<void>;
}

/** Non-regular files whose first bytes were sniffed: the handle and those bytes, for openSource. */
const sniffed = new Map<string, { fh: FileHandle; head: Buffer }>();

/** Up to n first bytes of `path`; a file that is not a regular one stays open for openSource to go on from. */
export async function peekHead(path: string, n: number): Promise<Buffer> {
  const kept = sniffed.get(path);
  if (kept) return kept.head.subarray(0, n);
  const fh = await open(path, 'r');
  const regular = await fh.stat().then((s) => s.isFile(), () => false);
  try {
    const buf = Buffer.alloc(n);
    const { bytesRead } = await fh.read(buf, 0, n, regular ? 0 : null);
    const head = buf.subarray(0, bytesRead);
    if (!regular) sniffed.set(path, { fh, head });
    return head;
  } finally {
    if (regular) await fh.close();
  }
}

/** Whether `path` is a pipe or FIFO whose first bytes peekHead took (it can only be read on from them). */
export function isSniffed(path: string): boolean {
  return sniffed.has(path);
}

/** Opens `path` for one front-to-back read, starting with the bytes peekHead already took from a pipe. */
export async function openSource(path: string): Promise<Source> {
  const kept = sniffed.get(path);
  if (!kept) {
    const fd = openSync(path, 'r');
    let small = false, size = 0;
    try {
      const s = fstatSync(fd);
      small = s.isFile() && s.size <= SYNC_READ_BYTES;
      size = s.size;
    } finally {
      if (!small) closeSync(fd);
    }
    if (small) {
      return {
        size,
        read: (into, at, len) => {
          try { return Promise.resolve({ bytesRead: readSync(fd, into, at, len, null) }); } catch (e) { return Promise.reject(e); }
        },
        close: async () => closeSync(fd),
      };
    }
    const fh = await open(path, 'r');
    return { read: (into, at, len) => fh.read(into, at, len, null), close: () => fh.close() };
  }
  sniffed.delete(path);
  let head = kept.head;
  return {
    read: async (into, at, len) => {
      if (head.length === 0) return kept.fh.read(into, at, len, null);
      const n = head.copy(into, at, 0, Math.min(len, head.length));
      head = head.subarray(n);
      return { bytesRead: n };
    },
    close: () => kept.fh.close(),
  };
}
