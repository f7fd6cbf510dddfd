// Free TCP ports on 127.0.0.1 for the servers lockpick starts. Taken below the kernel's ephemeral
// range (ip_local_port_range), at random: a port the kernel handed out for `listen(0)` lies in
// the range it also takes outgoing connections' local ports from, and a connection made between
// the check and the server's own bind (another test, another lane) took one such port in CI
// ("bind: address already in use"). Below the range only a listener can hold a port, and the
// check sees it. Where the range cannot be read, the kernel's choice (port 0).
import net from 'node:net';
import { readFileSync } from 'node:fs';

const handedOut = new Set<number>();
/** The lowest port chosen at random. */
const LOW = 10_000;

/** The first port of the kernel's ephemeral range, or undefined (not Linux, or too low to leave room below it). */
function ephemeralStart(): number | undefined {
  try {
    const first = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(first) && first > LOW + 1000 ? first : undefined;
  } catch {
    return undefined;
  }
}
const below = ephemeralStart();

/** Listens on 127.0.0.1:port (0: the kernel's choice) and frees it: the port, or undefined when it is taken. */
function tryPort(port: number): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', (e: NodeJS.ErrnoException) => (e.code === 'EADDRINUSE' || e.code === 'EACCES' ? resolve(undefined) : reject(e)));
    srv.listen(port, '127.0.0.1', () => {
      const addr = srv.address() as net.AddressInfo;
      srv.close(() => resolve(addr.port));
    });
  });
}

/** A port nobody listens on now; not handed out twice by this process. */
export async function freePort(): Promise<number> {
  for (let tries = 0; ; tries++) {
    const want = below !== undefined && tries < 200 ? LOW + Math.floor(Math.random() * (below - LOW)) : 0;
    if (handedOut.has(want)) continue;
    const port = await tryPort(want);
    if (port !== undefined && !handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
}
