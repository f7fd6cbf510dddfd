// Semaphores and read-write locks (docs/history-format.md "Semaphores and read-write locks"): the
// fields read the same by every reader, the anomalies each named with every process in them, what
// the mutex has applying per hold (failed releases, leases, stale releases, exposure), the permit
// leak as liveness beside the verdict, and input a model cannot judge refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkHistory } from '../../checkers/index.ts';
import { checkJsonlStreaming } from '../../checkers/stream.ts';
import { LEAK_BOUND_MS } from '../../checkers/permit-sweep.ts';
import type { CheckResult } from '../../checkers/types.ts';
import { readHistory } from '../../src/history/index.ts';
import { readJsonl } from '../../src/history/jsonl.ts';
import { READ_THREAD } from '../../src/history/jsonl-threaded.ts';
import { JSON_PARSE } from '../../src/history/reader-choice.ts';
import { jsonl, tmpHistory } from './history-tmp.ts';

const MS = 1e6;
type Ev = Record<string, unknown>;
/** An op's two events: invoke at t1 ms, completion (type) at t2 ms; extra fields on both (acquire) or as given. */
const op = (p: number, f: string, type: string, t1: number, t2: number, extra: Ev = {}, done: Ev = {}): Ev[] =>
  [{ type: 'invoke', f, process: p, key: 'k', time: t1 * MS, ...extra }, { type, f, process: p, key: 'k', time: t2 * MS, ...extra, ...done }];

/** Both checker paths on one history: the whole-file check and the streaming one must agree; the whole-file result. */
async function check(events: Ev[], model: string): Promise<CheckResult> {
  const file = tmpHistory(jsonl(...[...events].sort((a, b) => (a.time as number) - (b.time as number))));
  const whole = checkHistory(await readHistory(file), { model });
  const { elapsed_ms: _a, check_ms: _b, ...streamed } = await checkJsonlStreaming(file, { model });
  const { elapsed_ms: _c, check_ms: _d, parse_ms: _e, ...w } = whole;
  assert.deepEqual(streamed, w);
  return whole;
}
const types = (r: CheckResult) => r.anomalies.map((a) => a.type).sort();

test('mode, permits and limit reach the ops by every reader: JSON.parse, the byte scanner, the reader thread', async () => {
  const file = tmpHistory(jsonl(
    ...op(0, 'acquire', 'ok', 1, 2, { permits: 2, limit: 3 }),
    ...op(1, 'acquire', 'ok', 3, 4, { mode: 'shared' }),
    ...op(0, 'release', 'ok', 5, 6),
  ));
  const was = { ...JSON_PARSE }, thread = { ...READ_THREAD };
  const seen: unknown[] = [];
  try {
    READ_THREAD.minIdle = -Infinity;
    for (const route of ['json-parse', 'scanner', 'thread'] as const) {
      JSON_PARSE.maxFileBytes = route === 'json-parse' ? Infinity : -1;
      JSON_PARSE.totalBytes = Infinity;
      READ_THREAD.minBytes = route === 'thread' ? 0 : Infinity;
      const h = await readJsonl(file);
      seen.push(h.ops.map((o) => [o.mode, o.permits, o.limit]));
    }
  } finally { Object.assign(JSON_PARSE, was); Object.assign(READ_THREAD, thread); }
  const want = [[undefined, 2, 3], ['shared', undefined, undefined], [undefined, undefined, undefined]];
  for (const s of seen) assert.deepEqual(s, want);
});

test('N holders are valid, N+1 an over-admission naming every holder; a refused acquire is no anomaly', async () => {
  const L = { limit: 2 };
  const ok = await check([...op(0, 'acquire', 'ok', 1, 2, L), ...op(1, 'acquire', 'ok', 3, 4, L), ...op(2, 'acquire', 'fail', 5, 6, L),
    ...op(0, 'release', 'ok', 7, 8), ...op(1, 'release', 'ok', 9, 10)], 'semaphore');
  assert.equal(ok.valid, true, JSON.stringify(ok.anomalies));
  const bad = await check([...op(0, 'acquire', 'ok', 1, 2, L), ...op(1, 'acquire', 'ok', 3, 4, L), ...op(2, 'acquire', 'ok', 5, 6, L),
    ...op(0, 'release', 'ok', 7, 8), ...op(1, 'release', 'ok', 9, 10), ...op(2, 'release', 'ok', 11, 12)], 'semaphore');
  assert.equal(bad.valid, false);
  assert.deepEqual(types(bad), ['over-admission']);
  const a = bad.anomalies[0]!;
  assert.deepEqual([...a.processes].sort(), [0, 1, 2]);
  assert.deepEqual(a.times, [6 * MS, 7 * MS]);
  assert.match(a.message, /3 permits of 2 were held at once by 3 clients/);
});

test('permits count, not holders: a hold of 2 beside one of 1 fills a semaphore of 3; one more is over-admission', async () => {
  const L = { limit: 3 };
  const fits = await check([...op(0, 'acquire', 'ok', 1, 2, { ...L, permits: 2 }), ...op(1, 'acquire', 'ok', 3, 4, L), ...op(0, 'release', 'ok', 5, 6), ...op(1, 'release', 'ok', 7, 8)], 'semaphore');
  assert.equal(fits.valid, true);
  const over = await check([...op(0, 'acquire', 'ok', 1, 2, { ...L, permits: 2 }), ...op(1, 'acquire', 'ok', 3, 4, { ...L, permits: 2 }), ...op(0, 'release', 'ok', 5, 6), ...op(1, 'release', 'ok', 7, 8)], 'semaphore');
  assert.deepEqual(types(over), ['over-admission']);
});

test('rwlock: readers together valid; a writer beside a reader and two writers each named', async () => {
  const R = { mode: 'shared' }, W = { mode: 'exclusive' };
  const readers = await check([...op(0, 'acquire', 'ok', 1, 2, R), ...op(1, 'acquire', 'ok', 3, 4, R), ...op(0, 'release', 'ok', 5, 6), ...op(1, 'release', 'ok', 7, 8)], 'rwlock');
  assert.equal(readers.valid, true);
  const beside = await check([...op(0, 'acquire', 'ok', 1, 2, R), ...op(1, 'acquire', 'ok', 3, 4, R), ...op(2, 'acquire', 'ok', 5, 6, W),
    ...op(2, 'release', 'ok', 7, 8), ...op(0, 'release', 'ok', 9, 10), ...op(1, 'release', 'ok', 11, 12)], 'rwlock');
  assert.deepEqual(types(beside), ['writer-beside-reader']);
  assert.deepEqual([...beside.anomalies[0]!.processes].sort(), [0, 1, 2]);
  const reader = await check([...op(0, 'acquire', 'ok', 1, 2, W), ...op(1, 'acquire', 'ok', 3, 4, R), ...op(0, 'release', 'ok', 5, 6), ...op(1, 'release', 'ok', 7, 8)], 'rwlock');
  assert.deepEqual(types(reader), ['writer-beside-reader']);
  const writers = await check([...op(0, 'acquire', 'ok', 1, 2, W), ...op(1, 'acquire', 'ok', 3, 4), ...op(0, 'release', 'ok', 5, 6), ...op(1, 'release', 'ok', 7, 8)], 'rwlock');
  assert.deepEqual(types(writers), ['writer-beside-writer']);
});

test('per hold as for the mutex: a failed release keeps the permit (the next grant is nonlinearizable); a lease that ran out frees it', async () => {
  const L = { limit: 1 };
  const kept = await check([...op(0, 'acquire', 'ok', 1, 2, L), ...op(0, 'release', 'fail', 3, 4), ...op(1, 'acquire', 'ok', 5, 6, L), ...op(1, 'release', 'ok', 7, 8)], 'semaphore');
  assert.deepEqual(types(kept), ['nonlinearizable']);
  assert.match(kept.anomalies[0]!.message, /release at line 3 failed/);
  const leased = await check([...op(0, 'acquire', 'ok', 1, 2, { ...L, lease_ms: 10 }), ...op(0, 'release', 'fail', 3, 4), ...op(1, 'acquire', 'ok', 20, 21, L), ...op(1, 'release', 'ok', 22, 23)], 'semaphore');
  assert.equal(leased.valid, true, JSON.stringify(leased.anomalies));
});

test('a release ok of a hold the server had dropped is stale; acting past the lease is an exposure', async () => {
  const L = { limit: 1, lease_ms: 10 };
  const stale = await check([...op(0, 'acquire', 'ok', 1, 2, L), ...op(1, 'acquire', 'ok', 20, 21, L), ...op(0, 'release', 'ok', 22, 23), ...op(1, 'release', 'ok', 24, 25)], 'semaphore');
  assert.ok(types(stale).includes('stale-release'), JSON.stringify(stale.anomalies));
  const exposed = await check([...op(0, 'acquire', 'ok', 1, 2, { mode: 'shared', lease_ms: 10 }), ...op(0, 'release', 'ok', 30, 31, {}, { value: { lost: true } })], 'rwlock');
  assert.deepEqual(types(exposed), ['exposure']);
});

test(`a permit leak: refusals only an orphaned hold explains, over ${LEAK_BOUND_MS} ms, are reported but leave the history valid`, async () => {
  const L = { limit: 1 };
  // Process 0's acquire gets no answer (it may hold the one permit for ever: no lease); the others are refused for 1.5 s.
  const refusals = [0, 500, 1000, 1500].flatMap((t, i) => op(10 + i, 'acquire', 'fail', 10 + t, 12 + t, L));
  const leak = await check([...op(0, 'acquire', 'info', 1, 5, L), ...refusals], 'semaphore');
  assert.equal(leak.valid, true);
  assert.deepEqual(types(leak), ['permit-leak']);
  assert.ok(leak.anomalies[0]!.processes.includes(0), 'the orphan is named');
  // Shorter than the bound: nothing; with a lease the orphan ends with it: nothing.
  const short = await check([...op(0, 'acquire', 'info', 1, 5, L), ...refusals.slice(0, 4)], 'semaphore');
  assert.deepEqual(types(short), []);
  const leased = await check([...op(0, 'acquire', 'info', 1, 5, { ...L, lease_ms: 100 }), ...refusals], 'semaphore');
  assert.deepEqual(types(leased), []);
  // A refusal while a live client holds is contention, not a leak.
  const busy = await check([...op(1, 'acquire', 'ok', 0, 1, L), ...op(0, 'acquire', 'info', 1, 5, L), ...refusals, ...op(1, 'release', 'ok', 2000, 2001)], 'semaphore');
  assert.ok(!types(busy).includes('permit-leak'), JSON.stringify(busy.anomalies));
  // A failed release on a leaseless lock leaves the writer's hold behind: readers refused.
  const rw = await check([...op(0, 'acquire', 'ok', 1, 2), ...op(0, 'release', 'fail', 3, 4),
    ...[0, 600, 1200].flatMap((t, i) => op(10 + i, 'acquire', 'fail', 10 + t, 12 + t, { mode: 'shared' }))], 'rwlock');
  assert.equal(rw.valid, true);
  assert.deepEqual(types(rw), ['permit-leak']);
});

test('input a model cannot judge is refused, naming the place and the model to use', async () => {
  const sem = tmpHistory(jsonl(...op(0, 'acquire', 'ok', 1, 2, { limit: 2 }), ...op(1, 'acquire', 'ok', 3, 4, { limit: 3 })));
  const h = await readHistory(sem);
  assert.throws(() => checkHistory(h, { model: 'semaphore' }), /:3: limit-differs: .*"limit": 3, but the acquire at line 1 gave 2/);
  await assert.rejects(checkJsonlStreaming(sem, { model: 'semaphore' }), /:3: limit-differs/);
  assert.throws(() => checkHistory(h, { model: 'mutex' }), /not-a-mutex-hold[\s\S]*--model semaphore/);
  const reader = await readHistory(tmpHistory(jsonl(...op(0, 'acquire', 'ok', 1, 2, { mode: 'shared' }))));
  assert.throws(() => checkHistory(reader, { model: 'semaphore' }), /--model rwlock/);
  assert.throws(() => checkHistory(reader, { model: 'fenced-mutex' }), /not-a-mutex-hold[\s\S]*--model rwlock/);
  await assert.rejects(readHistory(tmpHistory(jsonl(...op(0, 'release', 'ok', 1, 2, { permits: 1 })))), /bad-permits/);
  await assert.rejects(readHistory(tmpHistory(jsonl(...op(0, 'acquire', 'ok', 1, 2, { limit: 2 }, { limit: 3 })))), /:2: completion-mismatch: .*"limit"/);
});
