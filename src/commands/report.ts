// `lockpick report PATH`: render a history file or a stored run (store/<lock>/<run-id>
// with history.jsonl and, when present, results.json and test.json) as text,
// JSON, JUnit XML or the HTML timeline. The verdict is always the history's, checked
// here: a stored one is never taken on trust (a stored check result under the same model
// that disagrees with it is bad input, exit 2); results.json and test.json are checked
// against their schemas on read (src/runner/stored-files.ts).
// Exit codes as `check` (README "Exit codes"): 0 valid, 1 invalid, 2 bad input
// or usage (also an --out that cannot be written), 3 unknown; anything else
// thrown is lockpick's own failure and exits 4 through src/cli.ts.
import { parseCommandArgs } from './args.ts';
import { existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { writeOutput } from '../output.ts';
import { basename, dirname, join, resolve } from 'node:path';
import { CheckInputError, checkHistory, MODELS, readyToCheck } from '../../checkers/index.ts';
import type { CheckResult } from '../../checkers/types.ts';
import { DEFAULT_MAX_LINE_BYTES, HistoryError, parseMaxLineBytes, readHistory } from '../history/index.ts';
import type { ParsedHistory } from '../history/types.ts';
import { formatResult } from '../report/text.ts';
import { explainAnomalies } from '../report/cause.ts';
import { clientsFromFile } from '../report/timeline-story.ts';
import { renderJUnit } from '../report/junit.ts';
import { renderTimelineHtml } from '../report/html.ts';
import { langOption, type Lang } from '../i18n/lang.ts';
import { EXIT_HELP, fsReason, UsageError } from '../errors.ts';
import { clientLogs, clientOutputNote } from '../runner/client-logs.ts';
import { samePath } from '../same-path.ts';
import { requireRegularFile } from '../regular-file.ts';
import { checkResultsJson, checkTestJson, COUNTEREXAMPLE_DIR, counterexampleResourceAnomalies, minimalResourceAnomalies, type StoredResults } from '../runner/stored-files.ts';

const EXIT = { valid: 0, invalid: 1, usage: 2, unknown: 3 } as const;
/** File-system errors on a path the user gave: bad input (exit 2), not lockpick's failure. */
const INPUT_FS_ERRORS = new Set(['EACCES', 'EPERM', 'ENOENT', 'EISDIR', 'ENOTDIR', 'ELOOP', 'ENAMETOOLONG']);
const FORMATS = ['text', 'json', 'junit', 'html', 'issue'] as const;
type Format = (typeof FORMATS)[number];

export function usage(): string {
  return `usage: lockpick report PATH [--format text|json|junit|html|issue] [--out FILE] [--model M] [--max-line-bytes N]

Renders a checked history for people or CI. PATH is a history file (.jsonl or
Jepsen .edn) or a stored run directory store/<lock>/<run-id> holding history.jsonl and,
when the run wrote them, results.json (the verdict) and test.json (what was run).
A run's shrunk counterexample is in store/<lock>/<run-id>/counterexample (report it the
same way). The verdict is always the history's, checked again; a stored check result
(results.json) under the same model that disagrees with it is bad input (exit 2).

options:
  --format F   html (default): one self-contained timeline.html: a lane per
               client (c1, with its process ids), what it believes it holds
               and the lease the server granted, the gap between them, stale
               unlocks where they happened, one row per fault and a lane per
               server node it hit, anomalies listed in words and drawn in red
               (big histories are cut to windows around the anomalies, with an
               overview strip);
               text: the human summary; json: the result object;
               junit: JUnit XML for CI (invalid = failure, unknown = error);
               issue: a Markdown bug report for the lock's maintainers, of a
               stored run that broke the lock (PATH: store/<lock>/<run-id>, or
               one of its counterexample dirs): the lock and server versions,
               the minimal schedule, the anomaly, bug or design, the fix its
               cause points to, the replay command, the files to attach
  --out FILE   where to write; html defaults to <run dir or history's dir>/timeline.html,
               the others to standard output
  --lang L     the html page's language: en or zh-CN (default LOCKPICK_LANG, else en)
  --model M    the model (default: test.json's model, else results.json's, else
               mutex); one of: ${Object.keys(MODELS).join(', ')}
  --max-line-bytes N  the longest line (or EDN op map) read (default ${DEFAULT_MAX_LINE_BYTES});
               a longer one is bad input (exit 2)
  --help       this text

${EXIT_HELP}`;
}

class ReportError extends Error {}

interface Inputs { historyPath: string; dir: string; runId?: string; stored?: StoredResults; test?: Record<string, unknown> }

async function readJson(path: string): Promise<unknown> {
  requireRegularFile(path, '', 'remove the file; the history alone is enough (it is checked again)');
  try {
    return JSON.parse(await readFile(path, 'utf8'));
  } catch (e) {
    throw new ReportError(`${path}: not readable as JSON (${(e as Error).message})\n  fix: remove or repair the file; the history alone is enough (it is checked again)`);
  }
}

/** Finds the history (and the run's stored files) for PATH. */
async function locate(path: string): Promise<Inputs> {
  if (!existsSync(path)) throw new ReportError(`${path}: no such file or directory\n  fix: give a history file (.jsonl or .edn) or a run directory store/<lock>/<run-id>`);
  if (!statSync(path).isDirectory()) return { historyPath: path, dir: dirname(path) };
  const historyPath = ['history.jsonl', 'history.edn'].map((f) => join(path, f)).find((f) => existsSync(f));
  if (!historyPath) throw new ReportError(`${path}: no history.jsonl in this directory\n  fix: give a run directory store/<lock>/<run-id> written by 'lockpick run', or a history file`);
  const abs = resolve(path);
  // store/<id>/counterexample is named after its run.
  const runId = basename(abs) === 'counterexample' ? `${basename(dirname(abs))}/counterexample` : basename(abs);
  const inputs: Inputs = { historyPath, dir: path, runId };
  const results = join(path, 'results.json'), test = join(path, 'test.json');
  if (existsSync(results)) inputs.stored = checkResultsJson(await readJson(results), results);
  if (existsSync(test)) inputs.test = checkTestJson(await readJson(test), test);
  return inputs;
}

/**
 * What a stored check result under the same model says that the history, checked again,
 * contradicts (the other definite verdict). A run's verdict is not compared: it weighs what the
 * history check does not (--property liveness, the resource, lanes' own histories).
 */
function storedDisagrees(stored: StoredResults | undefined, model: string, r: CheckResult): string | undefined {
  if (stored === undefined || !('check' in stored) || r.valid === 'unknown') return undefined;
  const s = stored.check;
  return s.model === model && s.valid !== 'unknown' && s.valid !== r.valid ? `"valid" is ${String(s.valid)}` : undefined;
}

const modelFrom = (o: unknown): string | undefined =>
  o !== null && typeof o === 'object' && typeof (o as { model?: unknown }).model === 'string' ? (o as { model: string }).model : undefined;

function render(format: Format, name: string, h: ParsedHistory, r: CheckResult, meta: Record<string, unknown>, lang: Lang): string {
  switch (format) {
    case 'text': {
      // In the user's terms when the history names its clients (lockpick run records them).
      const clients = clientsFromFile(h.source);
      return `${formatResult(name, r, { clients, causes: explainAnomalies(h, r.anomalies, clients) })}\n`;
    }
    case 'json': {
      const clients = clientsFromFile(h.source);
      const causes = explainAnomalies(h, r.anomalies, clients);
      const anomalies = r.anomalies.map((a, i) => ({ ...a, ...(clients.size ? { clients: a.processes.map((p) => clients.get(p) ?? null) } : {}), ...(causes[i] ? { cause: causes[i] } : {}) }));
      return `${JSON.stringify({ file: h.source, ...r, anomalies })}\n`;
    }
    case 'junit': return renderJUnit([{ name, result: r, meta }]);
    case 'html': return renderTimelineHtml(h, r, meta, { lang });
    case 'issue': throw new Error('report: the issue format is rendered by issueReport');
  }
}

/**
 * PATH for --format issue: a run dir with its counterexample, or a counterexample dir (its run
 * dir above it): the run's test.json and results.json, and the counterexample's history.
 */
async function issueReport(path: string, model: string | undefined, maxLineBytes: number | undefined): Promise<{ text: string; valid: CheckResult['valid'] }> {
  const abs = resolve(path);
  const inCx = COUNTEREXAMPLE_DIR.test(basename(abs)) && existsSync(join(dirname(abs), 'test.json'));
  const runDir = inCx ? dirname(abs) : abs;
  const fix = 'give a run directory store/<lock>/<run-id> of a `lockpick run` that broke the lock (exit 1), or one of its counterexample directories';
  if (!existsSync(join(runDir, 'results.json')) || !existsSync(join(runDir, 'test.json'))) throw new ReportError(`${path}: no results.json and test.json of a run here\n  fix: ${fix}`);
  const results = await readJson(join(runDir, 'results.json')) as Record<string, unknown>;
  checkResultsJson(results, join(runDir, 'results.json'));
  // A run dir reports the run's headline failure (results.json's first: a bug of the lock before a
  // failure inherent to its design), whose counterexample may be counterexample-N: the first found
  // is always counterexample/. Its dir is named in failures[0], by the path the run wrote (the store may have moved since).
  const headline = Array.isArray(results.failures) ? (results.failures[0] as { counterexample?: unknown } | undefined)?.counterexample : undefined;
  const headlineDir = typeof headline === 'string' && COUNTEREXAMPLE_DIR.test(basename(headline)) ? basename(headline) : 'counterexample';
  const cxDir = inCx ? abs : join(abs, existsSync(join(abs, headlineDir, 'history.jsonl')) ? headlineDir : 'counterexample');
  if (!existsSync(join(cxDir, 'history.jsonl'))) throw new ReportError(`${path}: the run has no counterexample (it did not break the lock)\n  fix: ${fix}`);
  // A counterexample-N dir carries its own test.json (its plan); the run's says the rest.
  const own = existsSync(join(cxDir, 'test.json')) ? checkTestJson(await readJson(join(cxDir, 'test.json')), join(cxDir, 'test.json')) : undefined;
  const test = { ...checkTestJson(await readJson(join(runDir, 'test.json')), join(runDir, 'test.json')), ...(own ?? {}) };
  const m = model ?? modelFrom(test) ?? 'mutex';
  if (!Object.hasOwn(MODELS, m)) throw new ReportError(`unknown model "${m}"; known models: ${Object.keys(MODELS).join(', ')}\n  fix: pass --model with one of those`);
  const h = await readHistory(join(cxDir, 'history.jsonl'), { maxLineBytes });
  await readyToCheck(h, { model: m });
  const check = checkHistory(h, { model: m });
  const clients = clientsFromFile(h.source);
  const [{ renderIssue }, { lockFacts }, { validatePlan, describePlan }] = await Promise.all([import('../report/issue.ts'), import('../report/lock-facts.ts'), import('../workload/plan.ts')]);
  const plan = validatePlan(test.plan, join(own ? cxDir : runDir, 'test.json'));
  // The rate a measuring replay stored beside what it replayed (the run dir or the counterexample's).
  const rateFile = [join(cxDir, 'reproduction.json'), join(runDir, 'reproduction.json')].find((f) => existsSync(f));
  const rate = rateFile ? await readJson(rateFile) as Record<string, unknown> : undefined;
  const reproduction = rate && [rate.runs, rate.reproduced, rate.inconclusive, rate.clean].every((x) => Number.isSafeInteger(x))
    ? { runs: rate.runs as number, reproduced: rate.reproduced as number, inconclusive: rate.inconclusive as number, clean: rate.clean as number, ...(typeof rate.measured === 'string' ? { measured: rate.measured } : {}) } : undefined;
  // What the resource check found in this counterexample's run: its own resource.json, else (a store
  // written before counterexamples kept one) results.json's minimal run's, when this is the minimal's counterexample.
  const resource = existsSync(join(cxDir, 'resource.json'))
    ? counterexampleResourceAnomalies(await readJson(join(cxDir, 'resource.json')), join(cxDir, 'resource.json'))
    : basename(cxDir) === headlineDir ? minimalResourceAnomalies(results, join(runDir, 'results.json')) : [];
  const text = renderIssue({
    // A counterexample with a test.json of its own replays from its dir; the headline's plan is the run dir's.
    dir: runDir, counterexampleDir: cxDir, replayDir: own ? cxDir : runDir, test, results, lock: await lockFacts(test), check, resource,
    causes: explainAnomalies(h, check.anomalies, clients), clients, schedule: describePlan(plan), ...(reproduction ? { reproduction } : {}),
  });
  // The run broke the resource though the lock's history is valid: as the run said, not valid.
  return { text, valid: resource.length && check.valid === true ? false : check.valid };
}


export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs('report', usage(), argv,
    { format: { type: 'string', default: 'html' }, out: { type: 'string' }, model: { type: 'string' }, 'max-line-bytes': { type: 'string' }, lang: { type: 'string' } }, true);
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  if (positionals.length !== 1) {
    console.error(`lockpick report: give exactly one PATH (got ${positionals.length})\n\n${usage()}`);
    return EXIT.usage;
  }
  const maxLineBytes = parseMaxLineBytes(values['max-line-bytes']);
  if (typeof maxLineBytes === 'string') {
    console.error(`lockpick report: ${maxLineBytes}`);
    return EXIT.usage;
  }
  const format = values.format as Format;
  if (!FORMATS.includes(format)) {
    console.error(`lockpick report: unknown --format "${values.format}"\n  fix: use one of ${FORMATS.join(', ')}`);
    return EXIT.usage;
  }
  try {
    const lang = langOption(values.lang) ?? 'en';
    if (format === 'issue') {
      const { text, valid } = await issueReport(positionals[0]!, values.model, maxLineBytes);
      if (values.out) {
        writeOutput(values.out, text, { what: `cannot write ${values.out}`, fix: 'give --out a file in a directory that exists and can be written' });
        console.log(`lockpick report: wrote ${values.out} (a bug report in Markdown)`);
      } else process.stdout.write(text);
      return valid === true ? EXIT.valid : valid === false ? EXIT.invalid : EXIT.unknown;
    }
    const inputs = await locate(positionals[0]!);
    const model = values.model ?? modelFrom(inputs.test) ?? modelFrom(inputs.stored && 'check' in inputs.stored ? inputs.stored.check : undefined) ?? 'mutex';
    // hasOwn: "toString" or "constructor" (in test.json or --model) is no model.
    if (!Object.hasOwn(MODELS, model)) throw new ReportError(`unknown model "${model}"${values.model ? '' : ' (from the run\'s test.json or results.json)'}; known models: ${Object.keys(MODELS).join(', ')}\n  fix: pass --model with one of those`);
    const h = await readHistory(inputs.historyPath, { maxLineBytes });
    await readyToCheck(h, { model });
    const r = checkHistory(h, { model });
    const disagrees = storedDisagrees(inputs.stored, model, r);
    if (disagrees) {
      throw new ReportError(`${join(inputs.dir, 'results.json')}: ${disagrees}, but the history checked again under model ${model} is ${r.valid ? 'valid' : `INVALID (${r.anomalies[0]?.message ?? 'anomalies'})`}; the file was edited or belongs to another history\n  fix: remove results.json (the history alone is enough) or put back the one the run wrote`);
    }
    const name = inputs.runId ?? h.source;
    const meta: Record<string, unknown> = { ...(inputs.runId ? { run: inputs.runId } : {}), ...(inputs.test ?? {}) };
    let text = render(format, name, h, r, meta, lang);
    // A stored run: the lock module's own output, when it printed any (clients/<id>.log), is named.
    const logs = inputs.runId ? clientLogs(inputs.dir) : [];
    if (logs.length && format === 'text') text += `${clientOutputNote(inputs.dir)}\n`;
    if (logs.length && format === 'json') text = `${JSON.stringify({ ...JSON.parse(text) as object, client_logs: logs })}\n`;
    const out = values.out ?? (format === 'html' ? join(inputs.dir, 'timeline.html') : undefined);
    // The history, or the run's results.json / test.json, would be gone before anyone reads the report.
    const input = out === undefined ? undefined : [inputs.historyPath, ...(inputs.runId ? ['results.json', 'test.json'].map((f) => join(inputs.dir, f)) : [])].find((f) => existsSync(f) && samePath(f, out));
    if (input !== undefined) throw new ReportError(`--out ${out} is an input of this report (${input}); writing it would destroy it\n  fix: give --out another file`);
    if (out) {
      writeOutput(out, text, { what: `cannot write ${out}`, fix: 'give --out a file in a directory that exists and can be written' });
      const verdict = r.valid === true ? 'valid' : r.valid === false ? `INVALID, ${r.anomalies.length} anomal${r.anomalies.length === 1 ? 'y' : 'ies'}` : 'unknown';
      console.log(`lockpick report: wrote ${out} (${Math.ceil(Buffer.byteLength(text) / 1024)} KB; ${verdict})`);
    } else {
      process.stdout.write(text);
    }
    const minimal = join(inputs.dir, 'counterexample', 'history.jsonl');
    if (inputs.runId && existsSync(minimal)) console.error(`lockpick report: this run's shrunk counterexample: lockpick report ${join(inputs.dir, 'counterexample')}`);
    // The run weighed more than this history check does: a valid lock history of an UNSAFE run is said to be only part of it.
    if (inputs.stored && 'verdict' in inputs.stored && inputs.stored.verdict === false && r.valid === true) {
      console.error(`lockpick report: the run itself was UNSAFE (results.json): what broke is not in the lock's history (the resource it protects, or liveness); this report checks that history alone. The run's failure: lockpick report ${inputs.dir} --format issue`);
    }
    return r.valid === true ? EXIT.valid : r.valid === false ? EXIT.invalid : EXIT.unknown;
  } catch (e) {
    if (e instanceof ReportError || e instanceof HistoryError || e instanceof CheckInputError || e instanceof UsageError) {
      console.error(`lockpick report: ${e.message}`);
      return EXIT.usage;
    }
    const err = e as NodeJS.ErrnoException;
    if (typeof err.code === 'string' && INPUT_FS_ERRORS.has(err.code)) {
      console.error(`lockpick report: cannot read ${err.path ?? positionals[0]}: ${fsReason(err)}\n  fix: check the path and that it can be read`);
      return EXIT.usage;
    }
    throw e;
  }
}
