// Runs one catalogue entry on real servers: its fixed plan from scenarios/<name>/
// through the same replay as `lockpick run --replay`, retried because a fixed
// plan is timing dependent, then writes its page. Never pretends: an expected
// break that did not happen is "not reproduced", not success.
import { join } from 'node:path';
import { packageRoot } from '../package-root.ts';
import { mkdirSync } from 'node:fs';
import { writeOutput } from '../output.ts';
import { InconclusiveError } from '../errors.ts';
import { recipeFor } from '../options.ts';
import { replay, type Interrupts, type RunSummary } from '../runner/index.ts';
import { readTestJson } from '../runner/store.ts';
import type { DemoEntry } from './entry.ts';
import { renderDemoPage } from './page.ts';
import type { Lang } from '../i18n/lang.ts';

export const SCENARIOS_DIR = join(packageRoot(), 'scenarios');

/**
 * An expected break gets this many runs: one, as every entry's plan breaks its lock 10 of 10
 * times (`npm run bench:replay`, docs/benchmarks.md "Reproduction rate").
 */
export const UNSAFE_RUNS = 1;
/** A session without a verdict (a fault that did not take, servers that did not start) is tried again, this many sessions in all. */
export const TRIES = 3;

export type DemoVerdict = 'UNSAFE' | 'SAFE' | 'INCONCLUSIVE';
/** 'fix broke': expected SAFE, found UNSAFE (a real violation). */
export type DemoStatus = 'as expected' | 'not reproduced' | 'fix broke';

export interface DemoOutcome {
  name: string;
  title: string;
  expected: DemoEntry['expected'];
  verdict: DemoVerdict;
  status: DemoStatus;
  /** Runs over all tries. */
  runs: number;
  /** Sessions (server start-ups) used. */
  tries: number;
  elapsedMs: number;
  /** The last replay's run directory (history.jsonl, results.json, counterexample/timeline.html). */
  runDir?: string;
  /** Why there is no verdict, when the servers did not start. */
  error?: string;
  page: string;
}

export function scenarioDir(entry: DemoEntry): string {
  return join(SCENARIOS_DIR, entry.name);
}

function verdictOf(s: RunSummary | undefined): DemoVerdict {
  if (!s) return 'INCONCLUSIVE';
  return s.verdict === false ? 'UNSAFE' : s.verdict === true ? 'SAFE' : 'INCONCLUSIVE';
}

export function statusOf(expected: DemoEntry['expected'], verdict: DemoVerdict): DemoStatus {
  if (verdict === expected) return 'as expected';
  return expected === 'SAFE' && verdict === 'UNSAFE' ? 'fix broke' : 'not reproduced';
}

export interface RunDemoOptions {
  out: string;
  /** Progress lines (one per try) and the replay's own report. */
  log(line: string): void;
  interrupts?: Interrupts;
  /** The page's language (default en). */
  lang?: Lang;
}

export async function runDemo(entry: DemoEntry, o: RunDemoOptions): Promise<DemoOutcome> {
  const t0 = Date.now();
  const dir = scenarioDir(entry);
  const test = readTestJson(dir);
  mkdirSync(o.out, { recursive: true });
  const storeRoot = join(o.out, 'runs');
  const report: string[] = [];
  let summary: RunSummary | undefined;
  let error: string | undefined;
  let tries = 0;
  let runs = 0;
  while (tries < TRIES) {
    tries++;
    report.push(`--- try ${tries}`);
    try {
      summary = await replay({
        dir, runs: entry.expected === 'UNSAFE' ? UNSAFE_RUNS : 1, storeRoot, resolve: recipeFor,
        log: (line) => report.push(line), interrupts: o.interrupts, lang: o.lang,
      });
      runs += summary.runs;
      error = undefined;
    } catch (e) {
      // The servers did not start or the disk filled: no verdict for this entry, the others go on.
      if (!(e instanceof InconclusiveError)) throw e;
      error = e.message;
      report.push(`no verdict: ${e.message}`);
    }
    const v = error ? 'INCONCLUSIVE' : verdictOf(summary);
    o.log(`  ${entry.name}: try ${tries}: ${v}${summary && !error ? ` after ${summary.runs} run(s)` : ''}`);
    if (v !== 'INCONCLUSIVE') break;   // a verdict, as expected or not, is the answer
  }
  const verdict = error ? 'INCONCLUSIVE' : verdictOf(summary);
  const outcome: DemoOutcome = {
    name: entry.name, title: entry.title, expected: entry.expected, verdict, status: statusOf(entry.expected, verdict),
    runs, tries, elapsedMs: Date.now() - t0, runDir: summary?.dir, error, page: join(o.out, `${entry.name}.html`),
  };
  writeOutput(outcome.page, renderDemoPage(entry, outcome, { test, summary, report, out: o.out, lang: o.lang ?? 'en' }), { fix: 'give --out a directory that can be written' });
  return outcome;
}
