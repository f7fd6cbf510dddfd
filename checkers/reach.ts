// A quick disproof before the search: the states a model can reach at all. Whatever order a
// linearization takes, every state on it is reached from init by some sequence of ops invoked
// so far, so the set R(t) of states reachable from init by any sequence of the ops invoked
// before event t (each any number of times) holds them all. An ok op that fits no state of
// R(its return) cannot take effect anywhere: the history is not linearizable, and that op is
// where it breaks. This decides at once a read of a value nobody wrote (or had yet invoked a
// write of) in a long history, where the search would have to exhaust every order of the ops
// before it, thousands of info ops among them, to say the same.
// Sound, not complete: a violation every state set allows is left to the search. It gives up
// (undefined) on models whose reachable states outgrow MAX_STATES (lock models with leases),
// or when the budget runs out.
import type { Op } from '../src/history/types.ts';
import { checkDue, type Budget } from './budget.ts';
import type { Model } from './types.ts';
import { isInconsistent } from './models/inconsistent.ts';
import type { DescribedModel } from './models/lockpick-model.ts';

const MAX_STATES = 256;
const CHECK_EVERY = 1 << 14;

export interface Unreachable<S> { op: Op; states: S[] }

/** The first ok op (by return) that fits no reachable state, with those states; undefined if none (or given up). */
export function unreachableOp<S>(model: Model<S>, ops: readonly Op[], budget: Budget): Unreachable<S> | undefined {
  const atSeq = eventsBySeq(ops), maxSeq = atSeq.length - 1;
  const init = model.init();
  const states = new Map<string, S>([[model.hash(init), init]]);
  const stateList: S[] = [init]; // states' values, in the order found: walked by index while it grows
  const invoked: Op[] = [];
  // Ops of one kind (model.opKey, and the same outcome) step alike from every state: the first of a
  // kind stands for the rest, which add nothing (a register's 30k ops are a few dozen kinds).
  // A kind that fitted a reachable state fits one from then on (states are only ever added): its
  // later ok returns need no step at all.
  const opKey = (model as DescribedModel<S>).opKey;
  const kindOf = opKey ? kindsOf(ops, opKey) : undefined;
  const kinds = new Set<string>();
  const fitted = new Set<string>();
  let steps = 0;
  const tooMuch = () => states.size > MAX_STATES || (checkDue(++steps, CHECK_EVERY) && budget.check() !== undefined);
  /** The state op leads to from s, added to `into` when new. */
  const stepInto = (s: S, op: Op, into: S[]) => {
    const r = model.step(s, op);
    if (isInconsistent(r)) return;
    const h = model.hash(r);
    if (states.has(h)) return;
    states.set(h, r);
    stateList.push(r);
    into.push(r);
  };
  /** Adds everything the invoked ops reach from the states in `work`. False: gave up. */
  const close = (work: S[]): boolean => {
    while (work.length) {
      const s = work.pop()!;
      for (const op of invoked) {
        stepInto(s, op, work);
        if (tooMuch()) return false;
      }
    }
    return true;
  };
  for (let seq = 0; seq <= maxSeq; seq++) {
    const e = atSeq[seq]!;
    if (e === -1) continue;
    const op = ops[e >> 1]!;
    const kind = kindOf?.[e >> 1];
    if ((e & 1) === 0) {
      if (kind !== undefined) {
        if (kinds.has(kind)) continue;
        kinds.add(kind);
      }
      invoked.push(op);
      const fresh: S[] = [];
      for (let k = 0, known = stateList.length; k < known; k++) stepInto(stateList[k]!, op, fresh);
      if (tooMuch() || !close(fresh)) return undefined;
      continue;
    }
    if (kind !== undefined && fitted.has(kind)) continue;
    let fits = false;
    for (const s of stateList) if (!isInconsistent(model.step(s, op))) { fits = true; break; }
    if (!fits) return { op, states: stateList.slice() };
    if (kind !== undefined) fitted.add(kind);
  }
  return undefined;
}

// The set-up's loops over the history are functions of their own: on a long history the engine
// compiles such a loop while it runs, and code after it in the same function, never run before,
// has no type feedback (the optimized code was thrown away there: `node --trace-deopt`).

/**
 * Events in real-time order: invokes add ops to the closure, ok returns are checked. Positions are
 * distinct event numbers of the history, so they index a table: no sort. At each position: 2i for
 * the invoke of op i, 2i + 1 for its (ok) return, -1 for none.
 */
function eventsBySeq(ops: readonly Op[]): Int32Array {
  let maxSeq = -1;
  for (const op of ops) maxSeq = Math.max(maxSeq, op.invokeSeq, op.outcome === 'ok' ? op.completeSeq : -1);
  const atSeq = new Int32Array(maxSeq + 1).fill(-1);
  for (let i = 0; i < ops.length; i++) {
    atSeq[ops[i]!.invokeSeq] = 2 * i;
    if (ops[i]!.outcome === 'ok') atSeq[ops[i]!.completeSeq] = 2 * i + 1;
  }
  return atSeq;
}

/** Each op's kind: its outcome and opKey. */
function kindsOf(ops: readonly Op[], opKey: (op: Op) => string): string[] {
  return ops.map((op) => `${op.outcome} ${opKey(op)}`);
}
