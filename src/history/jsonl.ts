// JSON Lines reader: reads the file in fixed-size chunks and splits lines
// itself, so a history of millions of events never sits in memory as one text.
import { open } from 'node:fs/promises';
import { HistoryBuilder } from './build.ts';
import { HistoryError } from './errors.ts';
import type { ParsedHistory } from './types.ts';
import { countNewlines, firstInvalidUtf8, notUtf8 } from './utf8.ts';

const CHUNK_BYTES = 1 << 22;

/**
 * Calls onLine(text, lineNumber) for each line of the file (without '\n'), in order.
 * Decodes only whole lines: a '\n' byte never sits inside a multi-byte UTF-8
 * character, so each chunk is cut after its last '\n' and the tail carried over.
 * Decoding is strict: invalid UTF-8 throws a HistoryError naming its line.
 */
export async function forEachLine(path: string, onLine: (text: string, line: number) => void, chunkBytes = CHUNK_BYTES): Promise<void> {
  const fh = await open(path, 'r');
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  let line = 0;
  const decode = (buf: Buffer, end: number): string => {
    try {
      return decoder.decode(buf.subarray(0, end));
    } catch {
      const bad = firstInvalidUtf8(buf.subarray(0, end), false);
      throw notUtf8(path, line + 1 + countNewlines(buf, 0, bad), bad < end ? buf[bad] : undefined);
    }
  };
  try {
    let buf = Buffer.allocUnsafe(chunkBytes);
    let carry = 0; // bytes of an unfinished line at the start of buf
    for (;;) {
      if (carry === buf.length) { // a line longer than the buffer: grow it
        const bigger = Buffer.allocUnsafe(buf.length * 2);
        buf.copy(bigger, 0, 0, carry);
        buf = bigger;
      }
      const { bytesRead } = await fh.read(buf, carry, buf.length - carry, null);
      const end = carry + bytesRead;
      if (bytesRead === 0) {
        if (end > 0) onLine(decode(buf, end), ++line);
        break;
      }
      const lastNl = buf.lastIndexOf(10, end - 1);
      if (lastNl < carry) { carry = end; continue; }
      const text = decode(buf, lastNl);
      let start = 0;
      for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
        onLine(text.slice(start, nl), ++line);
        start = nl + 1;
      }
      onLine(text.slice(start), ++line);
      carry = end - lastNl - 1;
      buf.copy(buf, 0, lastNl + 1, end);
    }
  } finally {
    await fh.close();
  }
}

/** chunkBytes is for tests (tiny chunks exercise lines split across reads). */
export async function readJsonl(path: string, chunkBytes = CHUNK_BYTES): Promise<ParsedHistory> {
  const b = new HistoryBuilder(path);
  await forEachLine(path, (text, line) => {
    // Fast path: an event line starts with '{'; anything else is blank or wrong.
    if (text.charCodeAt(0) !== 123 /* { */) {
      if (line === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1); // byte-order mark
      if (text.trim() === '') return;
    }
    let ev: unknown;
    try {
      ev = JSON.parse(text);
    } catch (e) {
      throw new HistoryError(path, line, 'not-json', `each line must be one JSON object (JSON Lines); this line does not parse: ${(e as Error).message}`,
        'fix the line so it is a complete JSON object on one line (no trailing commas, double-quoted keys), or remove it');
    }
    b.add(ev, line);
  }, chunkBytes);
  return b.finish();
}
