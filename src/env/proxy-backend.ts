// The fault proxy every link goes through (src/proxy decides which server:
// TOXIPROXY_URL, a toxiproxy-server on PATH, or lockpick's own child process).
// A child proxy is recorded in the pid files like every server.
import { startFaultProxy } from '../proxy/index.ts';
import { forgetProcess, recordProcess } from './lifecycle.ts';

export interface ProxyBackend { url: string; stop(): Promise<void> }

export async function startProxyBackend(): Promise<ProxyBackend> {
  const p = await startFaultProxy();
  const pid = p.pid;
  if (pid === undefined) return p;
  const match = p.kind === 'lockpick' ? 'server-main' : 'toxiproxy-server';
  recordProcess({ pid, name: `fault proxy (${p.kind})`, kind: 'proxy', match });
  return {
    url: p.url,
    async stop() {
      await p.stop();
      forgetProcess(pid);
    },
  };
}
