// General linearizability search for one partition: Wing–Gong–Lowe with memoisation of
// (set of linearized ops, model state), as in Porcupine. It knows nothing of any model.
// fail ops must be removed before; info ops (outcome 'info') may take effect at any point
// after their invoke or never: their returns sit after every other event, and the search
// succeeds as soon as every ok op is linearized.
import type { Op } from '../src/history/types.ts';
import type { Inconsistent, Model } from './types.ts';
import { checkDue, type Budget } from './budget.ts';
import { LinearizedSet } from './memo.ts';
import { isInconsistent } from './models/inconsistent.ts';
import type { DescribedModel } from './models/lockpick-model.ts';

export type SearchOutcome<S> =
  | { result: 'ok' }
  // deepest: op indices of the longest order found. blockedAt: the latest completion (event
  // position) of an ok op that stopped the search; every prefix cut before it is linearizable.
  | { result: 'fail'; deepest: number[]; deepestState: S; blockedAt: number }
  // Stopped by the budget: what it had found by then (the longest consistent order's length,
  // and the latest return that stopped it, -1 if none yet).
  | { result: 'unknown'; reason: string; placed: number; blockedAt: number };

const CHECK_EVERY = 4096;
/** Entries of the search's (state, info kind) table (a byte each) past which every kind is tried in every state. */
const USEFUL_MAX = 1 << 22;

export interface SearchOptions<S> {
  /**
   * Records, by hash, every state in which op `watch.op` (an index into ops) could take effect,
   * i.e. the states the search reaches while that op is ready to be placed. On a failing search
   * (which explores everything) that is the complete set: what the model expected of it.
   */
  watch?: { op: number; states: Map<string, S> };
  /**
   * As watch, for every ok op at once: watchAll[i] gets the states in which op i could take effect.
   * A failing search so tells checkers/window.ts what the model expected of the op whose return
   * stopped it, without searching again.
   */
  watchAll?: (Map<string, S> | undefined)[];
  /** Start from this state instead of model.init(). */
  initial?: S;
  /** Explore everything and collect every state a complete order can end in ('ok' if any). */
  finals?: Map<string, S>;
  /**
   * With finals: called with each new final state as it is found; returning true stops the
   * search there ('ok', finals incomplete). A caller that needs only one final with some
   * property need not explore every order (checkers/window.ts trimLeft).
   */
  onFinal?: (state: S) => boolean;
  /** Without finals: on success, filled with the op indices of the order found, in order. */
  order?: number[];
}

export function searchLinearization<S>(model: Model<S>, ops: readonly Op[], budget: Budget, opts: SearchOptions<S> = {}): SearchOutcome<S> {
  // Every option is read here, at the first step: a read first made after the loop would find no
  // type feedback there, and the engine would throw the loop's optimized code away at it.
  const { watch, watchAll, finals, onFinal, order } = opts;
  /** Records a final state; true when onFinal asks to stop. */
  const final = (hs: string, st: S): boolean => {
    if (finals!.has(hs)) return false;
    finals!.set(hs, st);
    return onFinal !== undefined && onFinal(st);
  };
  const n = ops.length;
  const opKey = (model as DescribedModel<S>).opKey;

  // Interchangeable info ops (same model.opKey, e.g. two unanswered "write 2"): once both are
  // invoked, placing the later one is the mirror image of placing the earlier, so only the
  // earliest unplaced one of each kind is tried. With an opKey, info ops stay out of the linked
  // list: each kind offers its earliest unplaced op, so a step looks at the few kinds instead of
  // walking past every unplaced info op invoked so far (thousands on a long history). The
  // candidates are still tried in the same order (by invoke position) as the list would give.
  const { kindOf, kindOps } = infoKinds(ops, opKey);
  const placedOfKind = new Int32Array(kindOps.length);
  // By state id (stateIdOf): an array index, where a Map of state hashes cost a string lookup a step.
  const kindSteps = kindOps.map((): ({ r: S | Inconsistent; hs: string } | undefined)[] => []);
  /** Position of each kind's earliest unplaced op (Infinity: none left), kept beside placedOfKind. */
  const nKinds = kindOps.length;
  const kindPos = new Float64Array(nKinds);
  /**
   * The kinds sorted by kindPos, and each kind's place there: a candidate is found by a binary
   * search, not by a look at every kind at every step (a step is far more frequent than a move
   * of a kind, which keeps the order by moving one kind a few places).
   */
  const byPos = new Int32Array(nKinds);
  const rank = new Int32Array(nKinds);
  const kindMoved = (k: number, by: number) => {
    const list = kindOps[k]!, at = (placedOfKind[k]! += by);
    // Past the end is Infinity, by a look at the length (a read past an array's end throws the optimized code away).
    const p = kindPos[k] = at < list.length ? ops[list[at]!]!.invokeSeq : Infinity;
    let r = rank[k]!;
    for (; r + 1 < nKinds && kindPos[byPos[r + 1]!]! < p; r++) rank[byPos[r] = byPos[r + 1]!] = r;
    for (; r > 0 && kindPos[byPos[r - 1]!]! > p; r--) rank[byPos[r] = byPos[r - 1]!] = r;
    byPos[r] = k; rank[k] = r;
  };
  for (let k = 0; k < nKinds; k++) kindPos[k] = ops[kindOps[k]![0]!]!.invokeSeq;
  Array.from(kindPos.keys()).sort((a, b) => kindPos[a]! - kindPos[b]!).forEach((k, r) => { byPos[r] = k; rank[k] = r; });

  const { pos, order: listed, okOps } = eventList(ops, kindOf);
  const { next, prev } = linked(listed, pos);
  let okLeft = okOps;

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

  const set = new LinearizedSet(ops, kindOf, kindOps.length);

  /**
   * The next candidate at list node `entry`: the call there while the walk is among the calls
   * before the first return (every ok op is tried before any info op), else, `entry` being that
   * first return (or -1), an info op (by its index, as -2 - i) whose kind offers one invoked after
   * position `after` and before that return and is worth trying in this state (worthTrying),
   * else `entry` itself (the return, or -1). Info ops last: each may take effect at any point or
   * never, so a valid history is mostly linearized without them, and an info op tried first (by
   * its invoke position) was placed eagerly at every configuration only to be undone there. The
   * candidates of a configuration are the same set either way; only their order changes.
   */
  const candidate = (entry: number, after: number): number => {
    if (entry !== -1 && ((entry - 1) & 1) === 0) return entry;
    if (nKinds === 0) return entry;
    // The kind whose earliest unplaced op comes first after `after` (positions are distinct but Infinity).
    let lo = 0, hi = nKinds;
    while (lo < hi) { const mid = (lo + hi) >>> 1; if (kindPos[byPos[mid]!]! > after) hi = mid; else lo = mid + 1; }
    const limit = entry === -1 ? Infinity : pos[entry - 1]!;
    for (let r = lo; r < nKinds; r++) {
      const k = byPos[r]!;
      if (!(kindPos[k]! < limit)) return entry; // sorted by position: none further
      if (worthTrying(k)) return -2 - kindOps[k]![placedOfKind[k]!]!;
    }
    return entry;
  };
  /**
   * Whether kind k's op may be placed in the current state: not when its step is refused there or
   * changes nothing (the loop below would reject it, at the cost of a step; an unanswered op can
   * be tried at hundreds of thousands of configurations). Known per (state, kind), in a table
   * bounded by USEFUL_MAX (past it every kind is tried). Not with `watch`, which records the
   * states in which its op is a candidate at all.
   */
  let useful = new Int8Array(nKinds * 16); // [state id * nKinds + kind]: 0 unknown, 1 worth trying, 2 not
  const worthTrying = (k: number): boolean => {
    if (watch) return true;
    const sid = stateId;
    if ((sid + 1) * nKinds > USEFUL_MAX) return true;
    if ((sid + 1) * nKinds > useful.length) { const u = new Int8Array(Math.max(useful.length * 2, (sid + 1) * nKinds)); u.set(useful); useful = u; }
    const at = sid * nKinds + k;
    if (useful[at] === 0) {
      const hit = kindStep(k);
      useful[at] = isInconsistent(hit.r) || hit.hs === stateHash ? 2 : 1;
    }
    return useful[at] === 1;
  };
  /** Kind k's step from the current state, and its hash: same kind, same effect in every state (opKey's contract), so each kind is stepped once per state. */
  const kindStep = (k: number): { r: S | Inconsistent; hs: string } => {
    const cache = kindSteps[k]!;
    let hit = cache[stateId];
    if (hit === undefined) {
      const x = model.step(state, ops[kindOps[k]![placedOfKind[k]!]!]!);
      cache[stateId] = hit = { r: x, hs: isInconsistent(x) ? '' : model.hash(x) };
    }
    return hit;
  };
  /** The first return in the list (or -1): where the walk of a configuration's calls ends and its info ops are tried. */
  const firstReturn = (): number => {
    let e = next[0]!;
    while (e !== -1 && ((e - 1) & 1) === 0) e = next[e]!;
    return e;
  };

  const stackNode = new Int32Array(n);   // the list node placed, or -2 - i for info op i (kept out of the list)
  const stackState: S[] = new Array(n);
  const stackHash: string[] = new Array(n);
  const stackId = new Int32Array(n);
  let sp = 0;
  let state = opts.initial !== undefined ? opts.initial : model.init();
  let stateHash = model.hash(state);
  /** Each state hash met gets a small id, once: the memo, the kinds' steps and worthTrying index by it. */
  const stateIds = new Map<string, number>();
  const stateIdOf = (hs: string): number => {
    let id = stateIds.get(hs);
    if (id === undefined) stateIds.set(hs, (id = stateIds.size));
    return id;
  };
  let stateId = stateIdOf(stateHash);
  // The longest order found, as stack nodes: refreshed only from the lowest stack level popped
  // since, so keeping it costs O(pushes), not O(depth) per deeper dead end.
  const deepestNodes = new Int32Array(n);
  let deepestLen = 0, low = 0;
  let deepestState = state;
  const deepest = () => Array.from(deepestNodes.subarray(0, deepestLen), opOf);
  let blockedAt = -1;
  let steps = 0;
  let entry = next[0]!;
  let after = -Infinity;
  if (finals && okLeft === 0 && final(stateHash, state)) return { result: 'ok' };
  const opOf = (c: number) => (c < -1 ? -2 - c : (c - 1) >>> 1);
  /**
   * Whether op i, stepping to a state hashed hs, would make the info op just placed (the top of
   * the stack) pointless: from the state before that info op, op i succeeds and ends in the same
   * state. Then the order without the info op (tried from the config below, where op i is a
   * candidate too: placing an info op changes no other op's candidacy) reaches a config that
   * dominates this one, so this branch is skipped. Not for an op of the info op's own kind
   * (only the earliest of a kind is offered, so it is no candidate below).
   */
  const undoesInfo = (i: number, hs: string): boolean => {
    if (sp === 0) return false;
    const j = opOf(stackNode[sp - 1]!);
    if (ops[j]!.outcome === 'ok' || (kindOf[i] !== -1 && kindOf[i] === kindOf[j])) return false;
    const r0 = model.step(stackState[sp - 1]!, ops[i]!);
    return !isInconsistent(r0) && model.hash(r0) === hs;
  };

  while (okLeft > 0 || finals) {
    if (checkDue(++steps, CHECK_EVERY)) {
      const reason = budget.check();
      if (reason) return { result: 'unknown', reason, placed: Math.max(deepestLen, sp), blockedAt };
    }
    const c = candidate(entry, after);
    const i = opOf(c);
    if (c < -1 || (c !== -1 && ((c - 1) & 1) === 0)) {
      const op = ops[i]!;
      if (watch && i === watch.op) watch.states.set(stateHash, state);
      if (watchAll && op.outcome === 'ok') (watchAll[i] ??= new Map()).set(stateHash, state);
      let r: S | Inconsistent, hs: string;
      if (c < -1) {
        const hit = kindStep(kindOf[i]!);
        r = hit.r; hs = hit.hs;
      } else {
        r = model.step(state, op);
        hs = isInconsistent(r) ? '' : model.hash(r);
      }
      if (!isInconsistent(r)) {
        const info = op.outcome !== 'ok';
        // An info op that changes nothing here is never worth linearizing here: skipping it dominates.
        if (!(info && hs === stateHash) && !undoesInfo(i, hs)) {
          set.add(i, !info);
          const id = stateIdOf(hs);
          if (!set.seenWithId(id)) {
            stackNode[sp] = c; stackState[sp] = state; stackHash[sp] = stateHash; stackId[sp] = stateId; sp++;
            state = r as S; stateHash = hs; stateId = id;
            if (!info) okLeft--;
            if (finals && okLeft === 0 && final(hs, state)) return { result: 'ok' };
            if (c >= 0) lift(c); else kindMoved(kindOf[i]!, 1);
            entry = next[0]!; after = -Infinity;
            continue;
          }
          set.remove(i, !info);
        }
      }
      if (c >= 0) entry = next[c]!; else after = pos[2 * i]!;
    } else {
      // The return of an op not yet linearized (or, collecting finals, the end of the list or
      // an info op's return): this branch is done, undo the last choice.
      // A dead end deeper than any before is the best partial order so far (kept for the report;
      // copied only here, so a search that never backtracks copies nothing).
      if (sp > deepestLen) {
        deepestNodes.set(stackNode.subarray(low, sp), low);
        deepestLen = low = sp; deepestState = state;
      }
      // Every return before this one was lifted, so every ok op completing earlier is placed here.
      if (c !== -1 && ops[i]!.completeSeq > blockedAt && okLeft > 0) blockedAt = ops[i]!.completeSeq;
      if (sp === 0) return finals?.size ? { result: 'ok' } : { result: 'fail', deepest: deepest(), deepestState, blockedAt };
      sp--;
      if (sp < low) low = sp;
      const d = stackNode[sp]!;
      const j = opOf(d);
      state = stackState[sp]!; stateHash = stackHash[sp]!; stateId = stackId[sp]!;
      set.remove(j, ops[j]!.outcome === 'ok');
      if (ops[j]!.outcome === 'ok') okLeft++;
      if (d >= 0) { unlift(d); entry = next[d]!; after = -Infinity; } else { kindMoved(kindOf[j]!, -1); entry = firstReturn(); after = pos[2 * j]!; }
    }
  }
  if (order) for (let k = 0; k < sp; k++) order.push(opOf(stackNode[k]!));
  return { result: 'ok' };
}

// The search's set-up, each loop over the history in a function of its own: on a long history the
// engine compiles a loop while it runs (on-stack replacement), and code after such a loop in the
// same function, never run before, has no type feedback: the search's optimized code was thrown
// away there (`node --trace-deopt`), and compiled again later (~40 ms of a core).

/** Each info op's kind (-1: an ok op, or no opKey) and each kind's ops in index order. */
function infoKinds(ops: readonly Op[], opKey: ((op: Op) => string) | undefined): { kindOf: Int32Array; kindOps: number[][] } {
  const kindOf = new Int32Array(ops.length).fill(-1);
  const kindOps: number[][] = [];
  if (!opKey) return { kindOf, kindOps };
  const kinds = new Map<string, number>();
  for (let i = 0; i < ops.length; i++) {
    if (ops[i]!.outcome === 'ok') continue;
    const k = opKey(ops[i]!);
    let id = kinds.get(k);
    if (id === undefined) { kinds.set(k, (id = kindOps.length)); kindOps.push([]); }
    kindOf[i] = id;
    kindOps[id]!.push(i);
  }
  return { kindOf, kindOps };
}

/**
 * The entries of the events list (linked): 2i = call of op i, 2i+1 = its return; pos: each
 * entry's position (an info op returns at Infinity). Ops of a kind stay out of the list (their
 * kind offers them). okOps: the ok ops.
 */
function eventList(ops: readonly Op[], kindOf: Int32Array): { pos: Float64Array; order: number[]; okOps: number } {
  const n = ops.length;
  const order: number[] = [];
  const pos = new Float64Array(2 * n);
  let okOps = 0;
  for (let i = 0; i < n; i++) {
    const op = ops[i]!;
    pos[2 * i] = op.invokeSeq;
    pos[2 * i + 1] = op.outcome === 'ok' ? op.completeSeq : Infinity;
    if (op.outcome === 'ok') okOps++;
    if (kindOf[i] === -1) order.push(2 * i, 2 * i + 1);
  }
  return { pos, order, okOps };
}

/** The entries `order` as a doubly linked list sorted by pos (ties by entry): node = entry + 1, node 0 the head, -1 the end. */
function linked(order: number[], pos: Float64Array): { next: Int32Array; prev: Int32Array } {
  order.sort((a, b) => pos[a]! - pos[b]! || a - b);
  const next = new Int32Array(pos.length + 1);
  const prev = new Int32Array(pos.length + 1);
  let last = 0;
  for (const e of order) { next[last] = e + 1; prev[e + 1] = last; last = e + 1; }
  next[last] = -1;
  return { next, prev };
}
