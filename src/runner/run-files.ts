// What a run leaves in its directory besides the history: lockpick.log (its log lines),
// counterexample/ (a run's history and timeline), junit.xml and results.json, written last by
// `finish`, which also checks the summary against its verdict; and an outcome in words.
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { writeOutput } from '../output.ts';
import { describePlan } from '../workload/plan.ts';
import type { ProgressSink } from './progress.ts';
import { clientOutputNote } from './client-logs.ts';
import { runHistory, type RunOutcome } from './session.ts';
import { runLog, writeEvents, writeJson } from './store.ts';
import { renderRunJUnit, type RunJUnit } from '../report/junit.ts';
import { done, type RunSummary, type SummaryDraft } from './summary.ts';
import type { Lang } from '../i18n/lang.ts';

/** The run's log and progress, also written to DIR/lockpick.log (the progress lines a terminal redraws in place are left out). */
export function logged(dir: string, o: { log(line: string): void; progress?: ProgressSink }): { log(line: string): void; progress?: ProgressSink } {
  const append = runLog(dir);
  const progress = o.progress;
  return {
    log: (line) => { append(`${line}\n`); o.log(line); },
    progress: progress && {
      isTTY: progress.isTTY,
      write: (text: string) => { if (text.endsWith('\n')) append(text.replace(/\r\x1b\[K/g, '')); return progress.write(text); },
    },
  };
}

/** Writes counterexample/ (or NAME/): that run's history and the timeline (when the renderer loads, in `lang`); the JUnit file is the run's (writeJUnit). */
export async function writeCounterexample(dir: string, o: RunOutcome, meta: Record<string, unknown>, name = 'counterexample', lang?: Lang): Promise<string> {
  const cdir = join(dir, name);
  mkdirSync(cdir, { recursive: true });
  const hpath = join(cdir, 'history.jsonl');
  writeEvents(hpath, o.events);
  // What the resource check found in this run: results.json keeps only the minimal run's, and a bug
  // report of another counterexample (counterexample-N) would otherwise have none (lockpick report --format issue).
  writeJson(join(cdir, 'resource.json'), o.resource);
  let html: string;
  try {
    // Drawn from the run's history in memory (the file just written holds the same events, line for line).
    const h = o.history ?? runHistory(o.events);
    const { renderTimelineHtml } = await import('../report/html.ts');
    html = renderTimelineHtml({ ...h.parsed, source: hpath }, o.check, meta, { clients: h.clients, resource: o.resource, resourceEntries: o.resourceEntries, outcomes: o.outcomes, ...(lang ? { lang } : {}) });
  } catch (e) {
    writeOutput(join(cdir, 'report-error.txt'), `${(e as Error).stack ?? e}\n`);
    return cdir;
  }
  writeOutput(join(cdir, 'timeline.html'), html);
  return cdir;
}

export async function describeOutcome(o: RunOutcome, file: string): Promise<string> {
  const lines: string[] = [];
  try {
    const { formatResult } = await import('../report/text.ts');
    // In the user's terms: clients, and the fault that made each anomaly possible (src/report/cause.ts).
    const { explainAnomalies } = await import('../report/cause.ts');
    const h = o.history ?? runHistory(o.events);
    lines.push(formatResult(file, o.check, { clients: h.clients, causes: explainAnomalies(h.parsed, o.check.anomalies, h.clients) }));
  } catch {
    lines.push(`${file}: valid=${String(o.check.valid)}`);
    for (const a of o.check.anomalies) lines.push(`  ${a.type}: ${a.message}`);
  }
  // Asked-for liveness violations are among check.anomalies (formatResult says them); otherwise a note.
  if (o.liveness && !o.liveness.checked && o.liveness.violations.length) {
    lines.push(`liveness (not part of --property): ${o.liveness.violations.length} violation(s), e.g. ${o.liveness.violations[0]!.message}`);
  }
  lines.push(o.resource.message);
  for (const a of o.resource.anomalies.slice(0, 5)) lines.push(`  ${a.type} on "${a.key}": ${a.message}`);
  if (o.resource.anomalies.length > 5) lines.push(`  … and ${o.resource.anomalies.length - 5} more`);
  return lines.join('\n');
}

/** Writes the run's JUnit file into DIR (and the counterexample dir, and --junit PATH when given). */
export function writeJUnit(dir: string, paths: (string | undefined)[], input: RunJUnit): string {
  const xml = renderRunJUnit(input);
  const own = join(dir, 'junit.xml');
  writeOutput(own, xml);
  const fix = 'give --junit a file in a directory that exists and can be written';
  for (const p of paths) if (p) writeOutput(p, xml, { what: `cannot write the JUnit file ${p} (the run's results are in ${join(dir, 'results.json')})`, fix });
  return own;
}

/** What JUnit says of the run shown (the counterexample, or a replay's breaking run): its anomalies, the resource, its plan in words and its timeline. */
export function shownRun(out: RunOutcome | undefined, cdir: string | undefined): Pick<RunJUnit, 'anomalies' | 'resource' | 'plan' | 'timeline'> {
  return {
    anomalies: out ? [...out.check.anomalies, ...out.resource.anomalies] : [], resource: out?.resource,
    plan: out && describePlan(out.plan), timeline: cdir && join(cdir, 'timeline.html'),
  };
}

/**
 * The end of every run, a search's or a replay's: the note on the clients' own output, the
 * elapsed time, junit.xml (in DIR, at --junit PATH, in the counterexample), results.json, and
 * the summary checked against its verdict.
 */
export function finish(dir: string, o: { log(line: string): void }, t0: number, summary: SummaryDraft, junit: Omit<RunJUnit, 'verdict' | 'elapsedMs' | 'gaps'>, junitPaths: (string | undefined)[], results: Record<string, unknown>): RunSummary {
  const output = clientOutputNote(dir);
  if (output) o.log(output);
  summary.elapsedMs = Date.now() - t0;
  // results.json first, whole: whatever fails after it (a --junit on a full disk), the verdict is stored.
  writeJson(join(dir, 'results.json'), { verdict: summary.verdict, ...results });
  writeJUnit(dir, junitPaths, { ...junit, verdict: summary.verdict, elapsedMs: summary.elapsedMs, gaps: summary.gaps });
  return done(summary);
}
