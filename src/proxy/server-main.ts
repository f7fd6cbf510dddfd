// Entry point of the fault proxy child process:
//   node --import tsx src/proxy/server-main.ts --port P [--exit-with-parent]
// Prints one JSON line {"url": ...} on stdout when the API answers (and sends
// it over IPC when there is a channel). With --exit-with-parent it exits when
// its parent dies (IPC disconnect, or being re-parented), so it never outlives
// the lockpick process that started it.
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ProxyApi } from './api.ts';

export async function serve(argv: string[], log: (line: string) => void = (l) => process.stdout.write(l + '\n')): Promise<void> {
  const { values } = parseArgs({ args: argv, options: {
    port: { type: 'string', default: '8474' },
    'exit-with-parent': { type: 'boolean', default: false },
  } });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`--port ${JSON.stringify(values.port)}: expected a port number 0..65535 (0 = any free port)`);
  }
  const api = new ProxyApi();
  const url = await api.listen(port);
  let closing = false;
  // A stop asked for (SIGTERM, SIGHUP, the parent gone) ends with 0; Ctrl-C with 130 (README "Exit codes").
  const shutdown = (code = 0) => {
    if (closing) return;
    closing = true;
    void api.close().finally(() => process.exit(code));
    setTimeout(() => process.exit(code), 2000).unref();
  };
  process.on('SIGTERM', () => shutdown(0));
  process.on('SIGHUP', () => shutdown(0));
  process.on('SIGINT', () => shutdown(130));
  if (values['exit-with-parent']) {
    const parent = process.ppid;
    process.on('disconnect', () => shutdown(0));
    setInterval(() => { if (process.ppid !== parent) shutdown(); }, 500).unref();
  }
  log(JSON.stringify({ url, pid: process.pid }));
  process.send?.({ url, pid: process.pid });
}

// Run when executed directly (not when imported by the CLI command).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  serve(process.argv.slice(2)).catch((e: unknown) => {
    process.stderr.write(`lockpick proxy: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  });
}
