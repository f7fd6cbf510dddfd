// A graceful stop (ServerProcess.terminate, under NodeHandle.kill({ signal: 'SIGTERM' })): a
// process that handles SIGTERM exits on it; one that ignores it is ended by SIGKILL once the
// bound runs out, and says so (`forced`), so a fault records what really stopped the server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { spawnServer } from '../../src/env/spawn.ts';
import { tempDir } from '../support/temp-dir.ts';

async function shell(script: string) {
  const dir = tempDir('lockpick-stop-');
  const p = await spawnServer({ name: 'sh stop-test', command: '/bin/sh', args: ['-c', script], cwd: dir, logFile: path.join(dir, 'log') });
  await new Promise((r) => setTimeout(r, 200)); // let the shell set its trap
  return p;
}

test('SIGTERM: a server that handles it stops by itself within the bound, even a paused one (SIGCONT follows)', async () => {
  const p = await shell('trap "exit 0" TERM; while :; do sleep 0.05; done');
  p.signal('SIGSTOP');
  const t0 = Date.now();
  assert.deepEqual(await p.terminate('SIGTERM', 5000), { forced: false });
  assert.ok(Date.now() - t0 < 4000);
  assert.equal(p.hasExited, true);
});

test('SIGTERM: a server that ignores it is killed when the bound runs out (forced)', async () => {
  const p = await shell('trap "" TERM; while :; do sleep 0.05; done');
  const t0 = Date.now();
  assert.deepEqual(await p.terminate('SIGTERM', 300), { forced: true });
  assert.ok(Date.now() - t0 >= 290);
  assert.equal((await p.exited).signal, 'SIGKILL');
});
