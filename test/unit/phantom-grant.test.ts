// An acquire ok while its client was cut off from every server, from before its invoke to after
// its ok (checkers/phantom-grant.ts): no server can have granted it. Judged the same by every
// check path; not where the heal may have begun first, nor without the heal's start, nor under a
// reentrant model.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkHistory } from '../../checkers/index.ts';
import { loadBackends } from '../../checkers/backends.ts';
import { checkHistoryOnThreads } from '../../checkers/threads.ts';
import { checkJsonlStreaming } from '../../checkers/stream.ts';
import { HistoryBuilder } from '../../src/history/index.ts';
import type { HistoryEvent } from '../../src/history/types.ts';
import { toJsonl } from '../support/history.ts';
import { tmpHistory } from './history-tmp.ts';

await loadBackends();   // the run-start names its backend, as a run's does

const ms = 1e6;
const op = (type: HistoryEvent['type'], f: string, process: number, t: number, value?: unknown): HistoryEvent =>
  ({ type, f, process, key: 'k', time: t * ms, ...(value !== undefined ? { value } : {}) });
const nem = (f: string, t: number, value: Record<string, unknown>): HistoryEvent => ({ type: 'info', f, process: 'nemesis', time: t * ms, value });

/** Process 0 holds and releases; process 1 is cut off from `cut` ms and its heal begins at `healBegan` (recorded at healRecord). */
function history(o: { cut: number; invoke: number; ok: number; healBegan?: number; healRecord?: number; outcome?: 'ok' | 'fail' }): HistoryEvent[] {
  const events: [number, HistoryEvent][] = [
    [0, nem('run-start', 0, { run: 1, lock: 'x', backend: 'redis' })],
    [1, op('invoke', 'acquire', 0, 1)], [2, op('ok', 'acquire', 0, 2)], [3, op('invoke', 'release', 0, 3)], [4, op('ok', 'release', 0, 4)],
    [o.cut, nem('partition-start', o.cut, { id: 'f1', target: 'client:c2', silenced: ['c2'], silenced_processes: [1], cut_off: ['c2'], cut_off_processes: [1] })],
    [o.invoke, op('invoke', 'acquire', 1, o.invoke)],
    [o.ok, op(o.outcome ?? 'ok', 'acquire', 1, o.ok)],
  ];
  if (o.healRecord !== undefined) events.push([o.healRecord, nem('partition-stop', o.healRecord, { id: 'f1', target: 'client:c2', ...(o.healBegan !== undefined ? { began: o.healBegan * ms } : {}) })]);
  return events.sort((a, b) => a[0] - b[0]).map(([, e]) => e);
}

function parsed(events: HistoryEvent[]) {
  const b = new HistoryBuilder('h.jsonl');
  events.forEach((e, i) => b.add(e, i + 1));
  return b.finish();
}

/** The phantom grants each check path finds (they must agree). */
async function phantoms(events: HistoryEvent[], model = 'mutex'): Promise<string[]> {
  const results = [checkHistory(parsed(events), { model }), await checkHistoryOnThreads(parsed(events), { model }), await checkJsonlStreaming(tmpHistory(toJsonl(events)), { model })];
  const found = results.map((r) => r.anomalies.filter((a) => a.type === 'phantom-grant').map((a) => a.message));
  assert.deepEqual(found[1], found[0], 'threads and in-memory differ');
  assert.deepEqual(found[2], found[0], 'streaming and in-memory differ');
  return found[0]!;
}

test('an acquire invoked and answered ok inside a cut of all its client\'s links: phantom-grant, a violation', async () => {
  const events = history({ cut: 100, invoke: 200, ok: 300, healBegan: 400, healRecord: 410 });
  const [m, ...more] = await phantoms(events);
  assert.equal(more.length, 0);
  assert.equal(m, 'process 1\'s acquire of lock "k" at line 7 returned ok at line 8, while every link of its client to the servers was cut (partition from line 6, healed at line 9): no request of it reached a server, so no server granted it; the lock answered held on its own (an error or a timeout read as success, or a cached state taken for the server\'s word)');
  assert.equal(checkHistory(parsed(events), { model: 'mutex' }).valid, false);
  // Never healed in the history: the cut lasts to its end.
  assert.equal((await phantoms(history({ cut: 100, invoke: 200, ok: 300 }))).length, 1);
  // A semaphore's acquires come from the servers too.
  assert.equal((await phantoms(events.map((e) => (e.f === 'acquire' ? { ...e, permits: 1, limit: 2 } : e)), 'semaphore')).length, 1);
});

test('no phantom grant where a server may have answered, or where the history cannot say', async () => {
  // Invoked before the cut: its request may have gone out and its grant come back in time.
  assert.deepEqual(await phantoms(history({ cut: 150, invoke: 100, ok: 300, healBegan: 400, healRecord: 410 })), []);
  // Answered after the heal began, though before its record.
  assert.deepEqual(await phantoms(history({ cut: 100, invoke: 200, ok: 405, healBegan: 400, healRecord: 410 })), []);
  // A stop with no `began` (another tool's history): when the links came back is unknown.
  assert.deepEqual(await phantoms(history({ cut: 100, invoke: 200, ok: 300, healRecord: 410 })), []);
  // A busy answer is no grant.
  assert.deepEqual(await phantoms(history({ cut: 100, invoke: 200, ok: 300, healBegan: 400, healRecord: 410, outcome: 'fail' })), []);
  // A reentrant lock may answer a re-entry from its own count.
  assert.deepEqual(await phantoms(history({ cut: 100, invoke: 200, ok: 300, healBegan: 400, healRecord: 410 }), 'reentrant-mutex'), []);
  // A silence that is not a cut (a pause, a keep-alive cut of one connection): nothing to judge.
  const paused = history({ cut: 100, invoke: 200, ok: 300, healBegan: 400, healRecord: 410 })
    .map((e) => (e.f === 'partition-start' ? { ...e, value: { id: 'f1', silenced: ['c2'], silenced_processes: [1] } } : e));
  assert.deepEqual(await phantoms(paused), []);
});

test('a client whose process began after the cut (its first invoke of the run, its next after an info) joins it: judged from its joining on', async () => {
  const events = history({ cut: 100, invoke: 200, ok: 300, healBegan: 400, healRecord: 410 }).flatMap((e) => {
    if (e.f === 'partition-start') return [{ ...e, value: { id: 'f1', target: 'n1', silenced: ['c2'], cut_off: ['c2'] } }];   // no process yet
    if (e.f === 'acquire' && e.type === 'invoke' && e.process === 1) return [nem('joined-fault', 199, { kind: 'partition', id: 'f1', client: 'c2', process: 1, silenced_processes: [1], cut_off_processes: [1] }), e];
    return [e];
  });
  const [m, ...more] = await phantoms(events);
  assert.equal(more.length, 0);
  assert.match(m!, /^process 1's acquire of lock "k" at line 8 returned ok at line 9, while every link of its client to the servers was cut \(partition from line 6, healed at line 10\)/);
  // A join to no fault begun (its start unknown) is not judged.
  assert.deepEqual(await phantoms(events.filter((e) => e.f !== 'partition-start')), []);
});
