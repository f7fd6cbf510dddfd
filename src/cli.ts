// The `lockpick` command line: one subcommand per module in src/commands/.
// Each module exports `run(argv): Promise<number>` returning the exit code.
export const EXIT = { ok: 0, invalid: 1, usage: 2, unknown: 3 } as const;

const COMMANDS: Record<string, { summary: string; load: () => Promise<{ run(argv: string[]): Promise<number> }> }> = {
  check: { summary: 'check history files for linearizability and double holders', load: () => import('./commands/check.ts') },
  run: { summary: 'hammer a lock implementation under faults and check it', load: () => import('./commands/run.ts') },
  list: { summary: 'list lock recipes and fault kinds', load: () => import('./commands/list.ts') },
  env: { summary: 'bring a topology of real servers up or down (env up TOPOLOGY | env down)', load: () => import('./commands/env.ts') },
  proxy: { summary: "run lockpick's Toxiproxy-compatible fault proxy standalone", load: () => import('./commands/proxy.ts') },
  report: { summary: 'render a stored run or a history as text, JSON, JUnit or HTML', load: () => import('./commands/report.ts') },
};

export function usage(): string {
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(8)} ${c.summary}`);
  return `usage: lockpick <command> [options]\n\ncommands:\n${lines.join('\n')}\n\nRun 'lockpick <command> --help' for a command's options.`;
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    console.log(usage());
    return name ? EXIT.ok : EXIT.usage;
  }
  const cmd = COMMANDS[name];
  if (!cmd) {
    console.error(`lockpick: unknown command '${name}'.\n\n${usage()}`);
    return EXIT.usage;
  }
  return (await cmd.load()).run(rest);
}
