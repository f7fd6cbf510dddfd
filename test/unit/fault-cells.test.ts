// Fault-space coverage: a run's faults as cells (kind × where it landed × another client
// waiting), read from hand-written histories; the map's sums and its coverage line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { HistoryEvent } from '../../src/history/types.ts';
import { addCells, cellName, cellStats, cellsOfRun, describeCells, emptyCells, parseCell, sumCells } from '../../src/runner/fault-cells.ts';

const ms = (n: number) => n * 1e6;
/** A client's event at time `at` ms (invokes name their client). */
const op = (process: number, client: string, type: HistoryEvent['type'], f: string, at: number, key = 'r1-k0'): HistoryEvent =>
  ({ type, f, process, key, time: ms(at), ...(type === 'invoke' ? { client } : {}) });
const nem = (f: string, at: number, value: Record<string, unknown> = {}): HistoryEvent => ({ type: 'info', f, process: 'nemesis', value, time: ms(at) });

test('a pause anchored in the critical section while another client waits: client-pause@in-critical-section/waiting', () => {
  const cells = cellsOfRun([
    op(1, 'c1', 'invoke', 'acquire', 0), op(1, 'c1', 'ok', 'acquire', 2),
    nem('client-pause-start', 3, { client: 'c1', point: 'in-critical-section', duration_ms: 900 }),
    op(2, 'c2', 'invoke', 'acquire', 10),
    nem('client-pause-stop', 903, { client: 'c1', point: 'in-critical-section' }),
    op(2, 'c2', 'ok', 'acquire', 950),
    op(1, 'c1', 'invoke', 'release', 960), op(1, 'c1', 'ok', 'release', 961),
  ]);
  assert.deepEqual(cells, [{ kind: 'client-pause', place: 'in-critical-section', waiting: true, op: 'holding' }]);
  assert.equal(cellName(cells[0]!), 'client-pause@in-critical-section/waiting');
});

test('the same pause with the other client on another key, or not there at all: alone', () => {
  const cells = cellsOfRun([
    op(1, 'c1', 'invoke', 'acquire', 0), op(1, 'c1', 'ok', 'acquire', 2),
    nem('client-pause-start', 3, { client: 'c1', point: 'send:release:2', duration_ms: 100 }),
    op(2, 'c2', 'invoke', 'acquire', 10, 'r1-k1'), op(2, 'c2', 'ok', 'acquire', 11, 'r1-k1'),
    nem('client-pause-stop', 103, { client: 'c1', point: 'send:release:2' }),
  ]);
  assert.deepEqual(cells.map(cellName), ['client-pause@send:release:2/alone']);
});

test('a waiter that arrives only after the fault healed is not waiting', () => {
  const cells = cellsOfRun([
    op(1, 'c1', 'invoke', 'acquire', 0), op(1, 'c1', 'ok', 'acquire', 2),
    nem('client-clock-start', 5, { client: 'c1', point: 'in-critical-section', duration_ms: 50 }),
    nem('client-clock-stop', 55, { client: 'c1', point: 'in-critical-section' }),
    op(2, 'c2', 'invoke', 'acquire', 60),
  ]);
  assert.deepEqual(cells.map(cellName), ['client-clock@in-critical-section/alone']);
});

test('a fault at a time lands in the phase its client was in: acquire, holding, release, idle', () => {
  const base = [
    op(1, 'c1', 'invoke', 'acquire', 0), op(1, 'c1', 'ok', 'acquire', 20),
    op(1, 'c1', 'invoke', 'release', 100), op(1, 'c1', 'ok', 'release', 120),
  ];
  const at = (start: number, stop: number) => cellsOfRun([...base, nem('client-clock-start', start, { id: 'f1', target: 'c1', clients: ['c1'], params: { delta_ms: 900 } }), nem('client-clock-stop', stop, { id: 'f1', target: 'c1' })]
    .sort((a, b) => a.time! - b.time!)).map((c) => c.place);
  assert.deepEqual(at(10, 15), ['acquire']);
  assert.deepEqual(at(50, 60), ['holding']);
  assert.deepEqual(at(110, 115), ['release']);
  assert.deepEqual(at(200, 300), ['idle']);
});

test('a fault of servers: what the clients were doing (the most engaged), and two clients on one key make it waiting', () => {
  const cells = cellsOfRun([
    op(1, 'c1', 'invoke', 'acquire', 0), op(1, 'c1', 'ok', 'acquire', 2),
    op(2, 'c2', 'invoke', 'acquire', 5),
    nem('kill-start', 40, { id: 'f3', target: ['n1'], nodes: ['n1'] }),
    nem('kill-stop', 140, { id: 'f3', target: ['n1'] }),
    op(1, 'c1', 'invoke', 'release', 300), op(1, 'c1', 'ok', 'release', 301),
    op(2, 'c2', 'ok', 'acquire', 302),
  ]);
  assert.deepEqual(cells, [{ kind: 'kill', place: 'holding', waiting: true, op: 'holding' }]);
});

test("a server fault anchored at a client's point takes the point from anchor-reached, and that client's view", () => {
  const cells = cellsOfRun([
    op(1, 'c1', 'invoke', 'acquire', 0),
    nem('anchor-reached', 3, { client: 'c1', point: 'reply:acquire:1', kind: 'kill' }),
    nem('kill-start', 30, { id: 'f9', target: ['n1'], nodes: ['n1'] }),
    op(1, 'c1', 'ok', 'acquire', 31),
    nem('kill-stop', 200, { id: 'f9', target: ['n1'] }),
    // A later kill of the same kind at a time takes no anchor.
    nem('kill-start', 400, { id: 'f10', target: ['n1'], nodes: ['n1'] }),
    nem('kill-stop', 450, { id: 'f10', target: ['n1'] }),
  ]);
  assert.deepEqual(cells.map(cellName), ['kill@reply:acquire:1/alone', 'kill@holding/alone']);
  assert.equal(cells[0]!.op, 'acquire');
});

test('an anchored partition of one client names its point in params', () => {
  const cells = cellsOfRun([
    op(1, 'c1', 'invoke', 'acquire', 0), op(1, 'c1', 'ok', 'acquire', 2),
    op(2, 'c2', 'invoke', 'acquire', 3),
    nem('partition-start', 5, { id: 'f2', target: 'client:c1', params: { point: 'in-critical-section' } }),
    nem('partition-stop', 600, { id: 'f2', target: 'client:c1' }),
  ]);
  assert.deepEqual(cells.map(cellName), ['partition@in-critical-section/waiting']);
});

test('the map: hits counted by name (hostile names are own keys), summed over shards, the coverage line bounded', () => {
  const known = ['client-pause@in-critical-section/waiting', 'client-pause@in-critical-section/alone', 'client-pause@send:release:1/waiting', 'client-pause@send:release:1/alone'];
  const a = emptyCells(known);
  addCells(a, [{ kind: 'client-pause', place: 'in-critical-section', waiting: true }, { kind: 'client-pause', place: 'in-critical-section', waiting: true }]);
  addCells(a, [{ kind: '__proto__', place: 'toString', waiting: false }]);
  assert.equal(Object.getPrototypeOf(a.hits), Object.prototype);
  assert.equal(a.hits['client-pause@in-critical-section/waiting'], 2);
  assert.equal(a.hits['__proto__@toString/alone'], 1);
  const b = emptyCells(known);
  addCells(b, [{ kind: 'client-pause', place: 'send:release:1', waiting: false }]);
  const sum = sumCells([a, undefined, b])!;
  const s = cellStats(sum);
  assert.deepEqual([s.hit, s.known, s.percent], [2, 4, 50]);
  assert.deepEqual(s.missing, ['client-pause@in-critical-section/alone', 'client-pause@send:release:1/waiting']);
  assert.deepEqual(s.extra, ['__proto__@toString/alone']);
  assert.equal(describeCells(sum, 1), 'coverage: 2 of 4 cells (50 %); never hit: client-pause@in-critical-section/alone, … and 1 more');
  assert.equal(describeCells(emptyCells()), 'coverage: no fault cells to cover (no fault kinds asked for)');
  const all = emptyCells(known.slice(0, 1));
  addCells(all, [{ kind: 'client-pause', place: 'in-critical-section', waiting: true }]);
  assert.equal(describeCells(all), 'coverage: 1 of 1 cells (100 %)');
});

test('cell names parse back, points with colons included', () => {
  assert.deepEqual(parseCell('client-pause@send:release:2/waiting'), { kind: 'client-pause', place: 'send:release:2', waiting: true });
  assert.equal(parseCell('no-at/alone'), undefined);
  assert.equal(parseCell('k@p/maybe'), undefined);
});

test('the grid: kinds × places, each square waiting | alone, coloured hit / never hit / not drawn; names escaped', async () => {
  const { renderCellsHtml } = await import('../../src/report/cells-html.ts');
  const c = emptyCells(['client-pause@in-critical-section/waiting', 'client-pause@in-critical-section/alone', 'kill@holding/alone']);
  addCells(c, [{ kind: 'client-pause', place: 'in-critical-section', waiting: true }, { kind: 'kill', place: '<b>x</b>', waiting: false }]);
  const html = renderCellsHtml(c, 'redis-set-px-lua · client-pause,kill');
  assert.match(html, /Fault-space coverage: 1 of 3 cells \(33 %\)/);
  assert.match(html, /<span class="hit1" title="client-pause@in-critical-section\/waiting: 1 fault\(s\)">1<\/span>/);
  assert.match(html, /<span class="miss" title="client-pause@in-critical-section\/alone: never hit">/);
  assert.match(html, /<span class="none" title="kill@in-critical-section\/waiting: not a cell this search draws">/);
  assert.match(html, /class="extra"/);
  assert.ok(!html.includes('<b>x</b>') && html.includes('&lt;b&gt;x&lt;/b&gt;'));
});
