// The `lockpick` command line: one subcommand per module in src/commands/.
// Each module exports `run(argv): Promise<number>` returning the exit code.
// Exit codes are a contract (README "Exit codes", src/errors.ts): a command
// that throws UsageError exits 2, InconclusiveError 3, anything else 4.
import { packageVersion } from './package-root.ts';
import { EXIT, EXIT_HELP, exitCodeOf } from './errors.ts';

const COMMANDS: Record<string, { summary: string; load: () => Promise<{ run(argv: string[]): Promise<number> }> }> = {
  check: { summary: 'check history files for linearizability and double holders', load: () => import('./commands/check.ts') },
  run: { summary: 'hammer a lock implementation under faults and check it', load: () => import('./commands/run.ts') },
  list: { summary: 'list lock recipes and fault kinds', load: () => import('./commands/list.ts') },
  env: { summary: 'bring a topology of real servers up or down (env up TOPOLOGY | env down)', load: () => import('./commands/env.ts') },
  proxy: { summary: "run lockpick's Toxiproxy-compatible fault proxy standalone", load: () => import('./commands/proxy.ts') },
  report: { summary: 'render a stored run or a history as text, JSON, JUnit or HTML', load: () => import('./commands/report.ts') },
  merge: { summary: 'one verdict for the shards of a search (run --shard I/N): merge DIR...', load: () => import('./commands/merge.ts') },
  demo: { summary: 'the catalogue of failure modes: run one on real servers, one HTML page each (demo --all --out DIR)', load: () => import('./commands/demo.ts') },
  serve: { summary: 'the store as a local web app: runs, a search as it runs, the catalogue as a course (127.0.0.1, a token)', load: () => import('./commands/serve.ts') },
  version: { summary: 'print the version of lockpick (also --version)', load: async () => ({ run: version }) },
};

/** `lockpick version`: no options (an unknown one is exit 2, as for every command). */
async function version(argv: string[]): Promise<number> {
  const { parseCommandArgs } = await import('./commands/args.ts');
  const parsed = parseCommandArgs('version', 'usage: lockpick version (or lockpick --version)', argv, {});
  if (typeof parsed === 'number') return parsed;
  console.log(`lockpick ${packageVersion()}`);
  return EXIT.ok;
}

export function usage(): string {
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(8)} ${c.summary}`);
  return `usage: lockpick <command> [options]\n\ncommands:\n${lines.join('\n')}\n\nRun 'lockpick <command> --help' for a command's options.\n${EXIT_HELP}`;
}

/** The one message of an internal error (bin/lockpick.mjs words it the same for a failure to load). */
export function internalError(e: unknown): string {
  return `lockpick: internal error (a bug in lockpick, please report it): ${(e as Error)?.stack ?? String(e)}`;
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    if (name) console.log(usage());
    else console.error(`lockpick: no command given.\n\n${usage()}`);
    return name ? EXIT.ok : EXIT.usage;
  }
  const key = name === '--version' || name === '-V' ? 'version' : name;
  // hasOwn: 'toString' and friends are not commands.
  if (!Object.hasOwn(COMMANDS, key)) {
    console.error(`lockpick: unknown command '${name}'.\n\n${usage()}`);
    return EXIT.usage;
  }
  try {
    return await (await COMMANDS[key]!.load()).run(rest);
  } catch (e) {
    const code = exitCodeOf(e);
    if (code === undefined) {
      console.error(internalError(e));
      return EXIT.internal;
    }
    console.error(`lockpick ${name}: ${(e as Error).message}`);
    return code;
  }
}
