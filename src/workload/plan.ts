// A run plan: plain JSON (so fast-check can generate and shrink it, test.json can
// store it and `--replay` can run it again). Clients are positional: clients[i]
// is client id `c${i + 1}`; faults name clients and nodes by id.
import type { FaultSpec } from '../../nemesis/types.ts';
import type { OrderEvent } from '../../nemesis/order.ts';
import { describeOrderAnchor } from '../../nemesis/order.ts';
import { describeFault as describeKind, kindDef } from '../../nemesis/kinds.ts';
import { IO_POINT_KINDS, WORKER_POINTS } from '../../nemesis/points.ts';
import { topologyDef } from '../env/topologies.ts';

/** One lock attempt of one client: wait, acquire, critical section, release. */
export interface Attempt {
  key: string;        // lock name (the runner prefixes it per run)
  delayMs: number;    // think time before the acquire
  waitMs: number;     // how long acquire may retry before giving up
  holdMs: number;     // time between the resource read and write in the critical section
  renew: boolean;     // call lock.renew once in the critical section (when the lock has one)
  reenter?: boolean;  // acquire the same key again inside the critical section, then release it (reentrant locks)
  /** Ordered: the acquire starts only once this event has happened (after delayMs too): a stored schedule's order (nemesis/order.ts). */
  after?: OrderEvent;
  mode?: 'exclusive' | 'shared';  // a read-write lock's hold: a writer or a reader (absent: exclusive)
  permits?: number;   // a semaphore's hold: how many of its permits (absent: 1)
}

export interface ClientPlan { attempts: Attempt[] }

export interface RunPlan {
  ttlMs: number;          // lease of every acquire in this run
  clients: ClientPlan[];
  /**
   * The fault schedule. A spec its kind says is anchored (KindDef.anchored: a client
   * pause, kill or one client's partition with params.point) fires from at_ms on, the
   * first time its client reaches that named point (the runner's client pool asks the
   * kind); every other spec goes to the nemesis by time.
   */
  faults: FaultSpec[];
}

export { BEFORE_RELEASE, BEFORE_WRITE, CRITICAL_SECTION, WORKER_POINTS, IO_POINT_KINDS, IO_POINT_MAX, IO_POINT_OPS, ioPointName, parseIoPoint, type IoPointKind, type IoPointOp } from '../../nemesis/points.ts';

/**
 * Where client pauses land by default: the critical section, the recipe's own points, and the
 * I/O points: both kinds from the worker's hooks (src/runner/io-points.ts); with `proxyPoints`
 * (a client no hook sees, whose requests the fault proxy frames: src/runner/proxy-points.ts)
 * sends only; none when the topology's client does its I/O outside Node's net (ZooKeeper's
 * `zookeeper` package is C) and the proxy does not frame it: they would never fire.
 */
export function defaultPausePoints(recipePoints: readonly string[], topology: string, proxyPoints = false): string[] {
  const io = proxyPoints ? ['send'] : topologyDef(topology)?.nativeClient ? [] : IO_POINT_KINDS;
  return [...WORKER_POINTS, ...recipePoints, ...io];
}

export function clientId(index: number): string {
  return `c${index + 1}`;
}

/**
 * A fault the runner fires when its client reaches a named point (not the nemesis at at_ms):
 * a server-side spec with an anchor (ClientPool.faultAt), or one its kind says is anchored
 * (KindDef.anchored: a client pause, kill, or a partition of one client at params.point).
 */
export function isAnchoredPause(f: FaultSpec): boolean {
  if (f.anchor) return true;
  return kindDef(f.kind)?.anchored?.is(f) === true;
}

/** The client id an anchored fault waits for (its anchor's client; 'c1' for target 'c1' or 'client:c1'). */
export function anchoredClient(f: FaultSpec): string | undefined {
  if (f.anchor) return f.anchor.client;
  return typeof f.target === 'string' ? f.target.replace(/^client:/, '') : undefined;
}

/** The point an anchored fault waits for. */
export function anchorPoint(f: FaultSpec): string | undefined {
  return f.anchor?.point ?? (typeof f.params?.point === 'string' ? f.params.point : undefined);
}

/** Operations the plan can produce at most (acquire + release per attempt, + renew, + a nested acquire and release). */
export function planOps(plan: RunPlan): number {
  let n = 0;
  for (const c of plan.clients) for (const a of c.attempts) n += 2 + (a.renew ? 1 : 0) + (a.reenter ? 2 : 0);
  return n;
}

/** Longest a client could take if nothing stalls it: what the run waits for at most (plus faults). */
export function planHorizonMs(plan: RunPlan): number {
  let longest = 0;
  for (const c of plan.clients) {
    let t = 0;
    for (const a of c.attempts) t += a.delayMs + a.waitMs + a.holdMs + 50;
    longest = Math.max(longest, t);
  }
  let faults = 0;
  for (const f of plan.faults) faults = Math.max(faults, f.at_ms + (f.duration_ms ?? 0));
  return longest + faults;
}

/** One fault in words, by its kind (nemesis/faults/*). */
export function describeFault(f: FaultSpec): string {
  return describeKind(f);
}

/** The plan in words, one line per client and per fault. */
export function describePlan(plan: RunPlan): string {
  const busy = plan.clients.filter((c) => c.attempts.length > 0).length;
  // Every acquire asks this TTL; a lock without a lease takes it and ignores it, so it is no lease's length here.
  const lines: string[] = [`TTL asked ${plan.ttlMs} ms; ${busy} busy client(s) of ${plan.clients.length}, ${planOps(plan)} operations at most, ${plan.faults.length} fault(s)`];
  plan.clients.forEach((c, i) => {
    if (c.attempts.length === 0) return;
    const steps = c.attempts.map((a) =>
      `${a.delayMs ? `wait ${a.delayMs} ms, ` : ''}${a.after ? `${a.after.gap_ms ? '' : 'once '}${describeOrderAnchor(a.after, (i) => plan.faults[i]?.kind)}, ` : ''}lock '${a.key}'${a.mode ? ` to ${a.mode === 'shared' ? 'read' : 'write'}` : ''}${a.permits && a.permits > 1 ? ` (${a.permits} permits)` : ''} (retry up to ${a.waitMs} ms), ${a.reenter ? 'lock it again and unlock (re-entry), ' : ''}hold ${a.holdMs} ms${a.renew ? ', renew' : ''}, unlock`);
    lines.push(`  client ${clientId(i)}: ${steps.join('; then ')}`);
  });
  if (plan.faults.length === 0) lines.push('  no faults');
  for (const f of plan.faults) lines.push(`  fault: ${describeFault(f)}`);
  return lines.join('\n');
}

export { validatePlan, MAX_PLAN_MS, MAX_CLIENTS } from './validate-plan.ts';
