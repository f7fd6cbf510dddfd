// The MySQL / MariaDB client protocol: packets of a 3-byte little-endian length and a sequence id.
// A command starts the sequence again at 0 (COM_QUERY, COM_STMT_EXECUTE, COM_PING, ...); the
// handshake's replies and a long packet's continuations carry ids 1, 2, ... A compressed link
// has another header: it is not framed (its first command packet would not have id 0 for long).
import { commandWord } from '../../runner/command-word.ts';
import { FrameScanner, type Framing } from './types.ts';

const COMMANDS: Record<number, string> = { 0x01: 'QUIT', 0x02: 'INIT_DB', 0x0e: 'PING', 0x16: 'STMT_PREPARE', 0x17: 'STMT_EXECUTE', 0x19: 'STMT_CLOSE', 0x1f: 'RESET_CONNECTION' };

class MysqlFramer extends FrameScanner {
  protected headerBytes(): number { return 4; }
  protected begin(h: Buffer): { bodyBytes: number; starts: boolean } {
    return { bodyBytes: h.readUIntLE(0, 3), starts: h[3] === 0 };
  }
}

export const mysql: Framing = {
  summary: 'MySQL/MariaDB: packets of a 3-byte length and a sequence id; a command restarts the id at 0',
  create: () => new MysqlFramer(),
  closes: ['QUIT'],
  command(head) {
    if (head.length < 5 || head[3] !== 0) return undefined;
    return head[4] === 0x03 ? commandWord(head) : COMMANDS[head[4]!];
  },
};
