// Which format a history file is in, and reading it whole. The EDN reader is loaded only for an
// EDN file: \`lockpick check\` of JSON Lines histories starts without it.
import { extname } from 'node:path';
import { readJsonl } from './jsonl.ts';
import { peekHead } from './source.ts';
import type { ParsedHistory } from './types.ts';
import type { ReadOptions } from './limits.ts';

export type HistoryFormat = 'jsonl' | 'edn';

/**
 * The format of a file: by extension (.edn; .jsonl/.json/.ndjson), otherwise by
 * its first meaningful character ('{"' starts a JSON line; '[', '(', ';', '#'
 * or '{:' start EDN).
 */
export async function detectFormat(path: string): Promise<HistoryFormat> {
  const ext = extname(path).toLowerCase();
  if (ext === '.edn') return 'edn';
  if (ext === '.jsonl' || ext === '.json' || ext === '.ndjson') return 'jsonl';
  // A pipe is not read twice: the reader goes on from these bytes (src/history/source.ts).
  const head = (await peekHead(path, 4096)).toString('utf8');
  const m = /^\s*(\S)\s*(\S?)/.exec(head);
  if (!m) return 'jsonl';
  const [, first, second] = m;
  if (first === '[' || first === '(' || first === ';' || first === '#') return 'edn';
  if (first === '{' && second === ':') return 'edn';
  return 'jsonl';
}

/** Reads and validates a history; throws HistoryError naming the line and rule when it breaks docs/history-format.md. */
export async function readHistory(path: string, o?: ReadOptions): Promise<ParsedHistory> {
  if ((await detectFormat(path)) !== 'edn') return readJsonl(path, undefined, o);
  const { readEdn } = await import('./edn.ts');
  return readEdn(path, undefined, o);
}
