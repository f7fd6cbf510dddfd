// test-lane: beside (starts no server)
// A big --clients starts in batches: the pool forks at most 8 workers at a time (each a node
// process loading tsx and lockpick), never all at once. Seen at the fork itself: a fork is in
// flight from the call until its worker's first message ('ready').
import { tempDir } from '../support/temp-dir.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fork, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { ClientPool } from '../../src/runner/clients.ts';
import { Recorder } from '../../src/runner/recorder.ts';
import { isRunning } from '../../src/env/procfs.ts';

test('--clients 20: all 20 workers start, never more than 8 forks in flight', async () => {
  const dir = tempDir('lockpick-pool-');
  const recorder = new Recorder(path.join(dir, 'history.jsonl'));
  let inFlight = 0;
  let most = 0;
  const children: ChildProcess[] = [];
  const counted = ((...args: Parameters<typeof fork>) => {
    const child = fork(...args);
    children.push(child);
    most = Math.max(most, ++inFlight);
    let landed = false;
    const land = () => { if (!landed) { landed = true; inFlight--; } };
    child.once('message', land);
    child.once('exit', land);
    return child;
  }) as typeof fork;
  const pool = new ClientPool(recorder, counted);
  const ids = Array.from({ length: 20 }, (_, i) => `c${i + 1}`);
  try {
    await pool.ensure(ids);
    assert.equal(children.length, 20, 'one fork per client');
    assert.equal(inFlight, 0, 'every worker said it is ready');
    assert.ok(most <= 8, `${most} forks were in flight at once`);
    assert.equal(most, 8, 'a batch forks 8 at once (not one by one)');
    assert.equal(children.filter((c) => isRunning(c.pid!)).length, 20, 'all 20 workers are alive');
    // Live workers are reused: asking again forks nothing.
    await pool.ensure(ids);
    assert.equal(children.length, 20);
  } finally {
    await pool.close();
    recorder.close();
  }
  assert.equal(children.filter((c) => isRunning(c.pid!)).length, 0, 'close() stops them all');
});
