// Property tests of the checker against simulated histories: correct locks and registers are
// valid; one injected violation is invalid and named; the mutex sweeps agree with the search.
import { tempDir } from '../support/temp-dir.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { checkHistory, MODELS } from '../../checkers/index.ts';
import { Budget } from '../../checkers/budget.ts';
import { searchLinearization } from '../../checkers/search.ts';
import { SWEEPS, doubleHolderScan } from '../../checkers/sweep.ts';
import type { Op } from '../../src/history/types.ts';
import { lockHistoryArb, registerHistoryArb } from '../support/arbitraries.ts';
import { toJsonl, toParsed } from '../support/history.ts';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { readHistory } from '../../src/history/index.ts';
import { injectDoubleHolder, injectStaleRelease, injectStaleToken, injectWrongRead, withTokens, type Injected } from '../support/inject.ts';
import { randomLockOpsArb } from '../support/random-lock-ops.ts';

const RUNS = 200;
/** A slow case must fail loudly, not spend the suite's time shrinking. */
const BOUND = { interruptAfterTimeLimit: 120_000, markInterruptAsFailure: true };

test('(1) histories of a correct lock are valid under mutex and fenced-mutex', () => {
  fc.assert(fc.property(lockHistoryArb({ tokens: true }), (events) => {
    const h = toParsed(events);
    for (const model of ['mutex', 'fenced-mutex', 'reentrant-mutex']) {
      const r = checkHistory(h, { model });
      assert.equal(r.valid, true, `${model}: ${JSON.stringify(r.anomalies)}`);
    }
  }), { numRuns: RUNS, ...BOUND });
});

test('(1) histories of a correct register / cas-register are valid', () => {
  for (const cas of [false, true]) {
    fc.assert(fc.property(registerHistoryArb({ cas }), (events) => {
      const r = checkHistory(toParsed(events), { model: cas ? 'cas-register' : 'register', timeLimitMs: 10_000 });
      assert.equal(r.valid, true, JSON.stringify(r.anomalies));
    }), { numRuns: RUNS, ...BOUND });
  }
});

function assertNamed(inj: Injected, model: string, type: string): void {
  // fenced-mutex needs a token on every ok acquire (injected acquires have none); a stale-token
  // injection keeps its own.
  const events = model === 'fenced-mutex' && inj.kind !== 'stale-token' ? withTokens(inj.events) : inj.events;
  const r = checkHistory(toParsed(events), { model, timeLimitMs: 10_000 });
  assert.equal(r.valid, false, `${inj.kind} not found under ${model}`);
  const hit = r.anomalies.find((a) => a.type === type && inj.processes.every((p) => a.processes.includes(p)));
  assert.ok(hit, `no ${type} anomaly naming ${inj.processes} under ${model}: ${JSON.stringify(r.anomalies)}`);
}

test('(2) one injected double holder is found and names both processes', () => {
  fc.assert(fc.property(lockHistoryArb({ tokens: false }), fc.nat(), (events, pick) => {
    const inj = injectDoubleHolder(events, pick);
    for (const model of ['mutex', 'fenced-mutex', 'reentrant-mutex', 'knossos-mutex']) assertNamed(inj, model, 'double-holder');
  }), { numRuns: RUNS, ...BOUND });
});

test('(2) one injected stale release is found and names its process', () => {
  fc.assert(fc.property(lockHistoryArb({}), fc.nat(), (events, pick) => {
    const inj = injectStaleRelease(events, pick);
    for (const model of ['mutex', 'fenced-mutex', 'reentrant-mutex']) assertNamed(inj, model, 'stale-release');
  }), { numRuns: RUNS, ...BOUND });
});

test('(2) one injected stale fencing token is found and names both processes', () => {
  fc.assert(fc.property(lockHistoryArb({ tokens: true }), fc.nat(), (events, pick) => {
    assertNamed(injectStaleToken(events, pick), 'fenced-mutex', 'stale-token');
  }), { numRuns: RUNS, ...BOUND });
});

test('(2) one injected wrong register read is found and names the reader', () => {
  for (const cas of [false, true]) {
    fc.assert(fc.property(registerHistoryArb({ cas }), fc.nat(), (events, pick) => {
      const inj = injectWrongRead(events, pick);
      assertNamed(inj, cas ? 'cas-register' : 'register', 'nonlinearizable');
      // The window holds the bad read, and it is never longer than the history.
      const h = toParsed(inj.events);
      const a = checkHistory(h, { model: cas ? 'cas-register' : 'register', timeLimitMs: 10_000 }).anomalies[0]!;
      const bad = h.ops.find((o) => o.value === 'never-written')!;
      assert.ok(a.ops?.includes(bad.id) && a.ops.length <= h.ops.length, JSON.stringify(a));
    }), { numRuns: RUNS, ...BOUND });
  }
});

/**
 * Per key: does the sweep find anything, and do the general search (with the same model's step
 * function, which knows failed releases and leases too) and the double-holder scan of beliefs
 * find nothing? That pair is how a search model is judged (checkers/index.ts).
 */
function agree(model: string, events: Parameters<typeof toParsed>[0]): void {
  const m = MODELS[model]!;
  const sweep = SWEEPS.get(m)!;
  const byKey = new Map<string, Op[]>();
  for (const op of toParsed(events).ops) byKey.set(op.key, [...(byKey.get(op.key) ?? []), op]);
  for (const [key, ops] of byKey) {
    const swept = sweep(key, ops).length === 0;
    const searched = searchLinearization(m, ops.filter((o) => o.outcome !== 'fail'), new Budget(20_000));
    assert.notEqual(searched.result, 'unknown');
    const beliefs = doubleHolderScan(key, ops, model === 'reentrant-mutex').length === 0;
    assert.equal(swept, searched.result === 'ok' && beliefs, `${model} key ${key}: sweep says ${swept}, search says ${searched.result}, beliefs overlap: ${!beliefs}`);
  }
}

test('(3) sweep and search agree on simulated lock histories (correct, buggy, injected)', () => {
  const arb = fc.oneof(
    lockHistoryArb({ tokens: true, maxSteps: 120 }),
    lockHistoryArb({ tokens: true, maxSteps: 120, buggyPerMille: 300 }),
    fc.tuple(lockHistoryArb({ maxSteps: 100 }), fc.nat()).map(([e, p]) => withTokens(injectDoubleHolder(e, p).events)),
  );
  fc.assert(fc.property(arb, (events) => {
    for (const model of ['mutex', 'fenced-mutex', 'reentrant-mutex']) agree(model, events);
  }), { numRuns: RUNS, ...BOUND });
});

test('(3) sweep and search agree on arbitrary well-formed lock histories', () => {
  fc.assert(fc.property(randomLockOpsArb(50), (events) => {
    for (const model of ['mutex', 'fenced-mutex', 'reentrant-mutex']) agree(model, events);
  }), { numRuns: 3000, ...BOUND });
});

test('simulated histories written as JSONL read back to the same verdict and anomalies', async () => {
  const dir = tempDir('lockpick-sim-');
  try {
    const samples = fc.sample(fc.tuple(lockHistoryArb({ tokens: true }), fc.nat(), fc.boolean()), { numRuns: 40 });
    for (const [events, pick, inject] of samples) {
      const evs = inject ? withTokens(injectDoubleHolder(events, pick).events) : events;
      const file = path.join(dir, 'h.jsonl');
      writeFileSync(file, toJsonl(evs));
      const fromFile = checkHistory(await readHistory(file), { model: 'fenced-mutex' });
      const direct = checkHistory(toParsed(evs, file), { model: 'fenced-mutex' });
      assert.equal(fromFile.valid, !inject);
      assert.deepEqual(fromFile.anomalies, direct.anomalies);
    }
  } finally { rmSync(dir, { recursive: true, force: true }); }
});

test('the search\'s order is a legal order of every ok op; onFinal stops at a final the full search also finds', () => {
  const model = MODELS['cas-register']!;
  fc.assert(fc.property(registerHistoryArb({ cas: true }), fc.nat(), fc.boolean(), (events, p, wrong) => {
    const ops = toParsed(wrong ? injectWrongRead(events, p).events : events).ops.filter((o) => o.outcome !== 'fail');
    const order: number[] = [];
    const r = searchLinearization(model, ops, new Budget(10_000), { order });
    if (r.result !== 'ok') return;
    let state = model.init();
    order.forEach((i, k) => {
      // Real time: no op placed after this one had returned (ok) before this one was invoked.
      for (const j of order.slice(k + 1)) assert.ok(!(ops[j]!.outcome === 'ok' && ops[j]!.completeSeq < ops[i]!.invokeSeq), `op ${i} placed before op ${j}, which returned before it began`);
      const next = model.step(state, ops[i]!);
      assert.ok(typeof next === 'string', `op ${i} does not fit state ${state}`);
      state = next as string;
    });
    assert.equal(new Set(order).size, order.length);
    for (const [i, o] of ops.entries()) if (o.outcome === 'ok') assert.ok(order.includes(i), `ok op ${i} not placed`);
    const all = new Map<string, string>(), one = new Map<string, string>();
    searchLinearization(model, ops, new Budget(10_000), { finals: all });
    let calls = 0;
    assert.equal(searchLinearization(model, ops, new Budget(10_000), { finals: one, onFinal: () => ++calls > 0 }).result, 'ok');
    assert.equal(calls, 1);
    assert.equal(one.size, 1);
    assert.ok(all.has([...one.keys()][0]!));
  }), { numRuns: RUNS, ...BOUND });
});
