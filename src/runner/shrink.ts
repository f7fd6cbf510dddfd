// Shrinking a violating plan on real servers. A run costs seconds and its
// timing varies, so fast-check's blind shrink (halving every number in turn)
// spends the budget on candidates that cannot fail. This shrinker uses what
// the checker found:
//   1. prune: keep only the clients the anomalies name, and only their
//      attempts up to the anomaly (one run, a few tries);
//   2. structure: drop one fault, silence one client, then drop one attempt
//      at a time (latest first);
//   3. numbers: fast-check's own shrink stream for the plan (no context
//      needed), for smaller delays and times;
//   4. order: the smallest run's order of events pinned into its plan
//      (pin-order.ts), kept when it breaks the lock R of R times.
// A candidate counts as failing if one of its tries breaks the lock with every
// kind of anomaly the first violation showed (a stale unlock must not vanish
// from the result because a smaller plan only showed the double holder), or
// what `keep` asks instead (the same failure class by cause), and the next
// SHRINK_HOLD − 1 runs of it break it the same way: a simplification is kept only
// if it failed R of R times (R = SHRINK_HOLD), so what is stored is what replays,
// not a plan shrunk to the edge of a timing window where it broke once by luck.
// The smallest failing plan so far is kept whatever the budget does. With
// hold 1 (the old rule), the result is confirmed at the end instead: the
// smallest plans are run once more, smallest first, and the first that breaks
// again is the result (else the smallest, marked unconfirmed). A run that throws (it could
// not go on: search.ts keeps the violation) ends shrinking with the smallest so far and its error.
import type fc from 'fast-check';
import { clientId, planOps, type RunPlan } from '../workload/plan.ts';
import type { RunOutcome } from './session.ts';
import { pinOrder } from './pin-order.ts';

/** The clients the anomalies of a run name, and how many attempts of each happened up to the last anomaly line. */
export function involvement(o: Pick<RunOutcome, 'events' | 'check' | 'resource'>): { clients: Set<string>; attempts: Map<string, number> } | null {
  const clientOf = new Map<number, string>();
  for (const e of o.events) if (e.process !== 'nemesis' && typeof e.client === 'string') clientOf.set(e.process as number, e.client);
  const anomalies = [...o.check.anomalies, ...o.resource.anomalies];
  const clients = new Set<string>();
  for (const a of anomalies) for (const p of a.processes) {
    const c = clientOf.get(p);
    if (c) clients.add(c);
  }
  if (clients.size === 0) return null;
  // Lines of a run's check are 1-based positions in its events; resource anomalies have none.
  const lines = o.check.anomalies.flatMap((a) => a.lines);
  const upTo = lines.length && o.resource.anomalies.length === 0 ? Math.max(...lines) : o.events.length;
  const attempts = new Map<string, number>();
  o.events.slice(0, upTo).forEach((e) => {
    if (e.type === 'invoke' && e.f === 'acquire' && typeof e.client === 'string') attempts.set(e.client, (attempts.get(e.client) ?? 0) + 1);
  });
  return { clients, attempts };
}

/** The kinds of anomaly a run showed, lock and resource ('double-holder', 'stale-release', 'lost-update', ...). */
export function anomalyKinds(o: Pick<RunOutcome, 'check' | 'resource'>): Set<string> {
  return new Set([...o.check.anomalies, ...o.resource.anomalies].map((a) => a.type));
}

/** The plan cut down to the clients and attempts the violation involved; null when that cuts nothing. */
export function prunePlan(plan: RunPlan, o: Pick<RunOutcome, 'events' | 'check' | 'resource'>): RunPlan | null {
  const inv = involvement(o);
  if (!inv) return null;
  const pruned: RunPlan = {
    ...plan,
    clients: plan.clients.map((c, i) => {
      const id = clientId(i);
      if (!inv.clients.has(id)) return { attempts: [] };
      return { attempts: c.attempts.slice(0, Math.max(1, inv.attempts.get(id) ?? c.attempts.length)) };
    }),
  };
  return planOps(pruned) < planOps(plan) ? pruned : null;
}

/** Smaller plans by structure: one fault fewer (never none), one client silenced, then one attempt fewer, latest attempts first. */
export function* structuralCandidates(plan: RunPlan): Generator<RunPlan> {
  if (plan.faults.length > 1) {
    for (let i = plan.faults.length - 1; i >= 0; i--) yield { ...plan, faults: plan.faults.filter((_, j) => j !== i) };
  }
  const busy = plan.clients.map((c, i) => (c.attempts.length > 1 ? i : -1)).filter((i) => i >= 0);
  if (plan.clients.filter((c) => c.attempts.length > 0).length > 1) {
    for (const ci of busy) yield { ...plan, clients: plan.clients.map((c, j) => (j === ci ? { attempts: [] } : c)) };
  }
  const where: [number, number][] = [];
  plan.clients.forEach((c, ci) => c.attempts.forEach((_, ai) => where.push([ci, ai])));
  where.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  for (const [ci, ai] of where) {
    yield { ...plan, clients: plan.clients.map((c, j) => (j === ci ? { attempts: c.attempts.filter((_, k) => k !== ai) } : c)) };
  }
}

/** R: how many runs in a row a smaller plan must break the lock in to be kept (and stored). */
export const SHRINK_HOLD = 2;

export interface ShrinkOptions {
  arb: fc.Arbitrary<RunPlan>;
  runOnce(plan: RunPlan): Promise<RunOutcome>;
  budgetMs: number;
  /** Runs per structural candidate before it counts as safe (timing varies run to run). */
  tries?: number;
  /** Runs spent confirming the result after the budget, with hold 1 (default 2). */
  confirmRuns?: number;
  /** R: a smaller plan is kept only if it broke the lock in R runs of R (default SHRINK_HOLD). */
  hold?: number;
  /** Pin the smallest run's order of events into its plan (default true): pin-order.ts. */
  pin?: boolean;
  /** What a smaller violation must show, instead of every kind of anomaly the first showed (a class by cause: search.ts). */
  keep?(out: RunOutcome): boolean;
}

export interface ShrinkResult {
  minimal: RunOutcome;
  runs: number;
  interrupted: boolean;
  /** The minimal plan broke the lock again on a confirmation run (or shrinking found nothing smaller and no run was left to confirm). */
  confirmed: boolean;
  /** A run could not go on (runOnce threw): shrinking stopped there, with the smallest violation it had. */
  error?: unknown;
}

/** runOnce threw: carries its error out of the shrinking steps to shrinkRun, which keeps what it had. */
class RunFailed {
  constructor(readonly error: unknown) {}
}

export async function shrinkRun(first: RunOutcome, o: ShrinkOptions): Promise<ShrinkResult> {
  const deadline = performance.now() + o.budgetMs;
  const tries = Math.max(1, o.tries ?? 2);
  const hold = Math.max(1, o.hold ?? SHRINK_HOLD);
  let best = first;
  const chain: RunOutcome[] = [];   // every accepted smaller violation, in order
  let runs = 0;
  let interrupted = false;
  const seen = new Set<string>([JSON.stringify(first.plan)]);
  try {
    return await shrinkSteps();
  } catch (e) {
    if (!(e instanceof RunFailed)) throw e;
    // Every plan kept broke the lock hold times in a row when it was kept: that much is confirmed.
    return { minimal: best, runs, interrupted: true, confirmed: hold > 1 && chain.length > 0, error: e.error };
  }

  async function shrinkSteps(): Promise<ShrinkResult> {
    const wanted = anomalyKinds(first);
    /** A violation with every kind of anomaly the first one showed. */
    const showsAll = (out: RunOutcome) => out.verdict === false && (o.keep ? o.keep(out) : [...wanted].every((k) => anomalyKinds(out).has(k)));
    const timeLeft = () => {
      if (performance.now() < deadline) return true;
      interrupted = true;
      return false;
    };
    /** Runs the candidate up to n times; the violating outcome, or null. */
    const attempt = async (plan: RunPlan, n: number): Promise<RunOutcome | null> => {
      const key = JSON.stringify(plan);
      if (seen.has(key)) return null;
      seen.add(key);
      for (let i = 0; i < n && timeLeft(); i++) {
        const out = await runOnce(plan);
        runs++;
        if (process.env.LOCKPICK_DEBUG_SHRINK) process.stderr.write(`shrink: ${planOps(plan)} ops, ${plan.faults.length} fault(s), try ${i + 1}/${n}: ${out.verdict}\n`);
        if (showsAll(out)) return held(plan, out);
      }
      return null;
    };
    /** The failing outcome when the plan breaks the lock the same way in its next hold − 1 runs too, else null. */
    const held = async (plan: RunPlan, out: RunOutcome): Promise<RunOutcome | null> => {
      for (let k = 1; k < hold; k++) {
        if (!timeLeft()) return null;
        const again = await runOnce(plan);
        runs++;
        if (process.env.LOCKPICK_DEBUG_SHRINK) process.stderr.write(`shrink: ${planOps(plan)} ops, held ${k + 1}/${hold}: ${again.verdict}\n`);
        if (!showsAll(again)) return null;
      }
      return out;
    };

    const pruned = prunePlan(best.plan, best);
    const accept = (out: RunOutcome | null): boolean => {
      if (!out) return false;
      best = out;
      chain.push(out);
      return true;
    };
    if (pruned) accept(await attempt(pruned, tries + 1));
    // Structure until no single removal fails any more.
    for (let progress = true; progress && timeLeft();) {
      progress = false;
      for (const cand of structuralCandidates(best.plan)) {
        if (!timeLeft()) break;
        if (accept(await attempt(cand, tries))) {
          // A smaller run may involve fewer clients still.
          const again = prunePlan(best.plan, best);
          if (again) accept(await attempt(again, 1));
          progress = true;
          break;
        }
      }
    }
    // Numbers: the first failing candidate of fast-check's stream wins, then its stream.
    for (let progress = true; progress && timeLeft() && o.arb.canShrinkWithoutContext(best.plan);) {
      progress = false;
      for (const cand of o.arb.shrink(best.plan, undefined)) {
        if (!timeLeft()) break;
        if (planOps(cand.value) > planOps(best.plan) || cand.value.faults.length > best.plan.faults.length) continue;
        if (accept(await attempt(cand.value, 1))) {
          progress = true;
          break;
        }
      }
    }
    // Order: the smallest failing run's order of events pinned into its plan (pin-order.ts), kept if it
    // breaks the lock R of R times (what is stored then replays by events, not by times alone), within the budget.
    const pinnedPlan = o.pin === false ? null : pinOrder(best.plan, best.events);
    if (pinnedPlan) {
      let out: RunOutcome | null = null;
      for (let k = 0; k < hold; k++) {
        if (!timeLeft()) { out = null; break; }
        const again = await runOnce(pinnedPlan);
        runs++;
        if (process.env.LOCKPICK_DEBUG_SHRINK) process.stderr.write(`shrink: order pinned, ${k + 1}/${hold}: ${again.verdict}\n`);
        if (!showsAll(again)) { out = null; break; }
        out ??= again;
      }
      if (out && hold > 1) return { minimal: out, runs, interrupted, confirmed: true };
      if (out) accept(out);
    }
    // Every plan kept broke the lock hold times in a row: the smallest is confirmed.
    if (hold > 1 && chain.length > 0) return { minimal: best, runs, interrupted, confirmed: true };
    if (chain.length === 0) {
      // Nothing smaller: the first violation itself must come back hold − 1 more times (after the budget, as a confirmation).
      for (let k = 1; k < hold && (o.confirmRuns ?? 2) > 0; k++) {
        const again = await runOnce(first.plan);
        runs++;
        if (!showsAll(again)) return { minimal: first, runs, interrupted, confirmed: false };
      }
      return { minimal: first, runs, interrupted, confirmed: true };
    }
    // Confirm: smallest first, one run each, within confirmRuns.
    let left = Math.max(0, o.confirmRuns ?? 2);
    const bySize = [...chain].reverse();
    for (const c of bySize) {
      if (left-- <= 0) break;
      const out = await runOnce(c.plan);
      runs++;
      if (process.env.LOCKPICK_DEBUG_SHRINK) process.stderr.write(`shrink: confirm ${planOps(c.plan)} ops: ${out.verdict}\n`);
      // It broke again; report the run that shows every kind (this one, or the one that was accepted).
      if (out.verdict === false && (o.keep?.(out) ?? true)) return { minimal: showsAll(out) ? out : c, runs, interrupted, confirmed: true };
    }
    // Not seen again: still a violation that happened (its history shows it), but a replay may need several runs.
    return { minimal: best, runs, interrupted, confirmed: false };
  }

  async function runOnce(plan: RunPlan): Promise<RunOutcome> {
    try {
      return await o.runOnce(plan);
    } catch (e) {
      throw new RunFailed(e);
    }
  }
}
