// Test helper: write a history text to a private temp file and get its path.
import { tempDir } from '../support/temp-dir.ts';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = tempDir('lockpick-history-');
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
let n = 0;

export function tmpHistory(text: string, ext = 'jsonl'): string {
  const p = join(dir, `h${n++}.${ext}`);
  writeFileSync(p, text);
  return p;
}

/** One JSON line per event. */
export function jsonl(...events: object[]): string {
  return events.map((e) => JSON.stringify(e)).join('\n') + '\n';
}
