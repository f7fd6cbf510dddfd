// `lockpick proxy --port P`: run the Toxiproxy-compatible fault proxy in the
// foreground until Ctrl-C / SIGTERM.
import { parseCommandArgs } from './args.ts';
import { serve } from '../proxy/server-main.ts';
import { EXIT, EXIT_HELP, fsReason } from '../errors.ts';

const USAGE = `usage: lockpick proxy [--port P]

Runs lockpick's fault proxy: a TCP proxy speaking Toxiproxy's HTTP API on
127.0.0.1:P (default 8474, 0 = any free port). Drive it with
toxiproxy-node-client or curl, e.g.
  curl -X POST http://127.0.0.1:8474/proxies -d '{"name":"r1","listen":"127.0.0.1:0","upstream":"127.0.0.1:6379"}'
  curl -X POST http://127.0.0.1:8474/proxies/r1/toxics -d '{"type":"latency","attributes":{"latency":100}}'
Toxics: latency (latency, jitter ms), timeout (timeout ms; 0 = hold forever),
reset_peer (timeout ms), bandwidth (rate KB/s), limit_data (bytes); stream
upstream|downstream; toxicity 0..1. GET /proxies/NAME/connections (not in
Toxiproxy) lists each open connection: the client's address and the proxy's
own address toward the server (session-kill matches it to the server's
sessions). /points/CLIENT (not in Toxiproxy) holds a client's requests:
PUT {"proxies":[...],"framing":"resp|mysql|postgres|zookeeper|http2|memcached","hold":["send:release:2"]},
POST .../operation {"op":"release"|null}, GET .../held?wait_ms=N, POST .../go
{"id":N}, GET the counts, DELETE (docs/search.md). Prints {"url": ...} once ready.

${EXIT_HELP}
proxy: 2 also for a port that cannot be listened on`;

/** A port the user gave that cannot be listened on: bad input, not a bug. */
const LISTEN_ERRORS = new Set(['EADDRINUSE', 'EACCES', 'EADDRNOTAVAIL']);

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs('proxy', USAGE, argv, { port: { type: 'string', default: '8474' } });
  if (typeof parsed === 'number') return parsed;
  const { values } = parsed;
  const port = Number(values.port);
  if (!/^\d+$/.test(values.port) || port > 65535) {
    console.error(`lockpick proxy: --port ${JSON.stringify(values.port)}: expected a port number 0..65535\n  fix: e.g. --port 8474, or --port 0 for any free port`);
    return EXIT.usage;
  }
  try {
    await serve(['--port', String(port)]);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (typeof code !== 'string' || !LISTEN_ERRORS.has(code)) throw e;   // lockpick's own failure: exit 4
    console.error(`lockpick proxy: cannot listen on 127.0.0.1:${port}: ${fsReason(e)}\n  fix: give another --port, or --port 0 for any free port`);
    return EXIT.usage;
  }
  // Stay up: the server keeps the event loop alive until a signal stops it.
  return new Promise<number>(() => {});
}
