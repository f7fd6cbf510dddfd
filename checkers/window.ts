// For a key the search found non-linearizable: the shortest failing prefix of the history
// (binary search over ok completions; failing is monotone in the prefix) and a plain-words
// account of where the longest consistent order found breaks down.
import type { Op } from '../src/history/types.ts';
import type { Anomaly, Inconsistent, Model } from './types.ts';
import type { Budget } from './budget.ts';
import { searchLinearization } from './search.ts';
import { isInconsistent } from './models/inconsistent.ts';
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

export function explainNonlinearizable<S>(model: Model<S>, key: string, ops: readonly Op[], budget: Budget): Anomaly {
  // Smallest ok completion at which the prefix stops being linearizable. Invariant: prefix(cuts[hi]) fails.
  const cuts = ops.filter((o) => o.outcome === 'ok').map((o) => o.completeSeq).sort((a, b) => a - b);
  let lo = 0, hi = cuts.length - 1;
  let minimal = prefix(ops, cuts[hi]!);
  let result = searchLinearization(model, minimal, budget);
  while (lo < hi && result.result === 'fail') {
    const mid = (lo + hi) >>> 1;
    const p = prefix(ops, cuts[mid]!);
    const r = searchLinearization(model, p, budget);
    if (r.result === 'unknown') break; // out of budget: keep the shortest failing prefix so far
    if (r.result === 'fail') { hi = mid; minimal = p; result = r; } else lo = mid + 1;
  }
  const culpritAt = minimal.findIndex((o) => o.completeSeq === cuts[hi]);
  const culprit = minimal[culpritAt >= 0 ? culpritAt : minimal.length - 1]!;
  const m = model as DescribedModel<S>;
  const say = (op: Op) => `process ${op.process}'s ${m.describeOp ? m.describeOp(op) : op.f} (lines ${op.invokeLine}–${Number.isFinite(op.completeLine) ? op.completeLine : 'no answer'})`;
  // What the model expected: every state in which the culprit could have taken effect.
  const watch = { op: minimal.indexOf(culprit), states: new Map<string, S>() };
  const watched = searchLinearization(model, minimal, budget, watch);
  let detail = '';
  if (watched.result === 'fail') {
    const states = [...watch.states.values()];
    const steps = states.map((st) => ({ st, r: model.step(st, culprit) }));
    const refused = steps.filter((x) => isInconsistent(x.r));
    const fits = steps.filter((x) => !isInconsistent(x.r));
    const list = (xs: { st: S }[]) => orList(xs.map((x) => model.describe(x.st)).sort());
    if (states.length === 0) detail = ' No consistent order of the operations before it even reaches a point where it could take effect.';
    else {
      if (refused.length) detail += ` Where it could take effect the ${model.name} was in state ${list(refused)}` + (refused.length === 1 ? `: ${(refused[0]!.r as Inconsistent).reason}.` : ', none of which allows it.');
      if (fits.length) detail += ` It fits only in state ${list(fits)}, and from there the other operations cannot all be ordered.`;
    }
  } else if (result.result === 'fail') {
    detail = ` The longest consistent order found places ${result.deepest.length} of them and ends in state: ${model.describe(result.deepestState)}.`;
  }
  const lastLine = Math.max(...minimal.map((o) => (Number.isFinite(o.completeLine) ? o.completeLine : o.invokeLine)));
  return {
    type: 'nonlinearizable',
    key,
    processes: [culprit.process],
    lines: [culprit.invokeLine, culprit.completeLine],
    ops: minimal.filter((o) => o.outcome !== 'fail').map((o) => o.id),
    message:
      `no order of the ${minimal.length} operations on ${key === '' ? 'this key' : `key "${key}"`} up to line ${lastLine} fits the ${model.name} model; ` +
      `everything before ${say(culprit)} returned still fits, so that is where it breaks.${detail}`,
  };
}

/** "a", "a or b", "a, b or c". */
function orList(xs: string[]): string {
  return xs.length <= 1 ? (xs[0] ?? '') : `${xs.slice(0, -1).join(', ')} or ${xs[xs.length - 1]}`;
}
