// Property: any well-formed history reads the same from JSON Lines, from EDN
// (vector and one-map-per-line) and in tiny chunks; and a repeated completion
// in it is always rejected at the line of the repeat.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { toEDNStringFromSimpleObject } from 'edn-data';
import { HistoryError, readEdn, readHistory, readJsonl } from '../../src/history/index.ts';
import { tmpHistory } from './history-tmp.ts';

type Ev = { type: string; f: string; process: number | 'nemesis'; key?: string; value?: unknown };

const value = fc.oneof(
  fc.constant(null), fc.integer({ min: -1000, max: 1_000_000 }), fc.string({ maxLength: 12 }),
  fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 3 }),
  fc.record({ token: fc.integer({ min: 0, max: 99 }) }), fc.constantFrom('Cut off [:n3 #[:n4 :n5]] ; "x"', 'a\\b'),
);

/** A well-formed history from a random schedule of steps (which process moves, how ops end). */
const history = fc.array(fc.record({
  who: fc.nat(3), how: fc.constantFrom('ok', 'fail', 'info', 'ok', 'ok'), f: fc.constantFrom('acquire', 'release', 'read', 'cas'),
  key: fc.option(fc.constantFrom('a', 'b', ''), { nil: undefined }), value: fc.option(value, { nil: undefined }), nemesis: fc.boolean(),
}), { maxLength: 40 }).map((steps) => {
  const procs = [0, 1, 2, 3];
  let nextId = 4;
  const open = new Map<number, Ev>();
  const events: Ev[] = [];
  for (const s of steps) {
    if (s.nemesis && s.who === 0) { events.push({ type: 'info', f: 'partition', process: 'nemesis', value: s.value ?? null }); continue; }
    const p = procs[s.who]!;
    const inv = open.get(p);
    if (!inv) {
      const ev: Ev = { type: 'invoke', f: s.f, process: p };
      if (s.key !== undefined) ev.key = s.key;
      if (s.value !== undefined) ev.value = s.value;
      events.push(ev);
      open.set(p, ev);
    } else {
      const ev: Ev = { type: s.how, f: inv.f, process: p };
      if (inv.key !== undefined && s.key !== undefined) ev.key = inv.key;
      if (s.value !== undefined) ev.value = s.value;
      events.push(ev);
      open.delete(p);
      if (s.how === 'info') procs[s.who] = nextId++;
    }
  }
  return events;
});

function toJsonl(events: Ev[]): string {
  return events.map((e, index) => JSON.stringify({ ...e, index })).join('\n') + '\n';
}

function toEdnMap(e: Ev, index: number): string {
  const parts = [`:type :${e.type}`, `:f :${e.f}`, `:process ${e.process === 'nemesis' ? ':nemesis' : e.process}`];
  if (e.key !== undefined) parts.push(`:key ${JSON.stringify(e.key)}`);
  if (e.value !== undefined) parts.push(`:value ${toEDNStringFromSimpleObject(e.value as Parameters<typeof toEDNStringFromSimpleObject>[0])}`);
  parts.push(`:index ${index}`);
  return `{${parts.join(', ')}}`;
}

test('a history reads the same from JSON Lines, EDN vector, EDN lines and in tiny chunks', async () => {
  await fc.assert(fc.asyncProperty(history, fc.integer({ min: 1, max: 9 }), async (events, chunk) => {
    const fromJson = await readJsonl(tmpHistory(toJsonl(events)));
    const maps = events.map(toEdnMap);
    const vector = tmpHistory(events.length ? `[${maps.join('\n ')}]\n` : '[]\n', 'edn');
    const lines = tmpHistory(maps.join('\n') + '\n', 'edn');
    const strip = (h: typeof fromJson) => ({ ...h, source: '' });
    assert.deepEqual(strip(await readHistory(vector)), strip(fromJson));
    assert.deepEqual(strip(await readHistory(lines)), strip(fromJson));
    assert.deepEqual(strip(await readEdn(vector, chunk)), strip(fromJson));
    assert.deepEqual(strip(await readJsonl(tmpHistory(toJsonl(events)), chunk)), strip(fromJson));
    assert.equal(fromJson.events, events.length);
    assert.equal(fromJson.ops.length, events.filter((e) => e.type === 'invoke').length);
  }), { numRuns: 150 });
});

test('a completion repeated right after itself is rejected at the line of the copy', async () => {
  await fc.assert(fc.asyncProperty(history, fc.nat(), async (events, pick) => {
    const completions = events.map((e, i) => [e, i] as const).filter(([e]) => e.type !== 'invoke' && e.process !== 'nemesis');
    fc.pre(completions.length > 0);
    const [done, at] = completions[pick % completions.length]!;
    // Duplicate the completion right after itself: the copy completes nothing.
    const broken = [...events.slice(0, at + 1), done, ...events.slice(at + 1)];
    let err: unknown;
    try { await readJsonl(tmpHistory(toJsonl(broken))); } catch (e) { err = e; }
    assert.ok(err instanceof HistoryError);
    assert.equal(err.line, at + 2);
    assert.equal(err.rule, 'completion-without-invoke');
  }), { numRuns: 100 });
});
