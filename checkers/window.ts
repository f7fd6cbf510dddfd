// For a key the search found non-linearizable: the shortest failing prefix of the history
// (binary search over ok completions; failing is monotone in the prefix) and a plain-words
// account of where the longest consistent order found breaks down.
import type { Op } from '../src/history/types.ts';
import type { Anomaly, Model } from './types.ts';
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
  const culprit = minimal.find((o) => o.completeSeq === cuts[hi]) ?? minimal[minimal.length - 1]!;
  const m = model as DescribedModel<S>;
  const say = (op: Op) => `process ${op.process}'s ${m.describeOp ? m.describeOp(op) : op.f} (lines ${op.invokeLine}–${Number.isFinite(op.completeLine) ? op.completeLine : 'no answer'})`;
  let detail = '';
  if (result.result === 'fail') {
    const placed = result.deepest.length;
    const s = result.deepestState;
    const step = model.step(s, culprit);
    detail = ` The longest consistent order found places ${placed} of them, leaving the ${model.name} ${model.describe(s)}` +
      (isInconsistent(step) ? `; then ${step.reason}.` : '.');
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
      `the history up to just before ${say(culprit)} returned still fits, so that op is where it breaks.${detail}`,
  };
}
