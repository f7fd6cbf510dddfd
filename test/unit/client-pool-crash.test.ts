// The pool ends a crashed client's beliefs on the worker's own last message ('crash'), not on
// the exit notice that follows; a crash of the lock's code is recorded for the checker (the
// client-crash anomaly) and is no failure of the run; a crash of lockpick's own code is one
// (the run inconclusive), never blamed on the lock. Driven by a scripted worker: no process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { fork } from 'node:child_process';
import path from 'node:path';
import { ClientPool } from '../../src/runner/clients.ts';
import { Recorder } from '../../src/runner/recorder.ts';
import type { FromWorker, RunJob, ToWorker } from '../../src/runner/protocol.ts';
import type { HistoryEvent } from '../../src/history/types.ts';
import { tempDir } from '../support/temp-dir.ts';

/** A worker that acquires 'k' once it is started, then crashes (origin) and exits 70 a little later. */
function scriptedFork(origin: 'lock' | 'lockpick', recorder: Recorder, seen: { atExit?: readonly HistoryEvent[] }): typeof fork {
  return (() => {
    const child = Object.assign(new EventEmitter(), {
      pid: undefined, connected: true,
      kill: () => true,
      send(m: ToWorker) {
        const say = (x: FromWorker) => setImmediate(() => child.emit('message', x));
        if (m.t === 'run') say({ t: 'prepared', run: m.run });
        if (m.t === 'start') say({ t: 'invoke', seq: 1, f: 'acquire', key: 'k' });
        if (m.t === 'ack') {
          say({ t: 'complete', type: 'ok', f: 'acquire', key: 'k' });
          say({ t: 'crash', error: 'Error: Socket closed unexpectedly\n    at Socket.<anonymous> (/app/node_modules/x.js:1:1)', origin });
          setTimeout(() => {
            seen.atExit = [...recorder.runEvents()];
            child.connected = false;
            child.emit('exit', 70, null);
          }, 30);
        }
        return true;
      },
    });
    setImmediate(() => child.emit('message', { t: 'ready' }));
    return child;
  }) as unknown as typeof fork;
}

async function crashRun(origin: 'lock' | 'lockpick') {
  const recorder = new Recorder(path.join(tempDir('lockpick-pool-crash-'), 'history.jsonl'));
  const seen: { atExit?: readonly HistoryEvent[] } = {};
  const pool = new ClientPool(recorder, scriptedFork(origin, recorder, seen));
  const job = { t: 'run', run: 1, clientId: 'c1', attempts: [] } as unknown as RunJob;
  recorder.beginRun();
  try {
    const report = await pool.run([job], [], 5000, 1000);
    return { report, events: recorder.endRun(), atExit: seen.atExit! };
  } finally {
    await pool.close();
    recorder.close();
  }
}

const shape = (e: HistoryEvent) => `${e.f}:${e.type}`;

test("pool: a crash of the lock's code ends the client's belief on the crash message, before its exit, and is recorded for the checker", async () => {
  const { report, events, atExit } = await crashRun('lock');
  const want = ['acquire:invoke', 'acquire:ok', 'client-crash:info', 'release:invoke', 'release:ok'];
  // Already recorded when the exit came: the lapse follows the crash, not the exit notice.
  assert.deepEqual(atExit.map(shape), want);
  assert.deepEqual(events.map(shape), want);
  const crash = events[2]!.value as Record<string, unknown>;
  assert.deepEqual({ client: crash.client, process: crash.process, during: crash.during, key: crash.key, origin: crash.origin },
    { client: 'c1', process: 0, during: 'holding', key: 'k', origin: 'lock' });
  assert.match(String(crash.stack), /node_modules\/x\.js/);
  assert.deepEqual(events[4]!.value, { lapse: true });
  // The lock's crash is the run's finding, not a failure of the run.
  assert.deepEqual(report.crashes, []);
  assert.deepEqual(report.errors, []);
});

test("pool: a crash of lockpick's own code still ends the belief, but is a problem of the run (inconclusive), not the lock's", async () => {
  const { report, events } = await crashRun('lockpick');
  assert.deepEqual(events.map(shape), ['acquire:invoke', 'acquire:ok', 'client-crash:info', 'release:invoke', 'release:ok']);
  assert.equal((events[2]!.value as { origin: string }).origin, 'lockpick');
  assert.equal(report.crashes.length, 1);
  assert.match(report.crashes[0]!, /client c1 crashed \(in lockpick's own worker code\): Error: Socket closed/);
  assert.match(report.errors.join('\n'), /c1: client c1 exited \(code 70\)/);
});
