// Pinning a failing run's order into its plan (nemesis/order.ts): each fault is ordered after the
// client event that last came before it began, and each attempt's acquire after the last event of
// another client (or fault start) before it was invoked. Replayed, the plan then holds the order
// the failure needed, whatever the timing does (a pause that must begin after c2's acquire
// returned, c3's acquire that must come while c1 is paused), where times from the start alone
// drift with the machine's load. Every "waits for" points back in the failing run, so the pinned
// plan has no cycle; where a replay's run differs (an acquire that now fails), the pool lets
// a wait go and says which anchor was missed.
import type { OrderEvent } from '../../nemesis/order.ts';
import type { FaultSpec } from '../../nemesis/types.ts';
import { anchoredClient, anchorPoint, isAnchoredPause, type RunPlan } from '../workload/plan.ts';

/** The events of a run as recorded (history lines: client operations and nemesis records). */
interface Ev { type: string; f: string; process: number | 'nemesis'; client?: unknown; value?: unknown; time?: number }

interface Mark { ev: OrderEvent; client?: string; time?: number }

const OPS = new Set(['acquire', 'release', 'renew']);

/** The plan with the order of `events` (a run of it) pinned in; null when there is nothing to pin. */
export function pinOrder(plan: RunPlan, events: readonly Ev[]): RunPlan | null {
  const clientOf = new Map<number, string>();
  const depth = new Map<number, number>();          // a process's hold depth (re-entry): outer acquires start attempts
  const counts = new Map<string, number>();
  const marks: Mark[] = [];
  const faultAt = new Map<number, number>();        // plan fault index → its start's place in marks
  const outer = new Map<string, number[]>();        // client → places of its attempts' acquire invokes
  const matched = new Set<number>();
  for (const e of events) {
    if (e.process === 'nemesis') {
      if (!e.f.endsWith('-start')) continue;
      const i = matchFault(plan.faults, e.f.slice(0, -'-start'.length), e.value, matched);
      if (i === undefined) continue;
      matched.add(i);
      faultAt.set(i, marks.length);
      marks.push({ ev: { fault: i }, ...timeOf(e) });
      continue;
    }
    const p = e.process;
    if (e.type === 'invoke' && typeof e.client === 'string') clientOf.set(p, e.client);
    const c = clientOf.get(p);
    if (!c || !OPS.has(e.f) || e.type === 'info') continue;   // an unknown outcome is no event the pool counts
    const type = e.type as 'invoke' | 'ok' | 'fail';
    if (e.f === 'acquire' && type === 'invoke' && (depth.get(p) ?? 0) === 0) outer.set(c, [...(outer.get(c) ?? []), marks.length]);
    if (e.f === 'acquire' && type === 'ok') depth.set(p, (depth.get(p) ?? 0) + 1);
    if (e.f === 'release' && type === 'invoke') depth.set(p, Math.max(0, (depth.get(p) ?? 0) - 1));
    const k = `${c} ${e.f} ${type}`;
    const nth = (counts.get(k) ?? 0) + 1;
    counts.set(k, nth);
    marks.push({ ev: { client: c, op: e.f as 'acquire' | 'release' | 'renew', type, nth }, client: c, ...timeOf(e) });
  }
  /**
   * The last mark before `at` that is not `own`'s (and, for a fault, a client event), with the gap
   * the run had between them: the waiter keeps it, so the replay keeps the run's timing around the event too.
   */
  const lastBefore = (at: number, own: string | undefined, clientEventsOnly: boolean): OrderEvent | undefined => {
    const t = marks[at]?.time;
    for (let j = at - 1; j >= 0; j--) {
      const m = marks[j]!;
      if (m.client !== undefined && m.client === own) continue;
      if (clientEventsOnly && m.client === undefined) continue;
      const gap = t !== undefined && m.time !== undefined ? Math.max(0, Math.floor((t - m.time) / 1e6)) : 0;
      return gap > 0 ? { ...m.ev, gap_ms: gap } : m.ev;
    }
    return undefined;
  };
  let pinned = 0;
  const faults = plan.faults.map((f, i) => {
    const at = faultAt.get(i);
    if (f.after || at === undefined) return f;
    const anchored = isAnchoredPause(f);
    const last = lastBefore(at, anchored ? anchoredClient(f) : undefined, true);
    if (!last || 'fault' in last) return f;
    // A fault anchored at a point fires there, once: a gap could let that moment pass; the order alone.
    const { gap_ms: _gap, ...bare } = last;
    const after = anchored ? bare : last;
    pinned++;
    return { ...f, after };
  });
  const clients = plan.clients.map((c, ci) => {
    const id = `c${ci + 1}`;
    const places = outer.get(id) ?? [];
    return {
      ...c,
      attempts: c.attempts.map((a, j) => {
        const at = places[j];
        if (a.after || at === undefined) return a;
        const after = lastBefore(at, id, false);
        if (!after) return a;
        pinned++;
        return { ...a, after };
      }),
    };
  });
  return pinned ? { ...plan, clients, faults } : null;
}

function timeOf(e: Ev): { time?: number } {
  return typeof e.time === 'number' && Number.isFinite(e.time) ? { time: e.time } : {};
}

/** The plan fault a `<kind>-start` record is of: the first unmatched one of that kind (by time) whose client and point agree. */
function matchFault(faults: readonly FaultSpec[], kind: string, value: unknown, matched: ReadonlySet<number>): number | undefined {
  const v = (value ?? {}) as { client?: unknown; point?: unknown };
  const fits = faults.map((f, i) => ({ f, i })).filter(({ f, i }) => {
    if (matched.has(i) || f.kind !== kind) return false;
    const client = anchoredClient(f);
    const point = anchorPoint(f);
    if (typeof v.client === 'string' && client !== undefined && isAnchoredPause(f) && v.client !== client) return false;
    if (typeof v.point === 'string' && point !== undefined && v.point !== point) return false;
    return true;
  });
  fits.sort((a, b) => a.f.at_ms - b.f.at_ms || a.i - b.i);
  return fits[0]?.i;
}
