// Readiness: poll a real probe (PING, ruok, a client connect) until it answers.
import { spawnServer, type ServerProcess, type ServerSpec } from './spawn.ts';

export async function waitReady(
  what: string,
  probe: () => Promise<boolean>,
  o: { timeoutMs: number; proc?: ServerProcess; intervalMs?: number },
): Promise<void> {
  const deadline = Date.now() + o.timeoutMs;
  let last = '';
  for (;;) {
    if (o.proc?.hasExited) {
      throw new Error(`lockpick: ${what} exited during startup; log ${o.proc.spec.logFile}:\n${o.proc.logTail()}`);
    }
    try {
      if (await probe()) return;
    } catch (e) {
      last = String((e as Error).message ?? e);
    }
    if (Date.now() > deadline) {
      const tail = o.proc ? `\nlog ${o.proc.spec.logFile}:\n${o.proc.logTail()}` : '';
      throw new Error(`lockpick: ${what} not ready after ${o.timeoutMs} ms${last ? ` (last error: ${last})` : ''}${tail}`);
    }
    await new Promise((r) => setTimeout(r, o.intervalMs ?? 25));
  }
}

/** Spawns a server and waits for its probe; on failure it is killed before the error propagates. */
export async function startAndWait(
  spec: ServerSpec,
  owned: { dir?: string },
  probe: () => Promise<boolean>,
  timeoutMs: number,
): Promise<ServerProcess> {
  const proc = await spawnServer(spec, owned);
  try {
    await waitReady(`${spec.name}`, probe, { timeoutMs, proc });
  } catch (e) {
    await proc.kill();
    throw e;
  }
  return proc;
}
