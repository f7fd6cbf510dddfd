// The search's memo (LinearizedSet) against a plain model of what it must answer: a configuration
// is seen when an earlier one had the same ok ops, the same state and a subset of its info ops.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { LinearizedSet } from '../../checkers/memo.ts';
import type { Op } from '../../src/history/types.ts';

const opsOf = (outcomes: boolean[]): Op[] => outcomes.map((ok, id) => ({
  id, process: id, f: 'write', key: '', outcome: ok ? 'ok' : 'info', invokeValue: 1, value: undefined,
  invokeLine: id + 1, completeLine: ok ? id + 2 : Infinity, invokeSeq: id, completeSeq: ok ? id + 1 : Infinity,
}));

interface Move { pop: number; op: number; state: number }
const moveArb = fc.array(fc.record({ pop: fc.nat({ max: 2 }), op: fc.nat(), state: fc.nat({ max: 1 }) }), { maxLength: 400, size: 'max' });

/**
 * Plays adds (op `pick` chooses, undefined: skip) and LIFO removes on the set and checks each
 * seenWithId against the plain definition: an earlier configuration with the same ok ops and state
 * and a subset of the info ops placed now.
 */
function agreesWithDefinition(set: LinearizedSet, outcomes: boolean[], moves: Move[], pick: (i: number, cur: Set<number>) => number | undefined): void {
  const seen: { ok: string; info: number[]; state: string }[] = [];
  const cur = new Set<number>();
  const stack: number[] = [];
  const okKey = () => [...cur].filter((j) => outcomes[j]).sort((a, b) => a - b).join(',');
  for (const m of moves) {
    if (m.pop === 0 && stack.length) { const i = stack.pop()!; set.remove(i, outcomes[i]!); cur.delete(i); continue; }
    const i = pick(m.op % outcomes.length, cur);
    if (i === undefined || cur.has(i)) continue;
    set.add(i, outcomes[i]!); cur.add(i);
    const state = String(m.state);
    const expected = seen.some((c) => c.state === state && c.ok === okKey() && c.info.every((j) => cur.has(j)));
    assert.equal(set.seenWithId(m.state), expected);
    for (let j = 0; j < outcomes.length; j++) assert.equal(set.has(j), cur.has(j));
    if (expected) { set.remove(i, outcomes[i]!); cur.delete(i); }
    else { seen.push({ ok: okKey(), info: [...cur].filter((j) => !outcomes[j]), state }); stack.push(i); }
  }
}

test('LinearizedSet answers "seen" exactly like the plain definition (LIFO adds and removes)', () => {
  const arb = fc.record({
    outcomes: fc.array(fc.boolean(), { minLength: 1, maxLength: 100, size: 'max' }), // crosses word and bit-31 borders
    moves: moveArb,
  });
  fc.assert(fc.property(arb, ({ outcomes, moves }) => {
    agreesWithDefinition(new LinearizedSet(opsOf(outcomes)), outcomes, moves, (i) => i);
  }), { numRuns: 300 });
});

test('LinearizedSet with info kinds (each kind placed earliest first, as the search does) answers like the plain definition', () => {
  const arb = fc.record({
    outcomes: fc.array(fc.boolean(), { minLength: 1, maxLength: 80, size: 'max' }),
    kinds: fc.array(fc.nat({ max: 3 }), { minLength: 80, maxLength: 80 }),
    moves: moveArb,
  });
  fc.assert(fc.property(arb, ({ outcomes, kinds, moves }) => {
    const ops = opsOf(outcomes);
    const kindOf = new Int32Array(ops.length).fill(-1);
    const byKind: number[][] = [[], [], [], []];
    ops.forEach((o, i) => { if (o.outcome !== 'ok') { kindOf[i] = kinds[i]!; byKind[kinds[i]!]!.push(i); } });
    // An info op: the earliest unplaced one of its kind (the search's order).
    agreesWithDefinition(new LinearizedSet(ops, kindOf, 4), outcomes, moves,
      (i, cur) => (outcomes[i] ? i : byKind[kindOf[i]!]!.find((j) => !cur.has(j))));
  }), { numRuns: 300 });
});
