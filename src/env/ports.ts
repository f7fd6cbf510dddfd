// Free TCP ports on 127.0.0.1, chosen by the kernel (listen on port 0).
import net from 'node:net';

const handedOut = new Set<number>();

/** A port nobody listens on now; not handed out twice by this process. */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const srv = net.createServer();
      srv.unref();
      srv.once('error', reject);
      srv.listen(0, '127.0.0.1', () => {
        const addr = srv.address() as net.AddressInfo;
        srv.close(() => resolve(addr.port));
      });
    });
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
}
