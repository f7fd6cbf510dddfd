// JSON Lines reader: reads the file in fixed-size chunks and splits lines itself, so a history of
// millions of events never sits in memory as one text. Lines are scanned as bytes
// (./jsonl-scan.ts) and only unusual ones are decoded and given to JSON.parse; a small file's
// lines all go to JSON.parse (./reader-choice.ts says which).
import { HistoryBuilder } from './build.ts';
import { jsonlLines } from './jsonl-line.ts';
import { CHUNK_BYTES, SCAN_CHUNK_BYTES, forEachLineBytes } from './jsonl-lines.ts';
import type { FieldSink } from './jsonl-threaded.ts';
import { coreSpare, readerOf } from './reader-choice.ts';
import { maxLineBytesOf, type ReadOptions } from './limits.ts';
import type { ParsedHistory } from './types.ts';

export { forEachLineBytes, forEachLine } from './jsonl-lines.ts';

/**
 * Calls onEvent(raw, line) for each event line of a JSON Lines file (blank lines skipped); raw is
 * only valid during the call. Throws HistoryError for a line that is not JSON. `fields`, when
 * given, may take an event as its fields instead (a file read on the second thread).
 */
export async function forEachJsonlEvent(path: string, onEvent: (raw: unknown, line: number) => void, chunkBytes = CHUNK_BYTES, o?: ReadOptions, fields?: FieldSink): Promise<void> {
  // Chunks other than the default are tests of the scanner at chunk borders: never JSON.parse there.
  const reader = await readerOf(path, chunkBytes === CHUNK_BYTES);
  if (reader === 'thread') {
    // The look for a spare core runs while the thread starts reading; without one, it is stopped and what it read dropped.
    const spare = coreSpare();
    if (await (await import('./jsonl-threaded.ts')).forEachJsonlEventThreaded(path, onEvent, chunkBytes, o, fields, spare)) return;
  }
  const { fast, onLine, take } = jsonlLines(path, onEvent, maxLineBytesOf(o), reader !== 'json-parse');
  await forEachLineBytes(path, onLine, chunkBytes === CHUNK_BYTES ? SCAN_CHUNK_BYTES : chunkBytes, o, fast, take);
}

/** chunkBytes is for tests (tiny chunks exercise lines split across reads). */
export async function readJsonl(path: string, chunkBytes = CHUNK_BYTES, o?: ReadOptions): Promise<ParsedHistory> {
  const b = new HistoryBuilder(path);
  await forEachJsonlEvent(path, (ev, line) => b.add(ev, line), chunkBytes, o, b);
  return b.finish();
}
