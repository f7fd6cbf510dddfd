// General linearizability search for one partition: Wing–Gong–Lowe with memoisation of
// (set of linearized ops, model state), as in Porcupine. It knows nothing of any model.
// fail ops must be removed before; info ops (outcome 'info') may take effect at any point
// after their invoke or never: their returns sit after every other event, and the search
// succeeds as soon as every ok op is linearized.
import type { Op } from '../src/history/types.ts';
import type { Model } from './types.ts';
import type { Budget } from './budget.ts';
import { LinearizedSet } from './memo.ts';
import { isInconsistent } from './models/inconsistent.ts';
import type { DescribedModel } from './models/lockpick-model.ts';

export type SearchOutcome<S> =
  | { result: 'ok' }
  // deepest: op indices of the longest order found. blockedAt: the latest completion (event
  // position) of an ok op that stopped the search; every prefix cut before it is linearizable.
  | { result: 'fail'; deepest: number[]; deepestState: S; blockedAt: number }
  | { result: 'unknown'; reason: string };

const CHECK_EVERY = 4096;

export interface SearchOptions<S> {
  /**
   * Records, by hash, every state in which op `watch.op` (an index into ops) could take effect,
   * i.e. the states the search reaches while that op is ready to be placed. On a failing search
   * (which explores everything) that is the complete set: what the model expected of it.
   */
  watch?: { op: number; states: Map<string, S> };
  /** Start from this state instead of model.init(). */
  initial?: S;
  /** Explore everything and collect every state a complete order can end in ('ok' if any). */
  finals?: Map<string, S>;
}

export function searchLinearization<S>(model: Model<S>, ops: readonly Op[], budget: Budget, opts: SearchOptions<S> = {}): SearchOutcome<S> {
  const { watch, finals } = opts;
  const n = ops.length;
  // Entries: 2i = call of op i, 2i+1 = its return. Node = entry + 1; node 0 is the list head.
  const order = new Int32Array(2 * n);
  const pos = new Float64Array(2 * n);
  let okLeft = 0;
  for (let i = 0; i < n; i++) {
    const op = ops[i]!;
    order[2 * i] = 2 * i;
    order[2 * i + 1] = 2 * i + 1;
    pos[2 * i] = op.invokeSeq;
    pos[2 * i + 1] = op.outcome === 'ok' ? op.completeSeq : Infinity;
    if (op.outcome === 'ok') okLeft++;
  }
  order.sort((a, b) => pos[a]! - pos[b]! || a - b);
  const next = new Int32Array(2 * n + 1);
  const prev = new Int32Array(2 * n + 1);
  let last = 0;
  for (const e of order) { next[last] = e + 1; prev[e + 1] = last; last = e + 1; }
  next[last] = -1;

  const lift = (c: number) => {
    const r = c + 1;
    next[prev[c]!] = next[c]!; if (next[c] !== -1) prev[next[c]!] = prev[c]!;
    next[prev[r]!] = next[r]!; if (next[r] !== -1) prev[next[r]!] = prev[r]!;
  };
  const unlift = (c: number) => {
    const r = c + 1;
    next[prev[r]!] = r; if (next[r] !== -1) prev[next[r]!] = r;
    next[prev[c]!] = c; if (next[c] !== -1) prev[next[c]!] = c;
  };

  const set = new LinearizedSet(ops);

  // Interchangeable info ops (same model.opKey, e.g. two unanswered "write 2"): once both are
  // invoked, placing the later one is the mirror image of placing the earlier, so only the
  // earliest unplaced one of each kind is tried.
  const twin = new Int32Array(n).fill(-1);
  const opKey = (model as DescribedModel<S>).opKey;
  if (opKey) {
    const lastOfKind = new Map<string, number>();
    for (let i = 0; i < n; i++) {
      if (ops[i]!.outcome === 'ok') continue;
      const k = opKey(ops[i]!);
      const j = lastOfKind.get(k);
      if (j !== undefined && ops[j]!.invokeSeq < ops[i]!.invokeSeq) twin[i] = j;
      lastOfKind.set(k, i);
    }
  }

  const stackNode = new Int32Array(n);
  const stackState: S[] = new Array(n);
  const stackHash: string[] = new Array(n);
  let sp = 0;
  let state = opts.initial !== undefined ? opts.initial : model.init();
  let stateHash = model.hash(state);
  let deepest: number[] = [];
  let deepestState = state;
  let blockedAt = -1;
  let steps = 0;
  let entry = next[0]!;
  if (finals && okLeft === 0) finals.set(stateHash, state);

  while (okLeft > 0 || finals) {
    if (++steps % CHECK_EVERY === 0) {
      const reason = budget.check();
      if (reason) return { result: 'unknown', reason };
    }
    const e = entry - 1;
    const i = e >>> 1;
    if (entry !== -1 && (e & 1) === 0) {
      const t = twin[i]!;
      if (t >= 0 && !set.has(t)) { entry = next[entry]!; continue; }
      const op = ops[i]!;
      if (watch && i === watch.op) watch.states.set(stateHash, state);
      const r = model.step(state, op);
      if (!isInconsistent(r)) {
        const info = op.outcome !== 'ok';
        const hs = model.hash(r);
        // An info op that changes nothing here is never worth linearizing here: skipping it dominates.
        if (!(info && hs === stateHash)) {
          set.add(i, !info);
          if (!set.seenWith(hs)) {
            stackNode[sp] = entry; stackState[sp] = state; stackHash[sp] = stateHash; sp++;
            state = r as S; stateHash = hs;
            if (!info) okLeft--;
            if (finals && okLeft === 0) finals.set(hs, state);
            lift(entry);
            entry = next[0]!;
            continue;
          }
          set.remove(i, !info);
        }
      }
      entry = next[entry]!;
    } else {
      // The return of an op not yet linearized (or, collecting finals, the end of the list or
      // an info op's return): this branch is done, undo the last choice.
      // A dead end deeper than any before is the best partial order so far (kept for the report;
      // copied only here, so a search that never backtracks copies nothing).
      if (sp > deepest.length) { deepest = Array.from(stackNode.subarray(0, sp), (c) => (c - 1) >>> 1); deepestState = state; }
      // Every return before this one was lifted, so every ok op completing earlier is placed here.
      if (entry !== -1 && ops[i]!.completeSeq > blockedAt && okLeft > 0) blockedAt = ops[i]!.completeSeq;
      if (sp === 0) return finals?.size ? { result: 'ok' } : { result: 'fail', deepest, deepestState, blockedAt };
      sp--;
      const c = stackNode[sp]!;
      const j = (c - 1) >>> 1;
      state = stackState[sp]!; stateHash = stackHash[sp]!;
      set.remove(j, ops[j]!.outcome === 'ok');
      if (ops[j]!.outcome === 'ok') okLeft++;
      unlift(c);
      entry = next[c]!;
    }
  }
  return { result: 'ok' };
}
