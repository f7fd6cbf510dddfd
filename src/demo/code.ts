// The few lines of a recipe that a demo page shows, cut from src/locks/ at
// render time so the page shows the code that ran, not a copy that drifts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageRoot } from '../package-root.ts';
import type { CodeExcerpt } from './entry.ts';

// The .ts sources, also when this runs from dist/ (the package ships src/).
export const LOCKS_DIR = pathToFileURL(join(packageRoot(), 'src', 'locks') + '/');

export interface CodeLines { file: string; first: number; lines: string[] }

/** The excerpt's lines (1-based `first`); throws naming the file and marker when a marker is gone. */
export function excerpt(c: CodeExcerpt): CodeLines {
  const all = readFileSync(new URL(c.file, LOCKS_DIR), 'utf8').split('\n');
  const from = all.findIndex((l) => l.includes(c.from));
  if (from < 0) throw new Error(`demo excerpt: src/locks/${c.file} has no line containing ${JSON.stringify(c.from)}; update the entry in src/demo/`);
  const rel = all.slice(from).findIndex((l) => l.includes(c.to));
  if (rel < 0) throw new Error(`demo excerpt: src/locks/${c.file} has no line containing ${JSON.stringify(c.to)} after line ${from + 1}; update the entry in src/demo/`);
  const lines = all.slice(from, from + rel + 1);
  // Drop the common indentation so a method body reads as a block.
  const indent = Math.min(...lines.filter((l) => l.trim()).map((l) => l.length - l.trimStart().length));
  return { file: c.file, first: from + 1, lines: lines.map((l) => l.slice(indent)) };
}
