// A stored plan replayed against another lock (`lockpick run --replay DIR --lock FIX`) whose
// operations make fewer requests than the stored lock's: a pause "before the 2nd command of its
// release" (a GET-compare-DEL unlock's DEL) can never fire on a fix whose release is one atomic
// command, and every run would be inconclusive. Such a point is moved to that operation's last
// request (or reply), the nearest place the fix has: before its one command goes out, as late in
// the release as the fix allows. What it has is learned from one fault-free run of the fix first
// (ReachedPoints, as a search's calibration learns it), and each move is said.
import type { ReachedPoints } from '../workload/points.ts';
import { parseIoPoint, type RunPlan } from '../workload/plan.ts';

export interface Retargeted { plan: RunPlan; moves: string[] }

/** Whether any fault of `plan` waits for an I/O point (params.point or anchor.point). */
export function hasIoPoints(plan: RunPlan): boolean {
  return plan.faults.some((f) => [f.params?.point, f.anchor?.point].some((p) => typeof p === 'string' && parseIoPoint(p) !== undefined));
}

/**
 * `plan` with each I/O point past what `reached` saw an operation of its kind make moved to the last
 * it made (none moved where the run saw no request of that kind at all: nothing to move it to).
 */
export function retargetIoPoints(plan: RunPlan, reached: ReachedPoints | undefined): Retargeted {
  const moves: string[] = [];
  const move = (point: string, where: string): string => {
    const io = parseIoPoint(point);
    const c = io && reached?.io[io.op];
    const most = io && c ? (io.kind === 'send' ? c.sends : c.replies) : 0;
    if (!io || most < 1 || io.n <= most) return point;
    const to = `${io.kind}:${io.op}:${most}`;
    const what = io.kind === 'send' ? 'request' : 'reply';
    moves.push(`${where}: ${point} moved to ${to}: this lock's ${io.op} makes ${most} ${what}(s) at most (a fault-free run of it), the stored plan's lock more; ${to} is its last`);
    return to;
  };
  const faults = plan.faults.map((f, i) => {
    const p = typeof f.params?.point === 'string' ? move(f.params.point, `plan.faults[${i}].params.point`) : undefined;
    const a = f.anchor ? move(f.anchor.point, `plan.faults[${i}].anchor.point`) : undefined;
    return {
      ...f,
      ...(p !== undefined && p !== f.params?.point ? { params: { ...f.params, point: p } } : {}),
      ...(a !== undefined && a !== f.anchor?.point ? { anchor: { ...f.anchor!, point: a } } : {}),
    };
  });
  return { plan: moves.length ? { ...plan, faults } : plan, moves };
}
