// DIR/progress.jsonl: one JSON line per run of a search, appended as it goes (runs, violations,
// faults applied, contention, fault-space coverage), so a reader such as `lockpick serve` can
// show a search while it runs. The writer's pid is on every line: a file whose writer is gone
// and that has no results.json beside it is a run that did not finish.
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Coverage } from './coverage.ts';

export interface ProgressLine {
  /** ms since the epoch. */
  t: number;
  pid: number;
  phase: 'search' | 'shrink';
  runs: number;
  conclusive: number;
  violations: number;
  ops: number;
  contended: number;
  faultsApplied: Record<string, number>;
  cells?: { hit: number; total: number; percent: number };
}

export const PROGRESS_FILE = 'progress.jsonl';

/** One line after a run; a failure to write is ignored (the run goes on; results.json says what it found). */
export function appendProgress(dir: string, phase: ProgressLine['phase'], c: Coverage, o: { runs: number; violations: number; ops: number }): void {
  const line: ProgressLine = {
    t: Date.now(), pid: process.pid, phase, runs: o.runs, conclusive: c.conclusive, violations: o.violations, ops: o.ops,
    contended: c.contended, faultsApplied: c.faultsApplied,
    ...(c.cells ? { cells: { hit: c.cells.hit, total: c.cells.total, percent: c.cells.percent } } : {}),
  };
  try { appendFileSync(join(dir, PROGRESS_FILE), `${JSON.stringify(line)}\n`); } catch { /* a copy for readers only */ }
}

/** The lines written so far (a torn last line, still being written, left out). */
export function readProgress(dir: string): ProgressLine[] {
  let text: string;
  try { text = readFileSync(join(dir, PROGRESS_FILE), 'utf8'); } catch { return []; }
  const out: ProgressLine[] = [];
  for (const l of text.split('\n')) {
    if (!l) continue;
    try { out.push(JSON.parse(l) as ProgressLine); } catch { /* torn */ }
  }
  return out;
}
