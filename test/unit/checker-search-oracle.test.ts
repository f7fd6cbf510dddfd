// The search (checkers/search.ts) against brute force on small histories: every order of the ops
// that respects real time, each info op placed anywhere after its invoke or never. The verdict,
// the final states of complete orders (finals) and, on a failing search, every state in which a
// watched op could take effect must be exactly what brute force finds: the search's pruning (its
// memo, interchangeable info ops, info ops made pointless by the next op) may skip orders, never
// a state or a verdict.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { MODELS } from '../../checkers/index.ts';
import { Budget } from '../../checkers/budget.ts';
import { searchLinearization } from '../../checkers/search.ts';
import { explainNonlinearizable } from '../../checkers/window.ts';
import { isInconsistent } from '../../checkers/models/inconsistent.ts';
import type { Model } from '../../checkers/types.ts';
import type { Op } from '../../src/history/types.ts';
import { readHistory } from '../../src/history/index.ts';
import { checkHistory } from '../../checkers/index.ts';

interface Spec { f: 'read' | 'write' | 'cas' | 'acquire' | 'release' | 'renew'; a: number; b: number; ok: boolean }

const specArb = fc.record({ f: fc.constantFrom('read', 'write', 'cas') as fc.Arbitrary<Spec['f']>, a: fc.nat({ max: 2 }), b: fc.nat({ max: 2 }), ok: fc.boolean() });

/** Ops from specs and an interleaving: each op's invoke comes before its completion (info ops never complete). */
const historyArb = fc.array(specArb, { minLength: 1, maxLength: 7 }).chain((specs) =>
  fc.array(fc.nat(), { minLength: 2 * specs.length, maxLength: 2 * specs.length }).map((keys) => toOps(specs, keys)));

/** Owner-unaware lock ops (knossos-mutex): acquire, release, renew by anyone, ok or info. */
const lockSpecArb = fc.record({ f: fc.constantFrom('acquire', 'acquire', 'release', 'renew') as fc.Arbitrary<Spec['f']>, a: fc.constant(0), b: fc.constant(0), ok: fc.boolean() });
const lockHistoryArb = fc.array(lockSpecArb, { minLength: 1, maxLength: 7 }).chain((specs) =>
  fc.array(fc.nat(), { minLength: 2 * specs.length, maxLength: 2 * specs.length }).map((keys) => toOps(specs, keys)));

function toOps(specs: Spec[], keys: number[]): Op[] {
  // Events 2i (invoke) and 2i+1 (completion) sorted by random keys, then each completion moved after its invoke.
  const events = specs.flatMap((_, i) => [2 * i, 2 * i + 1]).sort((x, y) => keys[x]! - keys[y]! || x - y);
  const seq = new Map<number, number>();
  const seen = new Set<number>();
  const out: number[] = [];
  const waiting = new Set<number>();
  for (const e of events) {
    const i = e >> 1;
    if ((e & 1) === 0) { out.push(e); seen.add(i); if (waiting.delete(i)) out.push(e + 1); } else if (seen.has(i)) out.push(e); else waiting.add(i);
  }
  out.forEach((e, k) => seq.set(e, k));
  // Ops are in invoke order, as a parsed history gives them (ids too).
  const order = specs.map((_, i) => i).sort((x, y) => seq.get(2 * x)! - seq.get(2 * y)!);
  return order.map((i, id) => {
    const s = specs[i]!;
    const value = s.f === 'cas' ? [s.a, s.b] : s.f === 'write' ? s.a : undefined;
    return {
      id, process: id, f: s.f, key: '', outcome: s.ok ? 'ok' : 'info',
      invokeValue: value, value: s.f === 'read' && s.ok ? (s.a === 2 ? null : s.a) : undefined,
      invokeLine: seq.get(2 * i)! + 1, completeLine: s.ok ? seq.get(2 * i + 1)! + 1 : Infinity,
      invokeSeq: seq.get(2 * i)!, completeSeq: s.ok ? seq.get(2 * i + 1)! : Infinity,
    } satisfies Op;
  });
}

interface Brute { ok: boolean; finals: Set<string>; watched: Set<string> }

/** Every order of a subset of ops that respects real time and holds every ok op; states where `watch` was ready. */
function brute(model: Model<string>, ops: Op[], watch: number): Brute {
  const finals = new Set<string>(), watched = new Set<string>();
  const placed = new Array<boolean>(ops.length).fill(false);
  const ready = (o: Op) => ops.every((p, j) => placed[j] || p.outcome !== 'ok' || !(p.completeSeq < o.invokeSeq));
  const walk = (state: string): void => {
    if (ops.every((o, j) => placed[j] || o.outcome !== 'ok')) finals.add(model.hash(state));
    for (const [j, o] of ops.entries()) {
      if (placed[j] || !ready(o)) continue;
      if (j === watch) watched.add(model.hash(state));
      const next = model.step(state, o);
      if (isInconsistent(next)) continue;
      placed[j] = true;
      walk(next);
      placed[j] = false;
    }
  };
  walk(model.init());
  return { ok: finals.size > 0, finals, watched };
}

for (const name of ['register', 'cas-register'] as const) {
  test(`the search agrees with brute force on small ${name} histories: verdict, final states, and where a watched op could take effect`, () => {
    const model = MODELS[name]! as Model<string>;
    fc.assert(fc.property(historyArb, fc.nat(), (all, w) => {
      const ops = name === 'register' ? all.map((o) => (o.f === 'cas' ? { ...o, f: 'write', invokeValue: (o.invokeValue as number[])[1] } : o)) : all;
      const oks = ops.map((o, i) => (o.outcome === 'ok' ? i : -1)).filter((i) => i >= 0);
      const watch = oks.length ? oks[w % oks.length]! : 0;
      const expected = brute(model, ops, watch);
      const states = new Map<string, string>();
      const r = searchLinearization(model, ops, new Budget(10_000), { watch: { op: watch, states } });
      assert.equal(r.result, expected.ok ? 'ok' : 'fail');
      if (r.result === 'fail' && oks.length) assert.deepEqual(new Set(states.keys()), expected.watched);
      const finals = new Map<string, string>();
      searchLinearization(model, ops, new Budget(10_000), { finals });
      assert.deepEqual(new Set(finals.keys()), expected.finals);
    }), { numRuns: 3000 });
  });
}

// Jepsen's owner-unaware mutex is decided by the search alone (no sweep): the same oracle, on
// small lock histories, so every clone covers it without the public corpora.
test('the search agrees with brute force on small knossos-mutex histories: verdict and final states', () => {
  const model = MODELS['knossos-mutex']! as unknown as Model<string>;
  let invalid = 0;
  fc.assert(fc.property(lockHistoryArb, (ops) => {
    const expected = brute(model, ops, 0);
    const r = searchLinearization(model, ops, new Budget(10_000));
    assert.equal(r.result, expected.ok ? 'ok' : 'fail');
    if (!expected.ok) invalid++;
    const finals = new Map<string, string>();
    searchLinearization(model, ops, new Budget(10_000), { finals });
    assert.deepEqual(new Set(finals.keys()), expected.finals);
  }), { numRuns: 3000 });
  assert.ok(invalid > 100, `only ${invalid} invalid histories drawn`);
});

test('histories/jepsen-lock-list.edn: brute force gives the verdict check gives (knossos-mutex, mutex)', async () => {
  const h = await readHistory(new URL('../../histories/jepsen-lock-list.edn', import.meta.url).pathname);
  const ops = h.ops.filter((o) => o.outcome !== 'fail');
  for (const name of ['knossos-mutex', 'mutex']) {
    const oracle = brute(MODELS[name]! as unknown as Model<string>, ops, 0).ok;
    assert.equal(oracle, false, `${name}: brute force finds no order`);
    assert.equal(checkHistory(h, { model: name }).valid, oracle, name);
  }
});

test('a failing search\'s watchAll gives the explanation the search of the prefix would: the same words, window and ops', () => {
  for (const name of ['register', 'cas-register'] as const) {
    const model = MODELS[name]! as Model<string>;
    fc.assert(fc.property(fc.array(historyArb, { minLength: 1, maxLength: 3 }), (parts) => {
      // Longer histories: a few small ones one after another.
      let shift = 0;
      const ops: Op[] = [];
      for (const part of parts) {
        const base = shift;
        for (const o of part) ops.push({ ...o, id: ops.length, invokeSeq: o.invokeSeq + base, completeSeq: o.completeSeq + base, invokeLine: o.invokeLine + base, completeLine: o.completeLine + base });
        shift = base + 2 * part.length;
      }
      const typed = name === 'register' ? ops.map((o) => (o.f === 'cas' ? { ...o, f: 'write', invokeValue: (o.invokeValue as number[])[1] } : o)) : ops;
      const watched: (Map<string, string> | undefined)[] = [];
      const r = searchLinearization(model, typed, new Budget(10_000), { watchAll: watched });
      if (r.result !== 'fail') return;
      assert.deepEqual(explainNonlinearizable(model, '', typed, r, new Budget(10_000), undefined, watched),
        explainNonlinearizable(model, '', typed, r, new Budget(10_000)));
    }), { numRuns: 1500 });
  }
});
