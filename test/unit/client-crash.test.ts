// A client crash: whose code threw it (src/runner/crash-origin.ts), and the client-crash anomaly
// the checker makes of the runner's record (checkers/crash.ts): the fault that preceded it, where
// the client was, and a crash of lockpick's own code never blamed on the lock. Every check path
// (in memory, on threads, streamed from a file) finds it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { crashOrigin, frameFile, PACKAGE_ROOT, stackHead } from '../../src/runner/crash-origin.ts';
import { crashAnomalies } from '../../checkers/crash.ts';
import { checkHistory } from '../../checkers/index.ts';
import { checkHistoryOnThreads } from '../../checkers/threads.ts';
import { checkJsonlStreaming } from '../../checkers/stream.ts';
import { HistoryBuilder } from '../../src/history/index.ts';
import type { HistoryEvent } from '../../src/history/types.ts';
import { formatResult } from '../../src/report/text.ts';
import { explainAnomalies } from '../../src/report/cause.ts';
import { toJsonl } from '../support/history.ts';
import { tmpHistory } from './history-tmp.ts';

const ROOT = '/opt/lockpick';
const at = (file: string, fn = 'f') => `    at ${fn} (${file}:10:5)`;
const stack = (...frames: string[]) => ['Error: boom', ...frames].join('\n');

test('crash origin: the topmost frame of anyone\'s own code says who threw', () => {
  // A client library's socket handler (node-redis, emitting 'error' with no listener).
  assert.equal(crashOrigin(stack(at('/app/node_modules/@redis/client/dist/lib/client/socket.js'), at('node:events', 'Socket.emit'),
    at(`${ROOT}/src/runner/io-points.ts`, 'Socket.proto.emit'), at('node:net', 'TCP.<anonymous>')), ROOT), 'lock');
  // Node's own socket error with no listener: no frame of anyone's code; the server sockets are the lock's.
  assert.equal(crashOrigin(stack(at('node:internal/stream_base_commons', 'TCP.onStreamRead')), ROOT), 'lock');
  assert.equal(crashOrigin(undefined, ROOT), 'lock', 'a rejection with a non-Error');
  // A user's module anywhere (even under lockpick's own tree, as test fixtures are), and a built-in recipe.
  assert.equal(crashOrigin(stack(at(`${ROOT}/test/fixtures/locks/x.ts`), at(`${ROOT}/src/runner/worker.ts`)), ROOT), 'lock');
  assert.equal(crashOrigin(stack(at(pathToFileURL(`${ROOT}/src/locks/redis-set-px.ts`).href)), ROOT), 'lock');
  // lockpick's own worker code, the same with file URLs and async frames; and a built copy (dist keeps the layout).
  assert.equal(crashOrigin(stack(at('node:internal/timers', 'listOnTimeout'), at(`${ROOT}/src/runner/worker.ts`, 'Client.attempt')), ROOT), 'lockpick');
  assert.equal(crashOrigin(stack(`    at async Client.acquire (${pathToFileURL(`${ROOT}/src/runner/resource-store.ts`).href}:3:4)`), ROOT), 'lockpick');
  assert.equal(crashOrigin(stack(at(`${ROOT}/dist/checkers/holds.js`)), `${ROOT}/dist`), 'lockpick');
  // The pass-through hooks are skipped: what they called into decides.
  assert.equal(crashOrigin(stack(at(`${ROOT}/src/runner/io-points.ts`, 'Socket.proto.write'), at(`${ROOT}/src/runner/worker.ts`)), ROOT), 'lockpick');
  assert.equal(crashOrigin(stack(at(`${ROOT}/src/runner/skewed-clock.ts`), at('/app/node_modules/redlock/dist/index.js')), ROOT), 'lock');
  // A late timer's deferral (late-timers.ts) wraps the lock's own callback: below it, the timers' internals, then the lock.
  assert.equal(crashOrigin(stack(at(`${ROOT}/src/runner/late-timers.ts`, 'Timeout.deferred'), at('/app/node_modules/redis/dist/index.js')), ROOT), 'lock');
  // A reply or write lockpick held at an I/O point and hands on later (a drain): lockpick's doing,
  // even when the library threw on it, and even below the library's frames.
  const held = [at('/app/node_modules/@redis/client/dist/lib/client/RESP2/decoder.js', 'Decoder.write'), at('node:events', 'Socket.emit')];
  assert.equal(crashOrigin(stack(...held, at(`${ROOT}/src/runner/io-points.ts`, 'drainIn'), at('node:internal/process/task_queues', 'process.processTicksAndRejections')), ROOT), 'lockpick');
  assert.equal(crashOrigin(stack(at('node:internal/streams/writable', 'writeAfterEnd'), `    at async drainOut (${pathToFileURL(`${ROOT}/src/runner/io-points-http2.ts`).href}:80:7)`), ROOT), 'lockpick');
  assert.equal(crashOrigin(stack(...held, at(`${ROOT}/src/runner/io-points.ts`, 'Socket.proto.emit'), at('node:net', 'TCP.<anonymous>')), ROOT), 'lock', 'a reply handed on at once');
});

test('crash origin: frames read as Node writes them; the package root is this checkout', () => {
  assert.equal(frameFile('    at Socket.emit (node:events:524:28)'), 'node:events');
  assert.equal(frameFile(`    at async ${pathToFileURL('/a/b.ts').href}:1:2`), '/a/b.ts');
  assert.equal(frameFile('    at new Promise (<anonymous>)'), undefined);
  assert.ok(existsSync(path.join(PACKAGE_ROOT, 'src', 'runner', 'worker.ts')), PACKAGE_ROOT);
  const long = stack(...Array.from({ length: 20 }, (_, i) => at(`/x/${i}.js`)));
  assert.equal(stackHead(long).split('\n').length, 7, 'the error line and six frames');
});

const crashEvent = (over: Record<string, unknown> = {}): HistoryEvent => ({
  type: 'info', f: 'client-crash', process: 'nemesis', time: 900e6,
  value: { client: 'c1', process: 0, during: 'holding', key: 'k', origin: 'lock', error: 'Error: Socket closed unexpectedly', stack: 'Error: Socket closed unexpectedly\n    at Socket.<anonymous> (/app/node_modules/@redis/client/socket.js:1:1)', ...over },
});

/** c1 holds k; a partition of c1 starts (a step, then its start record); c1 crashes; its lapse; c2 acquires after. */
function crashedRun(crash: HistoryEvent = crashEvent()): HistoryEvent[] {
  return [
    { type: 'info', f: 'run-start', process: 'nemesis', value: { run: 1 }, time: 0 },
    { type: 'info', f: 'kill-start', process: 'nemesis', value: { id: 'f0', target: 'n2' }, time: 10e6 },
    { type: 'invoke', f: 'acquire', process: 0, key: 'k', client: 'c1', time: 100e6 },
    { type: 'ok', f: 'acquire', process: 0, key: 'k', time: 110e6, lease_ms: 800 },
    { type: 'info', f: 'partition-step', process: 'nemesis', value: { id: 'f1', step: 'c1 cut off from n1' }, time: 800e6 },
    { type: 'info', f: 'partition-start', process: 'nemesis', value: { id: 'f1', target: 'client:c1' }, time: 850e6 },
    crash,
    { type: 'invoke', f: 'release', process: 0, key: 'k', client: 'c1', time: 901e6 },
    { type: 'ok', f: 'release', process: 0, key: 'k', value: { lapse: true }, error: 'the client process died', time: 901e6 },
    { type: 'invoke', f: 'acquire', process: 1, key: 'k', client: 'c2', time: 950e6 },
    { type: 'ok', f: 'acquire', process: 1, key: 'k', time: 960e6, lease_ms: 800 },
    { type: 'invoke', f: 'release', process: 1, key: 'k', client: 'c2', time: 970e6 },
    { type: 'ok', f: 'release', process: 1, key: 'k', time: 980e6 },
  ];
}

function parsed(events: HistoryEvent[]) {
  const b = new HistoryBuilder('run');
  events.forEach((e, i) => b.add(e, i + 1));
  return b.finish();
}

test('client-crash: the client, where it was, the error and its stack, and the latest fault start or step before it', () => {
  const [a, ...more] = crashAnomalies(parsed(crashedRun()).nemesis);
  assert.equal(more.length, 0);
  assert.equal(a!.type, 'client-crash');
  assert.equal(a!.key, 'k');
  assert.deepEqual(a!.processes, [0]);
  assert.deepEqual(a!.lines, [7]);
  assert.equal(a!.crash!.during, 'holding');
  assert.match(a!.crash!.stack ?? '', /node_modules\/@redis/);
  // The partition's start record (line 6) is the latest before the crash, not the kill of another node.
  assert.deepEqual({ kind: a!.crash!.fault!.kind, line: a!.crash!.fault!.line }, { kind: 'partition', line: 6 });
  assert.match(a!.message, /c1's process crashed while holding the lock at 0\.900 s, after partition of client:c1 \(line 6\): Error: Socket closed unexpectedly/);
  // Crashed inside an operation, before any fault of its run (the fault of the run before does not count).
  const during = [
    { type: 'info', f: 'run-start', process: 'nemesis', value: { run: 2 }, time: 0 },
    { type: 'invoke', f: 'acquire', process: 0, key: 'k', client: 'c1', time: 1e6 },
    crashEvent({ during: 'acquire' }),
  ] as HistoryEvent[];
  const [b] = crashAnomalies(parsed([...crashedRun().slice(0, 6), ...during]).nemesis);
  assert.equal(b!.crash!.fault, undefined);
  assert.match(b!.message, /crashed during its acquire .*, with no fault before it/);
  // A start that began before the crash and was recorded after it (the cut closed the connection
  // before the cut's record was written) preceded it; one that began after it did not.
  const late = (began: number) => [...crashedRun().slice(0, 4), crashEvent({ during: 'holding' }),
    { type: 'info', f: 'partition-start', process: 'nemesis', value: { id: 'f1', target: 'client:c1', began }, time: 950e6 }] as HistoryEvent[];
  const [c] = crashAnomalies(parsed(late(880e6)).nemesis);
  assert.deepEqual({ kind: c!.crash!.fault!.kind, line: c!.crash!.fault!.line }, { kind: 'partition', line: 6 });
  assert.match(c!.message, /crashed while holding the lock at 0\.900 s, after partition of client:c1 \(line 6\)/);
  assert.equal(crashAnomalies(parsed(late(920e6)).nemesis)[0]!.crash!.fault!.kind, 'kill', 'the kill of n2 before it');
  const [d] = crashAnomalies(parsed([...during, { type: 'info', f: 'partition-start', process: 'nemesis', value: { id: 'f1', began: 901e6 }, time: 950e6 }] as HistoryEvent[]).nemesis);
  assert.equal(d!.crash!.fault, undefined, 'a start begun after the crash');
  // A step with no start record yet is the fault that preceded it too, in its own words.
  const stepOnly = crashedRun().filter((e) => e.f !== 'partition-start');
  assert.match(crashAnomalies(parsed(stepOnly).nemesis)[0]!.message, /after partition: c1 cut off from n1 \(line 5\)/);
});

test("client-crash: lockpick's own crash is no anomaly of the lock; a lock's crash makes the check invalid on every path, with no double holder", async () => {
  const mine = crashedRun(crashEvent({ origin: 'lockpick' }));
  assert.deepEqual(crashAnomalies(parsed(mine).nemesis), []);
  assert.equal(checkHistory(parsed(mine), { model: 'mutex' }).valid, true);

  const events = crashedRun();
  const results = [
    checkHistory(parsed(events), { model: 'mutex' }),
    await checkHistoryOnThreads(parsed(events), { model: 'mutex' }),
    await checkJsonlStreaming(tmpHistory(toJsonl(events)), { model: 'mutex' }),
  ];
  for (const r of results) {
    assert.equal(r.valid, false);
    assert.deepEqual(r.anomalies.map((x) => x.type), ['client-crash']);
  }
  // The text report shows the stack under the anomaly.
  assert.match(formatResult('h.jsonl', results[0]!), /client-crash on key "k": .*\n(.*\n)*\s+stack:\n\s+Error: Socket closed unexpectedly\n\s+at Socket.<anonymous>/);
});

test('client-crash: its cause is the fault overlapping it, else the last fault before it', () => {
  const h = parsed(crashedRun());
  const [a] = crashAnomalies(h.nemesis);
  const clients = new Map([[0, 'c1'], [1, 'c2']]);
  // The partition of c1 is still on at the crash: said as a client fault, where c1 was.
  assert.match(explainAnomalies(h, [a!], clients)[0]!, /^c1 \(process 0\) .* while it held the lock/);
  // Healed before the crash: the last fault before it, in its words.
  const healed = crashedRun();
  healed.splice(6, 0, { type: 'info', f: 'partition-stop', process: 'nemesis', value: { id: 'f1', target: 'client:c1' }, time: 870e6 });
  const h2 = parsed(healed);
  assert.equal(explainAnomalies(h2, crashAnomalies(h2.nemesis), clients)[0], 'partition of client:c1 from 0.850 s (line 6), the last fault before the crash');
});
