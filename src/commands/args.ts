// A subcommand's options, parsed the way every command answers them: a bad option prints the
// error and the usage (exit 2), -h/--help prints the usage (exit 0); otherwise the command
// goes on with what parsed.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { EXIT } from '../errors.ts';

type Options = NonNullable<ParseArgsConfig['options']>;

const HELP = { help: { type: 'boolean', short: 'h' } } as const;

/** What parseArgs returns for these options (strict, with -h/--help). */
type Parsed<O extends Options, P extends boolean> = ReturnType<typeof parseArgs<{ args: string[]; options: O & typeof HELP; allowPositionals: P | undefined; strict: true }>>;

/** `lockpick <command>`'s argv parsed strictly (with -h/--help); a number is the exit code to return at once. */
/** usage: the command's usage text, or a function that makes it (called only when it is printed). */
export function parseCommandArgs<O extends Options, P extends boolean = false>(command: string, usage: string | (() => string), argv: string[], options: O, allowPositionals?: P): Parsed<O, P> | number {
  const text = typeof usage === 'string' ? () => usage : usage;
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { ...options, ...HELP }, allowPositionals, strict: true, tokens: true });
    valuesProblem(parsed.tokens, { ...options, ...HELP });
  } catch (e) {
    const near = (e as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? nearestOption(String((e as Error).message), options, text()) : undefined;
    console.error(`lockpick ${command}: ${(e as Error).message}${near ? `\n  fix: did you mean ${near}?` : ''}\n\n${text()}`);
    return EXIT.usage;
  }
  if ((parsed.values as { help?: boolean }).help) {
    console.log(text());
    return EXIT.ok;
  }
  return parsed;
}

/**
 * What no option of any command takes: an empty value (`--store ""`, `--faults ""`: an unset
 * variable in CI would silently mean "here" or "no faults") and an option given twice that
 * takes one value (parseArgs would keep the last without a word). Thrown as an Error: exit 2.
 */
function valuesProblem(tokens: ReturnType<typeof parseArgs>['tokens'], options: Options): void {
  const seen = new Set<string>();
  for (const t of tokens ?? []) {
    if (t.kind !== 'option') continue;
    const flag = t.rawName.startsWith('--') ? t.rawName : `--${t.name}`;
    if (typeof t.value === 'string' && t.value.trim() === '') throw new Error(`${flag}: empty value; give one, or leave ${flag} out for its default`);
    if (options[t.name]?.multiple) continue;
    if (seen.has(t.name)) throw new Error(`${flag} is given twice; give it once`);
    seen.add(t.name);
  }
}

/**
 * What an unknown option was likely meant as: a --format value given as a flag of its own
 * (`report --json` for `--format json`, as `run --json` reads), else a known option a slip or
 * two away (`--shrink-tim`). Read from parseArgs' message, which quotes the option.
 */
function nearestOption(message: string, options: Options, usage: string): string | undefined {
  const name = /'(-{1,2}[^'=]+)/.exec(message)?.[1]?.replace(/^-+/, '');
  if (!name) return undefined;
  const formats = /--format (\S*\|\S*)/.exec(usage)?.[1]?.replace(/[\[\]]/g, '').split('|') ?? [];
  if (options.format && formats.includes(name)) return `--format ${name}`;
  let best: string | undefined, bestD = Math.min(2, Math.floor(name.length / 3));
  for (const k of Object.keys(options)) {
    const d = editDistance(name, k);
    if (d <= bestD && (best === undefined || d < editDistance(name, best))) { best = k; bestD = d; }
  }
  return best === undefined ? undefined : `--${best}`;
}

/** Levenshtein distance (a few short option names: the plain table is enough). */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}
