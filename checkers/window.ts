// For a key the search found non-linearizable: the shortest failing prefix of the history
// (failing is monotone in the prefix, so it can be searched for), trimmed from the left where
// that is provably still failing, and a plain-words account: which op breaks it, which states
// the model could be in at the window's start and where that op could have taken effect.
import type { Op } from '../src/history/types.ts';
import type { Anomaly, Inconsistent, Model } from './types.ts';
import type { Budget } from './budget.ts';
import { searchLinearization, type SearchOutcome } from './search.ts';
import { isInconsistent } from './models/inconsistent.ts';
import type { Unreachable } from './reach.ts';
import type { DescribedModel } from './models/lockpick-model.ts';

/** The ops seen up to event position t; those still open then become unanswered. */
function prefix(ops: readonly Op[], t: number): Op[] {
  const out: Op[] = [];
  for (const op of ops) {
    if (op.invokeSeq > t) continue;
    out.push(op.completeSeq <= t ? op : { ...op, outcome: 'info', value: undefined, completeSeq: Infinity, completeLine: Infinity });
  }
  return out;
}

/** A report lists at most this many op ids of the window (the ones nearest the culprit). */
const MAX_WINDOW_OPS = 1000;

interface Attempt<S> { k: number; ops: Op[]; culprit: Op; result: SearchOutcome<S>; states: Map<string, S> }

/**
 * failed: the deciding search's outcome on all of ops (watched: its watchAll, if it kept one). Every prefix cut before its blockedAt is
 * linearizable, so the search for the shortest failing prefix gallops upward from there (the
 * culprit is usually the very next completion), then bisects. Each attempt also records the
 * states in which its last op could have taken effect: on the shortest failing prefix, what the
 * model expected of that op.
 */
export function explainNonlinearizable<S>(model: Model<S>, key: string, ops: readonly Op[], failed: Extract<SearchOutcome<S>, { result: 'fail' }>, budget: Budget,
  outOfTime?: () => Anomaly, watched?: readonly (Map<string, S> | undefined)[]): Anomaly {
  const cuts = ops.filter((o) => o.outcome === 'ok').map((o) => o.completeSeq).sort((a, b) => a - b);
  const attempt = (k: number): Attempt<S> => {
    const p = prefix(ops, cuts[k]!);
    const at = p.findIndex((o) => o.completeSeq === cuts[k]);
    // The prefix cut at the return that stopped the deciding search fails too (an order of it
    // would get past that return), and before that return the two searches reach the same
    // states (ops invoked later cannot be placed yet; ops open there may be placed or not in
    // both): the deciding search's watchAll (given as `watched`) already holds what this one would find.
    if (watched && cuts[k] === failed.blockedAt) {
      return { k, ops: p, culprit: p[at]!, result: failed, states: watched[ops.indexOf(p[at]!)] ?? new Map<string, S>() };
    }
    const states = new Map<string, S>();
    return { k, ops: p, culprit: p[at]!, result: searchLinearization(model, p, budget, { watch: { op: at, states } }), states };
  };
  let pass = Math.max(0, cuts.indexOf(failed.blockedAt)) - 1;
  let best: Attempt<S> | undefined;
  for (let step = 1; pass + 1 < cuts.length; step *= 2) {
    const t = attempt(Math.min(pass + step, cuts.length - 1));
    if (t.result.result === 'unknown') break;
    if (t.result.result === 'fail') { best = t; break; }
    pass = t.k;
  }
  while (best && pass + 1 < best.k) {
    const t = attempt((pass + best.k) >>> 1);
    if (t.result.result === 'unknown') break; // out of budget: keep the shortest failing prefix so far
    if (t.result.result === 'fail') best = t; else pass = t.k;
  }
  if (!best && outOfTime) return outOfTime();
  let minimal = best?.ops ?? ops.slice();
  const trimmed = best && pass + 1 === best.k ? trimLeft(model, best.ops, best.culprit, budget) : undefined;
  const culprit = best?.culprit ?? ops.find((o) => o.completeSeq === failed.blockedAt) ?? ops[ops.length - 1]!;
  const m = model as DescribedModel<S>;
  const say = (op: Op) => `process ${op.process}'s ${m.describeOp ? m.describeOp(op) : op.f} (lines ${op.invokeLine}–${Number.isFinite(op.completeLine) ? op.completeLine : 'no answer'})`;
  let detail = '';
  if (best) {
    const states = [...best.states.values()];
    const steps = states.map((st) => ({ st, r: model.step(st, culprit) }));
    const refused = steps.filter((x) => isInconsistent(x.r));
    const fits = steps.filter((x) => !isInconsistent(x.r));
    const list = (xs: { st: S }[]) => orList(xs.map((x) => model.describe(x.st)).sort());
    if (states.length === 0) detail = ' No consistent order of the operations before it even reaches a point where it could take effect.';
    else {
      if (refused.length) detail += ` Where it could take effect the ${model.name} was in state ${list(refused)}` + (refused.length === 1 ? `: ${(refused[0]!.r as Inconsistent).reason}.` : ', none of which allows it.');
      if (fits.length) detail += ` It fits only in state ${list(fits)}, and from there the other operations cannot all be ordered.`;
    }
  } else {
    detail = ` (The search for the shortest failing window ran out of time; this is the whole history.) The longest consistent order found places ${failed.deepest.length} of them and ends in state: ${model.describe(failed.deepestState)}.`;
  }
  const proven = best !== undefined && pass + 1 === best.k;
  let from = '';
  if (trimmed) {
    minimal = trimmed.window;
    const carried = trimmed.window.filter((o) => o.invokeSeq < trimmed.cut.invokeSeq).length;
    from = ` From line ${trimmed.cut.invokeLine} on (nothing was in flight there) the ${model.name} could only be in state ` +
      `${orList([...trimmed.states.values()].map((st) => model.describe(st)).sort())}, whatever the order of the ${trimmed.before} operations before; ` +
      (minimal.length === 1 ? 'from there this one operation cannot take effect' : `from there these ${minimal.length} operations cannot be ordered`) +
      (carried ? ` (${carried} of them earlier unanswered ones that might take effect later).` : '.');
  }
  const lastLine = minimal.reduce((mx, o) => Math.max(mx, Number.isFinite(o.completeLine) ? o.completeLine : o.invokeLine), 0);
  const ids = minimal.filter((o) => o.outcome !== 'fail').map((o) => o.id);
  return {
    type: 'nonlinearizable',
    key,
    processes: [culprit.process],
    lines: [culprit.invokeLine, culprit.completeLine],
    ops: ids.length > MAX_WINDOW_OPS ? ids.slice(-MAX_WINDOW_OPS) : ids,
    message:
      `no order of the ${(best?.ops ?? ops).length} operations on ${key === '' ? 'this key' : `key "${key}"`} up to line ${lastLine} fits the ${model.name} model; ` +
      (proven
        ? `everything before ${say(culprit)} returned still fits, so that is where it breaks.`
        : `it breaks at or before ${say(culprit)} (out of time to narrow it further).`) + from + detail,
  };
}

/**
 * An ok op that fits no state the model can reach at all by its return (checkers/reach.ts):
 * that op alone is the window (the words when the shortest failing prefix is out of reach).
 */
export function explainUnreachable<S>(model: Model<S>, key: string, u: Unreachable<S>): Anomaly {
  const op = u.op;
  const m = model as DescribedModel<S>;
  const what = `process ${op.process}'s ${m.describeOp ? m.describeOp(op) : op.f} (lines ${op.invokeLine}–${op.completeLine})`;
  const states = u.states.map((st) => model.describe(st)).sort();
  const shown = states.length > 12 ? [...states.slice(0, 12), `${states.length - 12} more`] : states;
  const why = u.states.length === 1 ? ` (${(model.step(u.states[0]!, op) as Inconsistent).reason})` : '';
  return {
    type: 'nonlinearizable',
    key,
    processes: [op.process],
    lines: [op.invokeLine, op.completeLine],
    ops: [op.id],
    message: `no order of the operations on ${key === '' ? 'this key' : `key "${key}"`} fits the ${model.name} model: ${what} fits no state ` +
      `the ${model.name} can reach by any sequence of the operations invoked before it returned (it can only be in state ${orList(shown)})${why}, ` +
      'so it cannot take effect anywhere.',
  };
}

/** "a", "a or b", "a, b or c". */
function orList(xs: string[]): string {
  return xs.length <= 1 ? (xs[0] ?? '') : `${xs.slice(0, -1).join(', ')} or ${xs[xs.length - 1]}`;
}

/** Most cuts tried when trimming a window from the left (each costs a full search of what precedes it). */
const MAX_CUTS = 8;

interface Trimmed<S> { cut: Op; window: Op[]; states: Map<string, S>; before: number }

/**
 * The shortest failing prefix, trimmed from the left at a point where no ok op is in flight:
 * the ops before the cut can only leave the model in a few states (all collected); if the rest,
 * with the earlier unanswered ops still free to take effect, fails from every one of them, the
 * rest alone shows the violation. Latest cuts first; undefined when no cut works in budget.
 */
function trimLeft<S>(model: Model<S>, p: readonly Op[], culprit: Op, budget: Budget): Trimmed<S> | undefined {
  const cuts: Op[] = [];
  let okEnd = -1;
  for (const o of p) {
    if (o.invokeSeq > culprit.invokeSeq) break;
    if (okEnd < o.invokeSeq && o !== p[0]) cuts.push(o);
    if (o.outcome === 'ok') okEnd = Math.max(okEnd, o.completeSeq);
  }
  const tried = cuts.reverse().slice(0, MAX_CUTS);
  if (tried.length === 0) return undefined;
  // One order of everything before the latest cut serves every cut: the ops invoked after a cut
  // come after every ok op before it, so the order's prefix up to the last of those is an order
  // of what precedes that cut, and its state one the window must be tried from. When the window
  // fits there, that cut is done without exploring every order before it.
  const first = p.filter((o) => o.invokeSeq < tried[0]!.invokeSeq);
  const order: number[] = [];
  if (searchLinearization(model, first, budget, { order }).result !== 'ok') return undefined;
  const along: S[] = [model.init()];
  for (const i of order) along.push(model.step(along[along.length - 1]!, first[i]!) as S);
  for (const cut of tried) {
    const before = p.filter((o) => o.invokeSeq < cut.invokeSeq);
    const window = p.filter((o) => o.invokeSeq >= cut.invokeSeq || o.outcome !== 'ok');
    let lastOk = -1;
    order.forEach((i, k) => { if (first[i]!.outcome === 'ok' && first[i]!.invokeSeq < cut.invokeSeq) lastOk = k; });
    const witness = searchLinearization(model, window, budget, { initial: along[lastOk + 1]! });
    if (witness.result === 'unknown') return undefined;
    if (witness.result === 'ok') continue;
    const states = new Map<string, S>();
    // The window is tried from each final state as the search finds it: one it fits in ends this
    // cut at once, so the search explores every order only for the cut that shows the violation.
    let outcome: 'fits' | 'unknown' | undefined;
    const fits = (initial: S): boolean => {
      const r = searchLinearization(model, window, budget, { initial });
      if (r.result !== 'fail') outcome = r.result === 'ok' ? 'fits' : 'unknown';
      return outcome !== undefined;
    };
    if (searchLinearization(model, before, budget, { finals: states, onFinal: fits }).result !== 'ok' || outcome === 'unknown') return undefined;
    if (outcome === undefined) return { cut, window, states, before: before.length };
  }
  return undefined;
}
