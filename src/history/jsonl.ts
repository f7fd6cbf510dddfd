// JSON Lines reader: reads the file in fixed-size chunks and splits lines
// itself, so a history of millions of events never sits in memory as one text.
import { open } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { HistoryBuilder } from './build.ts';
import { HistoryError } from './errors.ts';
import type { ParsedHistory } from './types.ts';

const CHUNK_BYTES = 1 << 22;

/** Calls onLine(text, lineNumber) for each line of the file (without '\n'), in order. */
export async function forEachLine(path: string, onLine: (text: string, line: number) => void, chunkBytes = CHUNK_BYTES): Promise<void> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(chunkBytes);
    const decoder = new StringDecoder('utf8');
    let rest = '';
    let line = 0;
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, chunkBytes, null);
      if (bytesRead === 0) break;
      const text = rest + decoder.write(buf.subarray(0, bytesRead));
      let start = 0;
      for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
        onLine(text.slice(start, nl), ++line);
        start = nl + 1;
      }
      rest = text.slice(start);
    }
    rest += decoder.end();
    if (rest.length > 0) onLine(rest, ++line);
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
