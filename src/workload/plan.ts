// A run plan: plain JSON (so fast-check can generate and shrink it, test.json can
// store it and `--replay` can run it again). Clients are positional: clients[i]
// is client id `c${i + 1}`; faults name clients and nodes by id.
import type { FaultSpec } from '../../nemesis/types.ts';
import { describeFault as describeKind } from '../../nemesis/kinds.ts';
import { topologyDef } from '../env/topologies.ts';

/** One lock attempt of one client: wait, acquire, critical section, release. */
export interface Attempt {
  key: string;        // lock name (the runner prefixes it per run)
  delayMs: number;    // think time before the acquire
  waitMs: number;     // how long acquire may retry before giving up
  holdMs: number;     // time between the resource read and write in the critical section
  renew: boolean;     // call lock.renew once in the critical section (when the lock has one)
  reenter?: boolean;  // acquire the same key again inside the critical section, then release it (reentrant locks)
}

export interface ClientPlan { attempts: Attempt[] }

export interface RunPlan {
  ttlMs: number;          // lease of every acquire in this run
  clients: ClientPlan[];
  /**
   * The fault schedule. `client-pause` with params.point is anchored: from at_ms on,
   * the first time the client reaches that named point it is SIGSTOPped for
   * duration_ms (the runner does these); a `partition` of 'client:<id>' with
   * params.point cuts that client's links there for duration_ms while it goes on
   * (a lock without a lease holds through it); every other spec goes to the nemesis.
   */
  faults: FaultSpec[];
}

export const CRITICAL_SECTION = 'in-critical-section';
/**
 * The worker's point just before its resource write, after the careful client's last look at the
 * validity its lock reported (src/runner/worker.ts): a pause here outlives any client-side check.
 */
export const BEFORE_WRITE = 'before-write';
/**
 * The worker's point just after it recorded a release's invoke (it has stopped believing it holds)
 * and before the lock's release code runs: a pause here is a late unlock, one that reaches the
 * server after the lease ran out and someone else may hold the lock.
 */
export const BEFORE_RELEASE = 'before-release';
/** The points every worker has, whatever the lock. */
export const WORKER_POINTS: readonly string[] = [CRITICAL_SECTION, BEFORE_WRITE, BEFORE_RELEASE];

/**
 * Points made by the client's I/O (src/runner/io-points.ts), no recipe cooperation:
 * 'send:release:2' just before the 2nd command a release sends to a server, 'reply:acquire:1'
 * just after the 1st chunk of reply data an acquire gets (before the client library sees it).
 * Counted within one operation, so the DEL of a GET-then-DEL unlock is 'send:release:2' however
 * many SETs the acquire before it retried. In a points list, 'send' and 'reply' stand for
 * every operation and N (the generator draws them).
 */
export type IoPointKind = 'send' | 'reply';
export const IO_POINT_KINDS: readonly IoPointKind[] = ['send', 'reply'];
export const IO_POINT_OPS = ['acquire', 'release', 'renew'] as const;
export type IoPointOp = typeof IO_POINT_OPS[number];

/**
 * Where an I/O kind given without learning ('send' in --pause-at, or a points list no calibration
 * narrowed) draws N: up to 3 (an acquire is a SET, more while it waits; a release a GET and a DEL,
 * an EVAL, or a few calls of a user's lock). Learned lists name their points (src/workload/points.ts).
 */
export const IO_POINT_MAX = 3;

export function ioPointName(kind: IoPointKind, op: IoPointOp, n: number): string {
  return `${kind}:${op}:${n}`;
}

/** 'send:release:2' → {kind: 'send', op: 'release', n: 2}; anything else (a recipe's named point) → undefined. */
export function parseIoPoint(name: string): { kind: IoPointKind; op: IoPointOp; n: number } | undefined {
  const m = /^(send|reply):(acquire|release|renew):([1-9]\d*)$/.exec(name);
  return m ? { kind: m[1] as IoPointKind, op: m[2] as IoPointOp, n: Number(m[3]) } : undefined;
}

/**
 * Where client pauses land by default: the critical section, the recipe's own points, and
 * the I/O points unless the topology's client does its I/O outside Node's net (ZooKeeper's
 * `zookeeper` package is C), where they would never fire.
 */
export function defaultPausePoints(recipePoints: readonly string[], topology: string): string[] {
  return [...WORKER_POINTS, ...recipePoints, ...(topologyDef(topology)?.nativeClient ? [] : IO_POINT_KINDS)];
}

export function clientId(index: number): string {
  return `c${index + 1}`;
}

/**
 * A fault the runner fires when its client reaches a named point (not the nemesis at at_ms):
 * a client pause, a client kill (ClientPool.killAt), or a partition of one client
 * ('client:<id>', ClientPool.pauseAt cuts its links while it goes on).
 */
export function isAnchoredPause(f: FaultSpec): boolean {
  if (f.anchor) return true;   // a server-side fault started at a client's point (ClientPool.faultAt)
  if (typeof f.params?.point !== 'string') return false;
  // client-kill anchors the same way (the runner kills instead of pausing: ClientPool.killAt).
  return f.kind === 'client-pause' || f.kind === 'client-kill' || isAnchoredPartition(f);
}

/** An anchored partition: one client cut from every server when it reaches the point. */
export function isAnchoredPartition(f: FaultSpec): boolean {
  return f.kind === 'partition' && typeof f.params?.point === 'string' && typeof f.target === 'string' && f.target.startsWith('client:');
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
  const lines: string[] = [`lease (TTL) ${plan.ttlMs} ms; ${busy} busy client(s) of ${plan.clients.length}, ${planOps(plan)} operations at most, ${plan.faults.length} fault(s)`];
  plan.clients.forEach((c, i) => {
    if (c.attempts.length === 0) return;
    const steps = c.attempts.map((a) =>
      `${a.delayMs ? `wait ${a.delayMs} ms, ` : ''}lock '${a.key}' (retry up to ${a.waitMs} ms), ${a.reenter ? 'lock it again and unlock (re-entry), ' : ''}hold ${a.holdMs} ms${a.renew ? ', renew' : ''}, unlock`);
    lines.push(`  client ${clientId(i)}: ${steps.join('; then ')}`);
  });
  if (plan.faults.length === 0) lines.push('  no faults');
  for (const f of plan.faults) lines.push(`  fault: ${describeFault(f)}`);
  return lines.join('\n');
}

export { validatePlan, MAX_PLAN_MS, MAX_CLIENTS } from './validate-plan.ts';
