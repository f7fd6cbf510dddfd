// The command a client library is about to send, read from the bytes it hands the socket, so a
// report says "paused just before its DEL" rather than "before the 2nd command of its release".
// Only what can be read for sure: a Redis RESP array (ioredis, node-redis), a MySQL COM_QUERY
// packet (mysql2's text protocol); anything else (binary protocols, TLS) gives undefined.

const WORD = /^[A-Za-z][A-Za-z_.-]{0,31}$/;

/** The command word of one chunk a client writes, upper-cased, or undefined. */
export function commandWord(chunk: unknown): string | undefined {
  const b = typeof chunk === 'string' ? Buffer.from(chunk.slice(0, 256)) : Buffer.isBuffer(chunk) ? chunk.subarray(0, 256) : chunk instanceof Uint8Array ? Buffer.from(chunk.subarray(0, 256)) : undefined;
  if (!b || b.length < 5) return undefined;
  // RESP: *<n>\r\n$<len>\r\n<word>\r\n
  if (b[0] === 0x2a) {
    const m = /^\*\d+\r\n\$(\d+)\r\n/.exec(b.toString('latin1'));
    if (!m) return undefined;
    const start = m[0].length;
    const word = b.subarray(start, start + Number(m[1])).toString('latin1');
    return WORD.test(word) ? word.toUpperCase() : undefined;
  }
  // MySQL: 3-byte length, sequence id 0, COM_QUERY (0x03), then the statement.
  if (b[3] === 0 && b[4] === 0x03) {
    const word = /^\s*([A-Za-z]+)/.exec(b.subarray(5).toString('latin1'))?.[1];
    return word && WORD.test(word) ? word.toUpperCase() : undefined;
  }
  return undefined;
}
