// A timed client-kill (no anchor point) through the nemesis: the target process
// really dies (SIGKILL), start and stop are recorded, the others live on, and
// the dead client is no longer a target.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { processClients, runSchedule, type NemesisContext } from '../../nemesis/index.ts';
import type { Environment } from '../../src/env/types.ts';

const children: ChildProcess[] = [];
after(() => { for (const c of children) c.kill('SIGKILL'); });

test('client-kill at 50 ms: c1 dies by SIGKILL, c2 lives, start and stop are recorded', async () => {
  const pids = new Map<string, number>();
  for (const id of ['c1', 'c2']) {
    const c = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    children.push(c);
    pids.set(id, c.pid!);
  }
  const exited = once(children[0]!, 'exit');
  const env = { topology: 'redis', nodes: [], links: [], proxyUrl: '', node: () => { throw new Error('no nodes'); }, clientEndpoints: async () => [], down: async () => {} } as unknown as Environment;
  const events: string[] = [];
  const ctx: NemesisContext = { env, clients: processClients(pids), record: (f) => events.push(f) };
  await runSchedule([{ kind: 'client-kill', at_ms: 50, target: 'c1' }], ctx, undefined, { runMs: 300 });
  const [, signal] = await exited;
  assert.equal(signal, 'SIGKILL');
  assert.equal(children[1]!.exitCode, null, 'c2 still runs');
  assert.deepEqual(events, ['client-kill-start', 'client-kill-stop']);
  assert.deepEqual(ctx.clients.ids(), ['c2']);
});
