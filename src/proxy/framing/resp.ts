// RESP (Redis, Sentinel): a request is an array of bulk strings (`*2\r\n$3\r\nGET\r\n$1\r\nk\r\n`),
// or an inline command, one line (`PING\r\n`). RESP3 clients send requests the same way.
import { commandWord } from '../../runner/command-word.ts';
import { BaseFramer, type Framing } from './types.ts';

const MAX_HEADER = 32;        // `*<n>` / `$<len>` lines are short
const MAX_INLINE = 64 * 1024; // Redis' own limit on an inline request

class RespFramer extends BaseFramer {
  private mode: 'start' | 'array' | 'bulk-header' | 'bulk-body' | 'inline' = 'start';
  private line = '';
  private args = 0;   // bulk strings left in this array
  private body = 0;   // bytes left of this bulk string, its CRLF included

  protected scan(chunk: Buffer): number[] | undefined {
    const starts: number[] = [];
    let i = 0;
    while (i < chunk.length) {
      const b = chunk[i]!;
      switch (this.mode) {
        case 'start':
          // Blank lines between requests are skipped by Redis too.
          if (b === 0x0d || b === 0x0a) { i++; break; }
          starts.push(i);
          this.line = '';
          if (b === 0x2a) { this.mode = 'array'; i++; } else this.mode = 'inline';
          break;
        case 'bulk-body': {
          const take = Math.min(this.body, chunk.length - i);
          this.body -= take;
          i += take;
          if (this.body === 0) this.endArg();
          break;
        }
        default: {
          // A line: read up to LF; the header lines are digits.
          const lf = chunk.indexOf(0x0a, i);
          const end = lf < 0 ? chunk.length : lf;
          this.line += chunk.toString('latin1', i, end);
          i = lf < 0 ? chunk.length : lf + 1;
          if (this.line.length > (this.mode === 'inline' ? MAX_INLINE : MAX_HEADER)) return undefined;
          if (lf < 0) break;
          const line = this.line.endsWith('\r') ? this.line.slice(0, -1) : this.line;
          this.line = '';
          if (!this.endLine(line)) return undefined;
        }
      }
    }
    return starts;
  }

  private endLine(line: string): boolean {
    if (this.mode === 'inline') { this.mode = 'start'; return true; }
    if (this.mode === 'array') {
      if (!/^-?\d+$/.test(line)) return false;
      this.args = Number(line);
      this.mode = this.args > 0 ? 'bulk-header' : 'start';
      return true;
    }
    // bulk-header: `$<len>` ($-1: a null, no body)
    const m = /^\$(-1|\d+)$/.exec(line);
    if (!m) return false;
    const len = Number(m[1]);
    if (len < 0) { this.endArg(); return true; }
    this.body = len + 2;
    this.mode = 'bulk-body';
    return true;
  }

  private endArg(): void {
    this.args--;
    this.mode = this.args > 0 ? 'bulk-header' : 'start';
  }
}

export const resp: Framing = {
  summary: 'RESP (Redis): an array of bulk strings, or an inline command line',
  create: () => new RespFramer(),
  closes: ['QUIT'],
  command(head) {
    if (head[0] === 0x2a) return commandWord(head);
    const word = /^\s*([A-Za-z][A-Za-z_.-]{0,31})/.exec(head.subarray(0, 64).toString('latin1'))?.[1];
    return word?.toUpperCase();
  },
};
