// The calibration run before a search (src/workload/points.ts says why): one fault-free run of
// two contending clients whose reached points become the list the search draws from; and the
// same list read back from a run's test.json (`--points-from DIR`), so a search with that
// run's seed draws the same plans.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../errors.ts';
import { requireRegularFile } from '../regular-file.ts';
import { parseIoPoint } from '../workload/plan.ts';
import { calibrationPlan, describeLearned, learnPoints, type LearnedPoints } from '../workload/points.ts';
import type { RunPlan } from '../workload/plan.ts';
import type { RunOutcome } from './session.ts';

/** ioWhy: why a run may show no I/O point though its operations ran (where its requests are counted, or why they cannot be). */
export interface CalibrationOptions { ttlMs: number; renew?: boolean; reentrant?: boolean; sessionMs?: number; ioWhy?: string }

/**
 * Runs the calibration plan; the learned points (undefined when it reached none) and the line that
 * says so; and, when the recipe does not say whether its Lock has renew(), whether a client renewed
 * (the worker renews only a lock that has it), so a user lock's watchdog gets renewing plans too.
 */
export async function calibrate(runOnce: (plan: RunPlan) => Promise<RunOutcome>, base: readonly string[], o: CalibrationOptions): Promise<{ learned?: LearnedPoints; said: string; renews?: boolean }> {
  const out = await runOnce(calibrationPlan(o));
  const renews = o.renew === undefined ? out.events.some((e) => e.f === 'renew' && e.type === 'invoke') : undefined;
  // A lock that reports its validity lets a careful client work until it runs out (aims hold that long).
  const validity = out.events.some((e) => e.f === 'acquire' && e.type === 'ok' && typeof e.valid_ms === 'number');
  const reached = { ...(out.points ?? { io: {}, named: [] }), ...(validity ? { validity: true } : {}) };
  const points = learnPoints(base, reached);
  if (!points) {
    // Said as it was: acquires that got the lock but reached no point asked are not "no acquire got the lock".
    const granted = out.events.filter((e) => e.f === 'acquire' && e.type === 'ok').length;
    const why = out.inconclusive[0] ?? out.problems[0] ?? (granted === 0 ? 'no acquire got the lock'
      : `${granted} acquire(s) got the lock, but no operation reached any of ${base.join(', ')}${o.ioWhy && base.some((p) => p === 'send' || p === 'reply') ? `: ${o.ioWhy}` : ''}`);
    return { said: `points not learned: the calibration run reached none (${why}); drawing from ${base.join(', ')}`, ...(renews !== undefined ? { renews } : {}) };
  }
  const also = renews ? '; the lock has renew(): plans renew in long holds' : '';
  return { learned: { points, reached }, said: `points learned from a calibration run: ${describeLearned(base, reached, o.ioWhy)}${also}`, ...(renews !== undefined ? { renews } : {}) };
}

/**
 * The points a search draws from: those an earlier search learned (--points-from), else a
 * calibration run's when there are faults to aim (none: nothing to learn). Says which in `log`;
 * `renew`: whether the lock renews, the recipe's word or, when it has none, the calibration's.
 */
export async function pointsToDraw(o: { learnedPoints?: LearnedPoints; faults: readonly string[]; renew?: boolean } & CalibrationOptions, runOnce: (plan: RunPlan) => Promise<RunOutcome>, base: readonly string[], log: (line: string) => void): Promise<{ learned?: LearnedPoints; renew?: boolean }> {
  if (o.learnedPoints) {
    log(`points as learned before (--points-from): ${o.learnedPoints.points.join(', ')}`);
    return { learned: o.learnedPoints, renew: o.renew };
  }
  if (!o.faults.length) return { renew: o.renew };
  const c = await calibrate(runOnce, base, { ttlMs: o.ttlMs, renew: o.renew, reentrant: o.reentrant, sessionMs: o.sessionMs, ioWhy: o.ioWhy });
  log(c.said);
  return { learned: c.learned, renew: c.renews ?? o.renew };
}

/** The learned points a run of this lock stored in DIR/test.json (`points_learned`), checked; UsageError naming the fix otherwise. */
export function readLearnedPoints(dir: string, lock: string): LearnedPoints {
  const path = join(dir, 'test.json');
  const fix = "give a run directory 'lockpick run' wrote (store/<run-id>) whose search learned its points";
  if (!existsSync(path)) throw new UsageError(`--points-from ${dir}: no ${path}\n  fix: ${fix}`);
  requireRegularFile(path, `--points-from ${dir}`, fix);
  let test: unknown;
  try {
    test = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new UsageError(`--points-from ${dir}: ${path} is not readable JSON (${(e as Error).message})\n  fix: ${fix}`);
  }
  const stored = (test as { lock?: unknown } | null)?.lock;
  if (stored !== lock) throw new UsageError(`--points-from ${dir}: that run tested ${typeof stored === 'string' ? stored : 'no lock'}, not ${lock}; its points are that lock's\n  fix: ${fix}`);
  const l = (test as { points_learned?: unknown } | null)?.points_learned as Partial<LearnedPoints> | null | undefined;
  if (!l || typeof l !== 'object') throw new UsageError(`--points-from ${dir}: ${path} has no "points_learned" (that search learned no points, or it ran no faults)\n  fix: ${fix}`);
  const points = l.points;
  if (!Array.isArray(points) || points.length === 0 || !points.every((p) => typeof p === 'string' && p.length > 0)) {
    throw new UsageError(`--points-from ${dir}: "points_learned.points" in ${path} must be a non-empty list of point names\n  fix: ${fix}`);
  }
  const reached = l.reached && typeof l.reached === 'object' && Array.isArray(l.reached.named) && l.reached.io && typeof l.reached.io === 'object'
    ? l.reached : { io: {}, named: points.filter((p) => !parseIoPoint(p)) };
  return { points, reached };
}
