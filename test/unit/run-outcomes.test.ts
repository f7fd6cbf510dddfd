// Every outcome counted and named (issue 41): operations by outcome, errors grouped by message,
// acquire errors under a fault (explained) or not, and the gate that keeps a search whose lock
// raised on many acquires from a bare SAFE. Pure logic on hand-written events.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { HistoryEvent } from '../../src/history/types.ts';
import { addOutcomes, describeOutcomes, emptyOutcomes, errorGaps, errorWords, opOutcomes, outcomeProperties, runOutcomes } from '../../src/report/outcomes.ts';
import { addRun, describeCoverage, emptyCoverage, gaps } from '../../src/runner/coverage.ts';
import { sumCoverage } from '../../src/runner/merge.ts';
import { HistoryBuilder } from '../../src/history/build.ts';
import type { RunOutcome } from '../../src/runner/session.ts';

const ms = 1e6;
/** An operation of process p (client c) from t0 to t1 ms; error on its completion when given. */
function op(p: number, c: string, f: string, t0: number, t1: number | undefined, type: 'ok' | 'fail' | 'info', error?: string, value?: unknown): HistoryEvent[] {
  const inv: HistoryEvent = { type: 'invoke', f, process: p, key: 'r1-k0', client: c, time: t0 * ms };
  if (t1 === undefined) return [inv];
  return [inv, { type, f, process: p, key: 'r1-k0', time: t1 * ms, ...(error ? { error } : {}), ...(value !== undefined ? { value } : {}) }];
}
const nem = (f: string, t: number, value: Record<string, unknown>): HistoryEvent => ({ type: 'info', f, process: 'nemesis', time: t * ms, value });
/** Events in time order, as the recorder writes them. */
const sorted = (...evs: HistoryEvent[][]): HistoryEvent[] => evs.flat().sort((a, b) => (a.time ?? 0) - (b.time ?? 0));

const TYPE_ERROR = "acquire: TypeError: unsupported operand type(s) for +: 'NoneType' and 'int'";

test('outcomes: each kind counted by how it ended; a lapse is no release; an operation left open is unknown', () => {
  const o = runOutcomes(sorted(
    op(0, 'c1', 'acquire', 0, 5, 'ok'), op(0, 'c1', 'release', 10, 12, 'ok'),
    op(1, 'c2', 'acquire', 1, 3, 'fail'),                                    // busy: a definite no, no error
    op(2, 'c2', 'acquire', 4, 6, 'info', TYPE_ERROR),
    op(3, 'c3', 'acquire', 20, 22, 'ok'), op(3, 'c3', 'renew', 23, 24, 'fail', 'renew certainly failed: lost'),
    op(3, 'c3', 'release', 30, 31, 'ok', 'the client process died', { lapse: true }),
    op(4, 'c1', 'acquire', 40, undefined, 'info'),                          // never answered
  ));
  assert.deepEqual(o.ops, { acquire: { ok: 2, fail: 1, info: 2 }, release: { ok: 1, fail: 0, info: 0 }, renew: { ok: 0, fail: 1, info: 0 } });
  assert.deepEqual(o.errors, { "TypeError: unsupported operand type(s) for +: 'NoneType' and 'int'": 1, 'renew certainly failed: lost': 1 });
  assert.equal(o.unexplained, 1);   // the acquire's error, no fault in the run; a renew's error is not an acquire's
  assert.equal(o.underFault, 0);
  // From a parsed history (lockpick report): the same counts, no messages.
  const b = new HistoryBuilder('t');
  sorted(op(0, 'c1', 'acquire', 0, 5, 'ok'), op(1, 'c2', 'acquire', 1, 3, 'info', TYPE_ERROR), op(0, 'c1', 'release', 10, 12, 'ok', undefined, { lapse: true })).forEach((e, i) => b.add(e, i + 1));
  assert.deepEqual(opOutcomes(b.finish().ops).ops, { acquire: { ok: 1, fail: 0, info: 1 } });
});

test('errorWords: equal messages group (ids, keys and numbers as N); the first line, bounded', () => {
  assert.equal(errorWords("acquire: timeout after 512 ms on r12-k0", 'acquire'), 'timeout after N ms on rN-kN');
  assert.equal(errorWords("acquire: timeout after 7 ms on r3-k1", 'acquire'), errorWords("acquire: timeout after 512 ms on r12-k0", 'acquire'));
  assert.equal(errorWords('token 9f86d081884c7d65 mismatch (lease 3f2a1b4c-0d9e-4c8b-a1f2-0123456789ab)'), 'token ID mismatch (lease ID)');
  assert.equal(errorWords('Error: boom\n    at foo (x.js:1:2)'), 'Error: boom');
  assert.equal(errorWords('release: x', 'acquire'), 'release: x');   // only the operation's own prefix goes
  const long = errorWords(`TypeError: ${'x'.repeat(400)}`);
  assert.equal(long.length, 160);
  assert.ok(long.endsWith('…'));
  assert.equal(errorWords('   \n'), '(no message)');
});

test('explained or not: a fault on the client or every client while the acquire ran explains its error', () => {
  const pause = [nem('client-pause-start', 100, { id: 1, target: 'c1', clients: ['c1'] }), nem('client-pause-stop', 200, { id: 1, target: 'c1' })];
  const o = runOutcomes(sorted(pause,
    op(0, 'c1', 'acquire', 150, 260, 'info', 'acquire: Timeout'),   // paused during it: explained
    op(1, 'c2', 'acquire', 150, 160, 'info', 'acquire: Timeout'),   // c2 was not paused: unexplained
    op(2, 'c1', 'acquire', 1300, 1310, 'info', 'acquire: Timeout'),   // over 1 s after the stop: unexplained
    op(3, 'c1', 'acquire', 50, 90, 'fail', 'acquire certainly failed: no route'), // before the start: unexplained
    op(4, 'c1', 'acquire', 300, 310, 'info', 'acquire: reconnecting'),   // just after the heal (a reconnect's backoff): explained
  ));
  assert.equal(o.underFault, 2);
  assert.equal(o.unexplained, 3);
  assert.deepEqual(o.unexplainedErrors, { Timeout: 2, 'acquire certainly failed: no route': 1 });
  // `began`: the fault started touching before its start record (a cut closes connections first).
  const early = runOutcomes(sorted([nem('partition-start', 100, { id: 2, target: 'client:c2', began: 80 * ms }), nem('partition-stop', 200, { id: 2 })],
    op(1, 'c2', 'acquire', 70, 85, 'info', 'acquire: ECONNRESET')));
  assert.equal(early.underFault, 1);
  // A fault naming no client (a server killed, servers partitioned) touches every client while it lasts; unhealed, until the end.
  const server = runOutcomes(sorted([nem('kill-start', 100, { id: 3, target: 'n1', node: 'n1' })],
    op(0, 'c1', 'acquire', 500, 510, 'info', 'acquire: ECONNREFUSED'), op(1, 'c2', 'acquire', 90, 95, 'info', 'acquire: ECONNREFUSED')));
  assert.equal(server.underFault, 1);
  assert.equal(server.unexplained, 1);
  // A grudge that cuts only c1's links explains c1's errors; one that also cuts servers apart explains everyone's.
  const grudge = (g: string) => [nem('partition-start', 100, { id: 4, target: 'grudge', params: { grudge: g } }), nem('partition-stop', 200, { id: 4 })];
  const clientsOnly = runOutcomes(sorted(grudge('c1:n1,n2'), op(0, 'c1', 'acquire', 120, 130, 'info', 'x'), op(1, 'c2', 'acquire', 120, 130, 'info', 'x')));
  assert.deepEqual([clientsOnly.underFault, clientsOnly.unexplained], [1, 1]);
  const servers = runOutcomes(sorted(grudge('c1:n1 n1:n2,n3'), op(0, 'c1', 'acquire', 120, 130, 'info', 'x'), op(1, 'c2', 'acquire', 120, 130, 'info', 'x')));
  assert.deepEqual([servers.underFault, servers.unexplained], [2, 0]);
});

test('the gate: at least 10 % of acquires and at least 3 unexplained errors make a gap naming the error', () => {
  const o = emptyOutcomes();
  o.unexplained = 2; o.unexplainedErrors = { 'TypeError: x': 2 };
  assert.deepEqual(errorGaps(o, 5), []);                         // 40 %, but only 2
  o.unexplained = 3; o.unexplainedErrors = { 'TypeError: x': 3 };
  assert.deepEqual(errorGaps(o, 40), []);                        // 3 of 40: under 10 %
  assert.deepEqual(errorGaps(o, 30), ['the lock was not exercised as its users would: 3 of 30 acquires raised TypeError: x (no fault touched their clients)']);
  o.unexplained = 22; o.unexplainedErrors = { 'TypeError: x': 20, 'KeyError: y': 2 };
  assert.deepEqual(errorGaps(o, 65), ['the lock was not exercised as its users would: 20 of 65 acquires raised TypeError: x; 2 more raised other errors (no fault touched their clients)']);
});

function outcome(events: HistoryEvent[], over: Partial<RunOutcome> = {}): RunOutcome {
  return {
    run: 1, plan: { ttlMs: 800, clients: [], faults: [] }, verdict: true, lockVerdict: true, events, ops: 4, elapsedMs: 1, problems: [], resourceEntries: [],
    inconclusive: [], faults: { applied: {}, healed: {}, missing: [], kindsMissing: [] }, stats: { acquires: 6, okAcquires: 2, released: 2, contended: 2, unansweredWaiters: 1 },
    outcomes: runOutcomes(events), ...over,
  } as RunOutcome;
}

test('coverage: summed over conclusive runs, said in the summary, and a SAFE turned INCONCLUSIVE by unexplained errors only', () => {
  const run = sorted(
    op(0, 'c1', 'acquire', 0, 5, 'ok'), op(0, 'c1', 'release', 10, 12, 'ok'),
    op(1, 'c2', 'acquire', 1, 3, 'info', TYPE_ERROR), op(2, 'c3', 'acquire', 2, 4, 'info', TYPE_ERROR),
    op(3, 'c2', 'acquire', 20, 25, 'ok'), op(3, 'c2', 'release', 30, 32, 'ok'),
    [nem('client-pause-start', 40, { id: 1, clients: ['c3'] }), nem('client-pause-stop', 60, { id: 1 })],
    op(4, 'c3', 'acquire', 45, 70, 'info', 'acquire: Timeout'),
  );
  const c = emptyCoverage([]);
  addRun(c, outcome(run));
  addRun(c, outcome(run, { verdict: 'unknown', inconclusive: ['client c1 crashed'] }));   // not counted
  assert.deepEqual(c.outcomes.ops, { acquire: { ok: 2, fail: 0, info: 3 }, release: { ok: 2, fail: 0, info: 0 } });
  assert.deepEqual([c.outcomes.unexplained, c.outcomes.underFault, c.outcomes.unansweredWaiters], [2, 1, 1]);
  assert.deepEqual(gaps(c), []);                                 // 2 unexplained: under the threshold
  addRun(c, outcome(run));
  assert.deepEqual(gaps(c), [`the lock was not exercised as its users would: 4 of 12 acquires raised TypeError: unsupported operand type(s) for +: 'NoneType' and 'int' (no fault touched their clients)`]);
  const said = describeCoverage(c);
  assert.match(said, /\n {2}outcomes: acquire 4 ok, 0 fail, 6 unknown; release 4 ok, 0 fail, 0 unknown; 2 waiter\(s\) that met a held lock got no definite answer\n/);
  assert.match(said, /\n {2}errors: 4× TypeError: unsupported operand type\(s\) for \+: 'NoneType' and 'int'; 2× Timeout\n/);
  assert.match(said, /\n {2}4 acquire error\(s\) while no fault touched the client; 2 acquire error\(s\) while a fault touched the client: the faults doing their work$/);
  assert.deepEqual(outcomeProperties(c.outcomes), {
    outcomes: 'acquire 4 ok, 0 fail, 6 unknown; release 4 ok, 0 fail, 0 unknown',
    errors: "4× TypeError: unsupported operand type(s) for +: 'NoneType' and 'int'; 2× Timeout", unexplained_acquire_errors: 4, acquire_errors_under_faults: 2,
  });
  // lockpick merge sums the shards' outcomes; a shard from before they were counted adds nothing.
  const { outcomes: _, ...old } = c;
  const merged = sumCoverage([], [c, c, old as typeof c]);
  assert.deepEqual(merged.outcomes.ops.acquire, { ok: 8, fail: 0, info: 12 });
  assert.equal(merged.outcomes.unexplained, 8);
  assert.deepEqual(merged.outcomes.errors, { "TypeError: unsupported operand type(s) for +: 'NoneType' and 'int'": 8, Timeout: 4 });
  assert.match(gaps(merged).join('\n'), /8 of 36 acquires raised TypeError/);
});

test('describeOutcomes: the three most frequent messages, the rest counted; nothing counted, nothing said', () => {
  assert.deepEqual(describeOutcomes(emptyOutcomes()), []);
  const o = emptyOutcomes();
  addOutcomes(o, { ops: { acquire: { ok: 1, fail: 0, info: 10 } }, errors: { a: 1, b: 5, c: 3, d: 2 } });
  assert.equal(describeOutcomes(o)[1], 'errors: 5× b; 3× c; 2× d; 1 other message(s)');
  // Hostile names are keys like any other.
  const h = runOutcomes(op(0, 'c1', '__proto__', 0, 1, 'info', '__proto__'));
  assert.deepEqual(Object.keys(h.ops), ['__proto__']);
  assert.deepEqual(Object.keys(h.errors), ['__proto__']);
});
