// memcached's protocols, as pymemcache, pylibmc, spymemcached and lockpick's own client speak them.
// Text: a request is a command line ending in LF (CRLF by the book, memcached takes a bare LF);
// the storage commands (set, add, replace, append, prepend, cas: `<cmd> <key> <flags> <exptime>
// <bytes> ...`) and the meta set (`ms <key> <datalen> ...`) are followed by a data block of the
// stated bytes and CRLF, which is part of the same request. Binary: a request is a 24-byte header
// with magic 0x80 and its body's length (bytes 8..11), then the body. memcached tells them apart
// by a request's first byte, and so does this framer.
import { BaseFramer, type Framing } from './types.ts';

/** memcached refuses a command line longer than this (2048 bytes by default; leave room for a long multi-get). */
const MAX_LINE = 64 * 1024;
const MAX_BODY = 1024 * 1024 * 1024;
const BINARY_REQUEST = 0x80;
const BINARY_HEADER = 24;

/** Text commands whose line is followed by a data block: the position of its byte count among the line's words. */
const DATA_BYTES_AT: Record<string, number> = { set: 4, add: 4, replace: 4, append: 4, prepend: 4, cas: 4, ms: 2 };

/** Binary opcodes (the quiet forms too) by the name the text protocol gives the command. */
const OPCODES: Record<number, string> = {
  0x00: 'GET', 0x01: 'SET', 0x02: 'ADD', 0x03: 'REPLACE', 0x04: 'DELETE', 0x05: 'INCR', 0x06: 'DECR', 0x07: 'QUIT',
  0x08: 'FLUSH_ALL', 0x09: 'GET', 0x0a: 'NOOP', 0x0b: 'VERSION', 0x0c: 'GET', 0x0d: 'GET', 0x0e: 'APPEND', 0x0f: 'PREPEND',
  0x10: 'STATS', 0x11: 'SET', 0x12: 'ADD', 0x13: 'REPLACE', 0x14: 'DELETE', 0x15: 'INCR', 0x16: 'DECR', 0x17: 'QUIT',
  0x1c: 'TOUCH', 0x1d: 'GAT', 0x1e: 'GAT',
};

class MemcachedFramer extends BaseFramer {
  private mode: 'start' | 'line' | 'header' | 'skip' = 'start';
  private line = '';
  private header: number[] = [];
  private skip = 0;   // bytes left of a data block (its CRLF included) or a binary body

  protected scan(chunk: Buffer): number[] | undefined {
    const starts: number[] = [];
    let i = 0;
    while (i < chunk.length) {
      switch (this.mode) {
        case 'start':
          starts.push(i);
          this.mode = chunk[i] === BINARY_REQUEST ? 'header' : 'line';
          break;
        case 'skip': {
          const take = Math.min(this.skip, chunk.length - i);
          this.skip -= take;
          i += take;
          if (this.skip === 0) this.mode = 'start';
          break;
        }
        case 'header': {
          const take = Math.min(BINARY_HEADER - this.header.length, chunk.length - i);
          for (let j = 0; j < take; j++) this.header.push(chunk[i + j]!);
          i += take;
          if (this.header.length < BINARY_HEADER) break;
          const body = Buffer.from(this.header).readUInt32BE(8);
          this.header = [];
          if (body > MAX_BODY) return undefined;
          this.skip = body;
          this.mode = body > 0 ? 'skip' : 'start';
          break;
        }
        case 'line': {
          const lf = chunk.indexOf(0x0a, i);
          const end = lf < 0 ? chunk.length : lf;
          this.line += chunk.toString('latin1', i, end);
          i = lf < 0 ? chunk.length : lf + 1;
          if (this.line.length > MAX_LINE) return undefined;
          if (lf < 0) break;
          const data = dataBytes(this.line.endsWith('\r') ? this.line.slice(0, -1) : this.line);
          this.line = '';
          if (data === undefined) return undefined;
          this.skip = data;
          this.mode = data > 0 ? 'skip' : 'start';
        }
      }
    }
    return starts;
  }
}

/** The bytes of data that follow a text command line (0: none); undefined when the line is not memcached's. */
function dataBytes(line: string): number | undefined {
  const words = line.split(' ').filter((w) => w !== '');
  const cmd = words[0];
  if (cmd === undefined || !/^[a-z_]{2,32}$/i.test(cmd)) return undefined;
  const at = DATA_BYTES_AT[cmd];
  if (at === undefined) return 0;
  const n = words[at];
  if (n === undefined || !/^\d{1,10}$/.test(n) || Number(n) > MAX_BODY) return undefined;
  return Number(n) + 2;
}

export const memcached: Framing = {
  summary: 'memcached: a text command line (a storage command with its data block), or a binary request (a 24-byte header and its body)',
  create: () => new MemcachedFramer(),
  closes: ['QUIT'],
  command(head) {
    if (head[0] === BINARY_REQUEST) return head.length > 1 ? OPCODES[head[1]!] : undefined;
    return /^([A-Za-z_]{2,32})[ \r\n]/.exec(head.toString('latin1', 0, 40))?.[1]?.toUpperCase();
  },
};
