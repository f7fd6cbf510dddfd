// `lockpick check FILE...`: read each history, check it against a model, print
// the verdict (text, --json, or --format junit). Exit: 0 valid, 1 invalid, 2 bad
// input or usage, 3 unknown (a limit was reached).
import { parseCommandArgs } from './args.ts';
import { MODELS } from '../../checkers/index.ts';
import type { Backend, CheckResult } from '../../checkers/types.ts';
import { backendNames, loadBackends } from '../../checkers/backends.ts';
import { EXIT, exitCodeOf } from '../errors.ts';
import { DEFAULT_MAX_LINE_BYTES, parseMaxLineBytes } from '../history/limits.ts';
import { checkFile, type CheckFileOptions, type FileOutcome } from './check-file.ts';


/** Thrown by the usage text's maker when the usage is to be printed: the registry it names is loaded first. */
const NEEDS_USAGE = Symbol('the usage is printed');

function modelNames(): string[] {
  return Object.keys(MODELS);
}

export function usage(): string {
  return `usage: lockpick check FILE... [--model M] [--backend B] [--json | --format text|json|junit] [--out FILE]
                      [--time-limit S] [--max-memory MB] [--max-line-bytes N]

Checks each history file (JSON Lines as docs/history-format.md describes, or
Jepsen history.edn: a vector/list of op maps or one map per line) for
linearizability against the model and for double holders.

options:
  --model M          the model (default mutex); one of: ${modelNames().join(', ')}
  --backend B        the lock's backend, for the words that explain stale
                     unlocks: ${backendNames().join(', ')} (default: what the history's
                     run-start record says; else neutral words)
  --json             print the result (the object docs/history-format.md
                     describes, with "file", "parse_ms", "check_ms") as JSON:
                     one object per file, one per line (JSON Lines). A
                     file that cannot be read prints
                     {"file":..., "error":{"line","rule","expected","fix"}}.
  --format F         text (default), json (as --json), or junit: one JUnit XML
                     document for CI, a <testsuite> per file, a <testcase> per
                     key (invalid = failure, unknown = error). If some file is
                     bad input, no XML is written at all (exit 2), so CI never
                     gets an empty or partial report.
  --out FILE         write the output to FILE instead of standard output;
                     nothing is written (the file is not created) on bad input
  --time-limit S     seconds the reading and check of each file may take;
                     past it the verdict is "unknown" (exit 3)
  --max-memory MB    resident memory (RSS) the process may reach while reading
                     or checking; past it the verdict is "unknown" (exit 3)
  --max-line-bytes N the longest line (JSON Lines) or op map (EDN) read, in
                     bytes (default ${DEFAULT_MAX_LINE_BYTES}); a longer one is bad input (exit 2)
  --help             this text

exit codes: 0 every file valid; 1 some file invalid; 2 bad input or usage (the
message names the file, line, rule and fix); 3 no verdict for some file (a limit
was reached, or the history has no operations) and none invalid; 4 an internal
error of lockpick. With several files the most serious wins: 4, 2, 1, then 3.`;
}

function positiveNumber(name: string, raw: string | undefined): number | undefined | string {
  if (raw === undefined) return undefined;
  const v = Number(raw);
  if (!Number.isFinite(v) || v <= 0) return `--${name} must be a positive number; got "${raw}"`;
  return v;
}

/** Several files: a checker bug (4), then a bad file (2), outrank an invalid one (1), which outranks no verdict (3). */
function worst(codes: number[]): number {
  for (const c of [EXIT.internal, EXIT.usage, EXIT.invalid, EXIT.unknown]) if (codes.includes(c)) return c;
  return EXIT.ok;
}

export async function run(argv: string[]): Promise<number> {
  // The usage names the backends: the topology registry is loaded only when the usage is printed (checkers/backends.ts).
  const options = {
    model: { type: 'string', default: 'mutex' },
    backend: { type: 'string' },
    json: { type: 'boolean', default: false },
    format: { type: 'string' },
    out: { type: 'string' },
    'time-limit': { type: 'string' },
    'max-memory': { type: 'string' },
    'max-line-bytes': { type: 'string' },
  } as const;
  const parse = (text: () => string) => parseCommandArgs('check', text, argv, options, true);
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(() => { throw NEEDS_USAGE; }); // thrown before anything is printed
  } catch (e) {
    if (e !== NEEDS_USAGE) throw e;
    await loadBackends();
    parsed = parse(usage);
  }
  if (typeof parsed === 'number') return parsed;
  const { values, positionals: files } = parsed;
  if (files.length === 0) {
    await loadBackends();
    console.error(`lockpick check: no history file given\n\n${usage()}`);
    return EXIT.usage;
  }
  const model = values.model!;
  if (!modelNames().includes(model)) {
    console.error(`lockpick check: unknown model "${model}"; known models: ${modelNames().join(', ')}\n  fix: pass --model with one of those`);
    return EXIT.usage;
  }
  const backend = values.backend;
  if (backend !== undefined) await loadBackends();
  if (backend !== undefined && !backendNames().includes(backend)) {
    console.error(`lockpick check: unknown backend "${backend}"; known backends: ${backendNames().join(', ')}\n  fix: pass --backend with one of those, or leave it out`);
    return EXIT.usage;
  }
  const seconds = positiveNumber('time-limit', values['time-limit']);
  const megabytes = positiveNumber('max-memory', values['max-memory']);
  const maxLineBytes = parseMaxLineBytes(values['max-line-bytes']);
  for (const bad of [seconds, megabytes, maxLineBytes]) {
    if (typeof bad === 'string') {
      console.error(`lockpick check: ${bad}`);
      return EXIT.usage;
    }
  }
  const timeLimitMs = seconds === undefined ? undefined : (seconds as number) * 1000;
  const maxMemoryBytes = megabytes === undefined ? undefined : (megabytes as number) * 1024 * 1024;

  const format = values.format ?? (values.json ? 'json' : 'text');
  if (format !== 'text' && format !== 'json' && format !== 'junit') {
    console.error(`lockpick check: unknown --format "${format}"\n  fix: use text, json or junit`);
    return EXIT.usage;
  }
  if (values.json && format !== 'json') {
    console.error(`lockpick check: --json and --format ${format} disagree\n  fix: give one of them`);
    return EXIT.usage;
  }
  const lineBytes = maxLineBytes as number | undefined;
  if (values.out !== undefined) {
    const { samePath } = await import('../same-path.ts'); // loaded only with --out, as junit and output below
    const input = files.find((f) => samePath(f, values.out!));
    if (input !== undefined) {
      console.error(`lockpick check: --out ${values.out} is the history being checked (${input}); writing it would destroy the input\n  fix: give --out another file`);
      return EXIT.usage;
    }
  }
  if (format === 'junit' || values.out !== undefined) return checkToDocument(files, format, values.out, model, backend as Backend | undefined, timeLimitMs, maxMemoryBytes, lineBytes);

  const codes: number[] = [];
  const fileOptions: CheckFileOptions = { model, backend: backend as Backend | undefined, timeLimitMs, maxMemoryBytes, maxLineBytes: lineBytes };
  for (const file of files) {
    const r = await checkFile(file, fileOptions);
    codes.push(r.code);
    if (r.bug !== undefined) console.error(r.bug);
    if (values.json) {
      console.log(JSON.stringify(r.json));
      if (r.toStderr) console.error(r.text);
    } else if (r.toStderr) {
      console.error(r.text);
    } else {
      console.log(r.text);
    }
  }
  return worst(codes);
}

/**
 * --format junit or --out: every file is checked first and one document is written
 * at the end, only if no file was bad input (a 0-byte or partial XML would read as
 * "no tests" or break the CI's parser). The problems go to stderr as always.
 */
async function checkToDocument(files: string[], format: 'text' | 'json' | 'junit', out: string | undefined, model: string, backend: Backend | undefined, timeLimitMs: number | undefined, maxMemoryBytes: number | undefined, maxLineBytes: number | undefined): Promise<number> {
  const codes: number[] = [];
  const done: { file: string; r: FileOutcome }[] = [];
  for (const file of files) {
    const r = await checkFile(file, { model, backend, timeLimitMs, maxMemoryBytes, maxLineBytes });
    codes.push(r.code);
    if (r.bug !== undefined) console.error(r.bug);
    if (r.toStderr) console.error(r.text);
    else done.push({ file, r });
  }
  const code = worst(codes);
  if (codes.includes(EXIT.usage)) {
    console.error(`lockpick check: nothing written${out ? ` to ${out}` : ''}: fix the input above first`);
    return code;
  }
  const text = format === 'junit'
    ? (await import('../report/junit.ts')).renderJUnit(done.map(({ file, r }) => ({ name: file, result: r.json as CheckResult })))
    : done.map(({ r }) => `${format === 'json' ? JSON.stringify(r.json) : r.text}\n`).join('');
  if (out === undefined) {
    process.stdout.write(text);
    return code;
  }
  try {
    (await import('../output.ts')).writeOutput(out, text, { what: `cannot write ${out}`, fix: 'give --out a file in a directory that exists and can be written' });
  } catch (e) {
    const failed = exitCodeOf(e);
    if (failed === undefined) throw e;
    console.error(`lockpick check: ${(e as Error).message}`);
    return failed;
  }
  return code;
}

/** Whether two paths name one file (symlinks and relative paths resolved; a file that does not exist yet is compared by its path). */
