// `lockpick serve`: the store as a local web app (src/serve/): its runs and merged shard sets,
// a search watched as it runs, and the demo catalogue as a course.
import { randomBytes } from 'node:crypto';
import { parseCommandArgs } from './args.ts';
import { EXIT, EXIT_HELP, UsageError, fsReason } from '../errors.ts';
import { langOption } from '../i18n/lang.ts';

const USAGE = `usage: lockpick serve [--store DIR] [--port P] [--lang en|zh-CN]

Serves the store (what 'lockpick run' and 'lockpick merge' wrote) as a web app on
127.0.0.1 only: every run and merged shard set with its verdict, a run's page (its
timeline, counterexamples, history, files), two runs side by side, a run in progress
shown as it goes, and the failure catalogue ('lockpick demo') as a course, each entry
runnable from the page on local servers, one at a time.

It prints the URL to open, with a random token (as Jupyter does); requests without it,
from another host name or, for a change, from another site are refused. Ctrl-C stops
it and every run it started.

options:
  --store DIR   the store (default ./store); the course's runs go to DIR/course/
  --port P      the port (default 0: a free one)
  --lang L      the pages' language, en or zh-CN (default LOCKPICK_LANG, else the browser's)

${EXIT_HELP}
  0 here: stopped by Ctrl-C or SIGTERM;
  2 here: a --store that is not a store (missing, a file, one run dir, or holding no run), a bad
    --port or --lang, or a port that is taken`;

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs('serve', USAGE, argv, { store: { type: 'string' }, port: { type: 'string' }, lang: { type: 'string' } });
  if (typeof parsed === 'number') return parsed;
  const args = parsed.values;
  const store = args.store ?? 'store';
  const port = args.port === undefined ? 0 : Number(args.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port ${args.port}: not a port\n  fix: give 0 (a free port) or a number up to 65535`);
  const lang = langOption(args.lang);
  const { checkStore } = await import('../serve/store-scan.ts');
  checkStore(store);
  const { startServer } = await import('../serve/server.ts');
  let served;
  try {
    served = await startServer({ store, port, token: randomBytes(24).toString('hex'), lang });
  } catch (e) {
    throw new UsageError(`--port ${port}: cannot listen on 127.0.0.1:${port}: ${fsReason(e)}\n  fix: give another port, or --port 0 for a free one`);
  }
  console.log(`lockpick serve: the store ${store} at\n  ${served.url}\nCtrl-C stops it.`);
  return await new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) return;
      stopping = true;
      console.error(`lockpick serve: ${signal}: stopping (and any course run it started)`);
      served.close().then(() => resolve(EXIT.ok), () => resolve(EXIT.ok));
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    process.once('SIGHUP', stop);
  });
}
