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
    console.error(`lockpick ${command}: ${(e as Error).message}\n\n${text()}`);
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
