// The MySQL / MariaDB client protocol: packets of a 3-byte little-endian length and a sequence id.
// Each packet the client sends is a request the server answers (a command, with id 0: COM_QUERY,
// COM_STMT_EXECUTE, COM_PING, ...; the handshake response and an auth switch response, which a
// connection made inside an operation sends too, as the worker's hooks count them), except the
// continuation of a long one: a packet of 2^24 - 1 bytes goes on in the next. A compressed link
// has another header: it is not framed.
import { commandWord } from '../../runner/command-word.ts';
import { FrameScanner, type Framing } from './types.ts';

const COMMANDS: Record<number, string> = { 0x01: 'QUIT', 0x02: 'INIT_DB', 0x0e: 'PING', 0x16: 'STMT_PREPARE', 0x17: 'STMT_EXECUTE', 0x19: 'STMT_CLOSE', 0x1f: 'RESET_CONNECTION' };

const LONG = 0xffffff;

class MysqlFramer extends FrameScanner {
  private continued = false;   // the last packet was a long one's part: this one goes on with it
  protected headerBytes(): number { return 4; }
  protected begin(h: Buffer): { bodyBytes: number; starts: boolean } {
    const len = h.readUIntLE(0, 3);
    const starts = !this.continued;
    this.continued = len === LONG;
    return { bodyBytes: len, starts };
  }
}

export const mysql: Framing = {
  summary: 'MySQL/MariaDB: packets of a 3-byte length and a sequence id, each a request but a long packet\'s continuation',
  create: () => new MysqlFramer(),
  closes: ['QUIT'],
  command(head) {
    if (head.length < 5 || head[3] !== 0) return undefined;
    return head[4] === 0x03 ? commandWord(head) : COMMANDS[head[4]!];
  },
};
