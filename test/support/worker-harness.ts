// Drives one client worker (src/runner/worker.ts) as the runner's ClientPool does,
// without servers: acks every invoke (a fresh process after an info), answers
// points, starts the client once prepared, and collects what it says.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { FromWorker, RunJob, ToWorker } from '../../src/runner/protocol.ts';
import type { Attempt } from '../../src/workload/plan.ts';

const WORKER = fileURLToPath(new URL('../../src/runner/worker.ts', import.meta.url));
export const MEMORY_LOCK = fileURLToPath(new URL('../fixtures/locks/memory.ts', import.meta.url));

export interface Op { type: string; f: string; process: number; value?: unknown; error?: string; at: number }   // at: parent's performance.now()
export interface WorkerRun { ops: Op[]; messages: FromWorker[]; exitCode: number | null; stderr: string }

export function attempt(over: Partial<Attempt> = {}): Attempt {
  return { key: 'k0', delayMs: 0, waitMs: 0, holdMs: 0, renew: false, ...over };
}

/**
 * Runs one job in a fresh worker until it says done (or exits). `beforeStart` may
 * send messages (e.g. a clock offset) between 'prepared' and 'start'.
 */
export function runWorker(o: { mode: string; attempts: Attempt[]; fenced?: boolean; ttlMs?: number; beforeStart?: (send: (m: ToWorker) => void) => void }): Promise<WorkerRun> {
  const child = fork(WORKER, ['c1'], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'pipe', 'ipc'] });
  const send = (m: ToWorker) => { if (child.connected) child.send(m); };
  const job: RunJob = {
    t: 'run', run: 1, clientId: 'c1', lock: { path: MEMORY_LOCK }, endpoints: [{ id: 'n1', host: '127.0.0.1', port: 1 }],
    // Nothing listens on port 1: the resource steps fail at once and are only logged.
    resource: { id: 'resource', host: '127.0.0.1', port: 1 }, fenced: o.fenced ?? false, leased: true, sendsSeen: true, reentrant: false, keyPrefix: 'r1-',
    ttlMs: o.ttlMs ?? 300, attempts: o.attempts, commandTimeoutMs: 200, options: { mode: o.mode }, clockOffsetMs: 0, pausePoints: [],
  };
  const ops: Op[] = [];
  const messages: FromWorker[] = [];
  let process = 0;
  let fresh = false;
  let stderr = '';   // kept for failure messages (ioredis complains about the unreachable resource)
  child.stderr!.on('data', (d) => { stderr += d; });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`worker did not finish: ${JSON.stringify(messages)}\n${stderr}`)); }, 30_000);
    const finish = (exitCode: number | null) => { clearTimeout(timer); resolve({ ops, messages, exitCode, stderr }); };
    child.on('exit', (code) => finish(code));
    child.on('message', (m: FromWorker) => {
      messages.push(m);
      switch (m.t) {
        case 'ready': send(job); break;
        case 'prepared': o.beforeStart?.(send); send({ t: 'start' }); break;
        case 'invoke':
          if (fresh) { process++; fresh = false; }
          ops.push({ type: 'invoke', f: m.f, process, at: performance.now() });
          send({ t: 'ack', seq: m.seq, process });
          break;
        case 'complete':
          ops.push({ type: m.type, f: m.f, process, value: m.value, error: m.error, at: performance.now() });
          if (m.type === 'info') fresh = true;
          break;
        case 'point': send({ t: 'go', seq: m.seq }); break;
        // Like the pool, the worker is reused: it stays until we let it go.
        case 'done': child.disconnect(); break;
      }
    });
  });
}
