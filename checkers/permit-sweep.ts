// The sweep of the semaphore and read-write lock models (checkers/models/permits.ts), one key in
// one pass over its points, as checkers/holds.ts sweeps a mutex: an ok acquire at its
// completion, a release or renew at its invoke; and, for the permit leak alone, a refused
// (failed) acquire and an info acquire at their completions. Two questions, kept apart:
// - the clients': beliefs (holds.ts newBelief: acquire ok to the release's invoke, a lapse, a
//   reported validity's end, the end of the history). A belief that starts while the open ones
//   leave it no room is an over-admission (semaphore) or a writer beside a reader or a writer
//   (rwlock), reported with every process then holding; acts past a lease are exposures.
// - the server's (the model's rules): each process's hold with its permits or mode and its lease;
//   a failed release keeps it; an acquire that finds no room drops the holds whose lease has run
//   out by its return, else it is a misstep (`held`); a release or renew ok by a process that holds
//   nothing is stale.
// - liveness: a permit leak (docs/history-format.md): refused acquires that only orphaned holds
//   kept out, the first and the last more than LEAK_BOUND_MS apart.
import type { Op } from '../src/history/types.ts';
import type { Anomaly, Backend } from './types.ts';
import { endExpired, exposedBy, newBelief, renewed, validityMisstep, type Belief, type HoldEnd, type Misstep, type ServerHold } from './holds.ts';
import { leaseEnd, leaseNs, ranOut, releaseKind, sessionNs } from './lease.ts';
import { ProcessMap } from '../src/history/process-table.ts';
import type { Silences } from './silences.ts';
import { limitOf, permitsOf, isShared } from './models/permits.ts';
import { exposure, misstep } from './messages.ts';
import { conflictAnomaly, heldMisstep, permitLeak } from './permit-messages.ts';

/** The shape of lock a key is: a semaphore (permits of a limit) or a read-write lock (modes). */
export type PermitKind = 'semaphore' | 'rwlock';

/** Refusals that only orphaned permits explain, the first and last this far apart (ms), are a permit leak. */
export const LEAK_BOUND_MS = 1000;

/** A belief with what its hold takes. */
export interface PermitBelief extends Belief { permits: number; shared: boolean; limit: number }

/** A server hold with what it takes (count is always 1: no nesting). */
export interface PermitServerHold extends ServerHold { permits: number; shared: boolean }

/** A belief that started with no room beside the open ones (the over-admission or the writer's overlap). */
export interface Conflict { second: PermitBelief; open: PermitBelief[] }

/** An acquire the server could not have granted though no belief shows it, with the holds that stood. */
export interface HeldMisstep { op: Op; standing: PermitServerHold[] }

/** A hold no live client can end, as the leak judges it: its op and until when (ns) it can stand. */
interface Orphan { op: Op; permits: number; shared: boolean; until: number }

/** Refusals counted against orphaned permits (docs/history-format.md "Permit leak"). */
export interface LeakEpisode { first: Op; last: Op; refused: number; orphans: Op[]; processes: Set<number> }

/** What a fit needs of a set of holds: their permits, and how many are shared or exclusive. */
interface Totals { permits: number; shared: number; exclusive: number }

/** Holds by process, their totals kept as they change (a fit is then O(1), not a pass over the holds). */
class Tallied<T extends { permits: number; shared: boolean }> implements Totals {
  private readonly map = new ProcessMap<T>();
  permits = 0; shared = 0; exclusive = 0;
  get size(): number { return this.map.size; }
  get(p: number): T | undefined { return this.map.get(p); }
  has(p: number): boolean { return this.map.has(p); }
  values(): readonly T[] { return this.map.values(); }
  set(p: number, x: T): void { this.delete(p); this.map.set(p, x); this.count(x, 1); }
  delete(p: number): void {
    const x = this.map.get(p);
    if (x === undefined) return;
    this.map.delete(p);
    this.count(x, -1);
  }
  private count(x: T, d: number): void {
    this.permits += d * x.permits;
    if (x.shared) this.shared += d; else this.exclusive += d;
  }
}

/** Whether a hold of op fits beside holds of these totals (the models' semaphoreFits and rwlockFits, on totals). */
function fitsTotals(kind: PermitKind, t: Totals, op: Op): boolean {
  if (kind === 'semaphore') return t.permits + permitsOf(op) <= limitOf(op);
  return isShared(op) ? t.exclusive === 0 : t.shared + t.exclusive === 0;
}

export class PermitScanner {
  readonly believing = new Tallied<PermitBelief>();
  readonly holds = new Tallied<PermitServerHold>();
  readonly ended = new Map<number, HoldEnd>();
  readonly missteps: Misstep[] = [];
  readonly held: HeldMisstep[] = [];
  readonly conflicts: Conflict[] = [];
  readonly exposures: Belief[] = [];
  readonly leaks: LeakEpisode[] = [];
  private readonly valid = new Set<PermitBelief>();
  /** Info acquires: holds that may stand with nobody to end them. */
  private orphans: Orphan[] = [];
  private episode: LeakEpisode | undefined;
  /** ns a hold of this key outlives its client when the acquire that took it says nothing (the session or lease its ok acquires carried). */
  private keyBound: number | undefined;

  constructor(readonly kind: PermitKind, private readonly silences?: Silences) {
  }

  private expire(time: number | undefined, seq: number): void {
    if (this.valid.size !== 0) endExpired(this.valid, time, seq, (b) => this.believing.delete(b.process)); // no closure made on the hot path
  }

  /** One point (see the header), in point order. */
  feed(op: Op): void {
    if (op.f === 'acquire') {
      this.expire(op.completeTime, op.completeSeq);
      if (op.outcome === 'ok') this.grant(op);
      else if (op.outcome === 'fail') this.refused(op);
      else this.lost(op);
      return;
    }
    this.expire(op.invokeTime, op.invokeSeq);
    if (op.f === 'release') this.release(op); else this.renew(op);
  }

  private grant(op: Op): void {
    const p = op.process;
    const wrong = validityMisstep(op, undefined);
    if (wrong) this.missteps.push(wrong);
    this.keyBound ??= sessionNs(op) ?? leaseNs(op);
    // Beliefs: one per process; a second acquire while believing is the server's reacquire below.
    let conflicted = false;
    if (!this.believing.has(p)) {
      const b = newBelief(op) as PermitBelief;
      b.permits = permitsOf(op); b.shared = isShared(op); b.limit = limitOf(op);
      if (!b.expired) {
        if (!fitsTotals(this.kind, this.believing, op)) { this.conflicts.push({ second: b, open: [...this.believing.values()] }); conflicted = true; }
        if (b.validUntil !== undefined) this.valid.add(b);
        this.believing.set(p, b);
      }
    }
    // The server.
    const mine = this.holds.get(p);
    if (mine) {
      if (!ranOut(mine.deadline, -1, op)) this.missteps.push({ kind: 'reacquire', op, holder: mine });
      this.holds.delete(p);
    }
    if (!fitsTotals(this.kind, this.holds, op)) {
      const gone = [...this.holds.values()].filter((h) => ranOut(h.deadline, -1, op));
      for (const h of gone) { this.holds.delete(h.process); this.ended.set(h.process, { hold: h, by: op, expired: true }); }
      if (!fitsTotals(this.kind, this.holds, op)) {
        const standing = [...this.holds.values()];
        // Overlapping beliefs already show it (the conflict above); else the server's view alone.
        if (!conflicted) this.held.push({ op, standing });
        // Those the server should still hold though their clients believe nothing are taken over, as for the mutex.
        for (const h of standing) {
          if (this.believing.has(h.process)) continue;
          this.holds.delete(h.process);
          this.ended.set(h.process, { hold: h, by: op, expired: false });
        }
      }
    }
    const deadline = leaseEnd(op);
    this.holds.set(p, { process: p, count: 1, acquire: op, deadline, lease: leaseNs(op), leaseFrom: op, permits: permitsOf(op), shared: isShared(op) });
  }

  private release(op: Op): void {
    const p = op.process;
    const kind = releaseKind(op);
    const b = this.believing.get(p);
    if (b) {
      // A lapse is the client giving up on its own clock, not an act as the holder.
      if (kind !== 'lapse' && exposedBy(b, op, this.silences)) this.exposures.push(b);
      this.valid.delete(b);
      b.release = op;
      b.end = op.invokeSeq;
      b.failed = op.outcome === 'fail';
      this.believing.delete(p);
    }
    const mine = this.holds.get(p);
    if (op.outcome === 'fail') { if (mine) mine.failed = op; return; }
    if (mine) { this.holds.delete(p); this.ended.set(p, { hold: mine, release: op }); return; }
    if (kind !== 'plain' || op.outcome !== 'ok') return;
    const previous = this.ended.get(p);
    const taker = previous?.by?.process;
    // After an acquire that was itself the violation (reported), an unlock is stale only while the taker still holds.
    if (previous?.by !== undefined && !previous.expired && (taker === undefined || !this.holds.has(taker))) return;
    this.missteps.push({ kind: 'stale-release', op, previous, current: taker === undefined ? undefined : this.holds.get(taker) });
  }

  private renew(op: Op): void {
    const p = op.process;
    const b = this.believing.get(p);
    if (b && exposedBy(b, op, this.silences)) this.exposures.push(b);
    if (op.outcome !== 'ok') return;
    const mine = this.holds.get(p);
    if (!mine) { this.missteps.push({ kind: 'stale-renew', op, previous: this.ended.get(p) }); return; }
    const wrong = validityMisstep(op, b);
    if (wrong) this.missteps.push(wrong);
    if (renewed(op, mine, b)) this.valid.add(b!);
  }

  /** An info acquire: it may hold its permits with its client gone, until its lease (or the key's session or lease) runs out. */
  private lost(op: Op): void {
    const bound = leaseNs(op) ?? this.keyBound;
    const from = leaseNs(op) !== undefined ? op.invokeTime : op.completeTime;
    const until = bound === undefined ? Infinity : from === undefined ? -Infinity : from + bound;
    this.orphans.push({ op, permits: permitsOf(op), shared: isShared(op), until });
  }

  /** A refused acquire: counted against a leak when only orphaned permits kept it out. */
  private refused(op: Op): void {
    const t = op.completeTime;
    if (t === undefined || this.believing.has(op.process)) return;
    this.orphans = this.orphans.filter((o) => o.until > t);
    const orphaned: { op: Op; permits: number; shared: boolean }[] = this.orphans.slice();
    for (const h of this.holds.values()) {
      if (!this.believing.has(h.process) && !(h.deadline <= t)) orphaned.push({ op: h.failed ?? h.acquire, permits: h.permits, shared: h.shared });
    }
    if (orphaned.length === 0) { this.closeEpisode(); return; }
    const live = this.believing;
    const all: Totals = { permits: live.permits, shared: live.shared, exclusive: live.exclusive };
    for (const o of orphaned) { all.permits += o.permits; if (o.shared) all.shared++; else all.exclusive++; }
    const counted = fitsTotals(this.kind, live, op) && !fitsTotals(this.kind, all, op);
    if (!counted) return;
    const e = this.episode ??= { first: op, last: op, refused: 0, orphans: [], processes: new Set() };
    e.last = op;
    e.refused++;
    e.processes.add(op.process);
    for (const o of orphaned) if (!e.orphans.includes(o.op)) e.orphans.push(o.op);
  }

  private closeEpisode(): void {
    const e = this.episode;
    this.episode = undefined;
    if (e && e.first.invokeTime !== undefined && e.last.completeTime !== undefined && e.last.completeTime - e.first.invokeTime > LEAK_BOUND_MS * 1e6) this.leaks.push(e);
  }

  /** Ends the sweep (any episode still open is judged). */
  finish(): void { this.closeEpisode(); }
}


/** The position at which the permit sweep takes op, or undefined when it is no point (see the header). */
export function permitPointOf(op: Op): number | undefined {
  if (op.f === 'acquire') return Number.isFinite(op.completeSeq) ? op.completeSeq : undefined;
  if (op.f === 'release' || op.f === 'renew') return op.invokeSeq;
  return undefined;
}

/** One key's scan: its ops sorted by point, fed in order. */
export function permitScan(kind: PermitKind, ops: readonly Op[], silences?: Silences): PermitScanner {
  const points: { at: number; op: Op }[] = [];
  for (const op of ops) {
    const at = permitPointOf(op);
    if (at !== undefined) points.push({ at, op });
  }
  points.sort((a, b) => a.at - b.at);
  const scan = new PermitScanner(kind, silences);
  for (const { op } of points) scan.feed(op);
  scan.finish();
  return scan;
}

/** A key's anomalies in report order (by first line); permit leaks among them, which alone do not make it invalid (./anomaly-kinds.ts). */
export function permitAnomalies(key: string, scan: PermitScanner, backend?: Backend): Anomaly[] {
  const shown = new Set<Belief>();
  const out: Anomaly[] = [];
  for (const c of scan.conflicts) {
    shown.add(c.second);
    for (const b of c.open) shown.add(b);
    out.push(...conflictAnomaly(key, scan.kind, c));
  }
  for (const h of scan.held) out.push(heldMisstep(key, scan.kind, h));
  for (const m of scan.missteps) out.push(misstep(key, m, backend, 'a process holds a semaphore or read-write lock once'));
  for (const b of scan.exposures) if (!shown.has(b)) out.push(exposure(key, b));
  for (const e of scan.leaks) out.push(permitLeak(key, scan.kind, e));
  return out.sort((a, b) => (a.lines[0] ?? 0) - (b.lines[0] ?? 0));
}
