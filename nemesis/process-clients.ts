// A ClientControl over client worker processes known by pid: pause is SIGSTOP
// (the whole process stops, timers and watchdogs included), resume SIGCONT,
// kill SIGKILL (the client is gone from then on).
// Clock skew is delegated to `setClock` (how a worker learns its offset is the
// runner's business).
import type { ClientControl } from './types.ts';

export function processClients(pids: Map<string, number>, setClock: (id: string, ms: number) => Promise<void> = async () => {}): ClientControl {
  const pid = (id: string) => {
    const p = pids.get(id);
    if (p === undefined) throw new Error(`nemesis: no client '${id}' (clients: ${[...pids.keys()].join(', ') || 'none'})`);
    return p;
  };
  return {
    ids: () => [...pids.keys()],
    pause: async (id) => { process.kill(pid(id), 'SIGSTOP'); },
    resume: async (id) => { process.kill(pid(id), 'SIGCONT'); },
    kill: async (id) => { process.kill(pid(id), 'SIGKILL'); pids.delete(id); },
    setClockOffsetMs: async (id, ms) => { pid(id); await setClock(id, ms); },
  };
}
