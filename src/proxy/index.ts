// Starting the fault proxy the environment routes every link through:
// TOXIPROXY_URL if set (a server the user runs), else a `toxiproxy-server` on
// PATH, else lockpick's own Toxiproxy-compatible server as a child process.
// Either child is killed on stop() and when this process exits; ours also
// exits by itself if its parent dies (IPC disconnect).
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { faultProxyClient } from '../env/fault-proxy-client.ts';

export interface FaultProxyHandle {
  url: string;
  /** Which server: 'external' (TOXIPROXY_URL), 'toxiproxy-server' or 'lockpick'. */
  kind: 'external' | 'toxiproxy-server' | 'lockpick';
  pid?: number;
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 15_000;
// .ts under tsx; .js beside this file in the built package (dist/).
const SERVER_MAIN = path.join(path.dirname(fileURLToPath(import.meta.url)), `server-main${path.extname(import.meta.url)}`);

function onPath(bin: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, bin);
    try { accessSync(file, constants.X_OK); return file; } catch { /* next */ }
  }
  return undefined;
}

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

/** Polls GET /version until the API answers (or the child dies / time runs out). */
async function waitForApi(url: string, child: ChildProcess | undefined, output: () => string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  const client = faultProxyClient(url, 2000); // polled: one slow answer is retried, READY_TIMEOUT_MS bounds the whole
  for (;;) {
    try { await client.getVersion(); return; } catch (e) {
      if (child && child.exitCode !== null) throw new Error(`fault proxy exited with code ${child.exitCode} before its API answered at ${url}:\n${output()}`);
      if (Date.now() > deadline) throw new Error(`fault proxy API at ${url} did not answer within ${READY_TIMEOUT_MS} ms (${(e as Error).message})\n${output()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

function killer(child: ChildProcess): { stop(): Promise<void> } {
  const onExit = () => { child.kill('SIGKILL'); };
  process.on('exit', onExit);
  return {
    async stop() {
      process.off('exit', onExit);
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(t);
    },
  };
}

async function spawnOwn(): Promise<FaultProxyHandle> {
  // The sources need tsx; the build (dist/) runs under plain node.
  const loader = SERVER_MAIN.endsWith('.ts') ? ['--import', import.meta.resolve('tsx')] : [];
  const child = spawn(process.execPath, [...loader, SERVER_MAIN, '--port', '0', '--exit-with-parent'], {
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    detached: true,   // not stopped by the terminal's Ctrl-C: lockpick stops it after storing its results
  });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => { output += d.toString(); });
  const collect = (d: Buffer) => { output += d.toString(); };
  child.stderr!.on('data', collect);
  const k = killer(child);
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`lockpick fault proxy did not start within ${READY_TIMEOUT_MS} ms:\n${output}`)), READY_TIMEOUT_MS);
      child.once('message', (m: { url?: string }) => { clearTimeout(t); if (m.url) resolve(m.url); else reject(new Error(`unexpected message from fault proxy: ${JSON.stringify(m)}`)); });
      child.once('exit', (code) => { clearTimeout(t); reject(new Error(`lockpick fault proxy exited (code ${code}) before it was ready:\n${output}`)); });
      child.once('error', (e) => { clearTimeout(t); reject(e); });
    });
    await waitForApi(url, child, () => output);
    // Do not keep this process alive just for the proxy; the exit hook kills it.
    child.unref();
    (child.channel as { unref?: () => void } | undefined)?.unref?.();
    child.stdout!.destroy();
    // From now on what it says (a request it left unanswered for seconds) is passed on, not kept.
    child.stderr!.off('data', collect);
    child.stderr!.on('data', (d: Buffer) => process.stderr.write(d));
    return { url, kind: 'lockpick', pid: child.pid, stop: () => k.stop() };
  } catch (e) {
    await k.stop();
    throw e;
  }
}

async function spawnToxiproxy(bin: string): Promise<FaultProxyHandle> {
  const port = await freePort();
  const child = spawn(bin, ['-host', '127.0.0.1', '-port', String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  child.stderr!.on('data', (d: Buffer) => { output = (output + d.toString()).slice(-4000); });
  const k = killer(child);
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForApi(url, child, () => output);
  } catch (e) {
    await k.stop();
    throw e;
  }
  child.unref();
  return { url, kind: 'toxiproxy-server', pid: child.pid, stop: () => k.stop() };
}

/** Starts (or finds) the fault proxy; `stop()` ends what this call started. */
export async function startFaultProxy(): Promise<FaultProxyHandle> {
  const external = process.env.TOXIPROXY_URL;
  if (external) {
    const url = external.replace(/\/+$/, '');
    await waitForApi(url, undefined, () => 'is TOXIPROXY_URL right and the server running?');
    return { url, kind: 'external', stop: async () => {} };
  }
  const bin = onPath('toxiproxy-server');
  return bin ? spawnToxiproxy(bin) : spawnOwn();
}
