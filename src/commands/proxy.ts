// `lockpick proxy --port P`: run the Toxiproxy-compatible fault proxy in the
// foreground until Ctrl-C / SIGTERM.
import { serve } from '../proxy/server-main.ts';

const USAGE = `usage: lockpick proxy [--port P]

Runs lockpick's fault proxy: a TCP proxy speaking Toxiproxy's HTTP API on
127.0.0.1:P (default 8474, 0 = any free port). Drive it with
toxiproxy-node-client or curl, e.g.
  curl -X POST http://127.0.0.1:8474/proxies -d '{"name":"r1","listen":"127.0.0.1:0","upstream":"127.0.0.1:6379"}'
  curl -X POST http://127.0.0.1:8474/proxies/r1/toxics -d '{"type":"latency","attributes":{"latency":100}}'
Toxics: latency (latency, jitter ms), timeout (timeout ms; 0 = hold forever),
reset_peer (timeout ms), bandwidth (rate KB/s), limit_data (bytes); stream
upstream|downstream; toxicity 0..1. Prints {"url": ...} once ready.`;

export async function run(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(USAGE);
    return 0;
  }
  try {
    await serve(argv);
  } catch (e) {
    console.error(`lockpick proxy: ${e instanceof Error ? e.message : String(e)}\n\n${USAGE}`);
    return 2;
  }
  // Stay up: the server keeps the event loop alive until a signal stops it.
  return new Promise<number>(() => {});
}
