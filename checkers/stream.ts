// The streaming check of a JSON Lines file for the models decided by a sweep (mutex,
// fenced-mutex, reentrant-mutex): events go to the sweep as they are read, and nothing is kept
// per op once it is decided, so memory grows with the ops in flight and the anomalies, not with
// the history's length. Same verdict, anomalies and words as checkHistory on the whole file
// (test/unit/checker-stream.test.ts compares them):
// - The sweep takes each op at its point (checkers/holds.ts): an ok acquire at its completion,
//   a release or renew at its invoke. Points arrive in file order; a release or renew can only
//   be taken once its outcome is known, so a key's points wait in a queue behind the oldest one
//   still in flight (the queue holds what happened during that op, not the history).
// - Double holders: a belief that starts while other processes believe overlaps them; which of
//   them it is reported against (the one that believes longest) is settled at the end.
// - Stale unlocks (checkers/stale-unlock.ts, named only on an invalid key) look at beliefs around
//   each release. Shapes B and B2 need a later belief r that starts inside another belief q:
//   exactly the overlaps above. So the check keeps only the beliefs that can take part: every q
//   open when such an r starts, every r, every release in flight when such a q started (B), and
//   every release that can be C or B2 by its own times; findStaleUnlocks on those alone gives
//   the same anomalies as on all beliefs (it only ever pairs a release with such q and r).
import type { Op } from '../src/history/types.ts';
import { HistoryBuilder, type HistorySink } from '../src/history/build.ts';
import { forEachJsonlEvent } from '../src/history/jsonl.ts';
import type { ReadOptions } from '../src/history/limits.ts';
import type { Backend, CheckOptions, CheckResult } from './types.ts';
import { KeyScanner, pointOf, type Belief } from './holds.ts';
import { ProcessMap } from '../src/history/process-table.ts';
import { releaseKind } from './lease.ts';
import { findStaleUnlocks, leaseOf } from './stale-unlock.ts';
import { CrashScan, withCrashes } from './crash.ts';
import { PhantomGrantScan } from './phantom-grant.ts';
import { checkDue } from './budget.ts';
import { SilenceReader, type Silences } from './silences.ts';
import { PERMIT_MODELS, SWEEP_OPTIONS, TokenCheck, sweepAnomalies, type SweepOptions } from './sweep.ts';
import { PointQueue } from './point-queue.ts';
import { PermitKeyStream } from './permit-stream.ts';
import { backendNames, backendsLoaded, loadBackends } from './backends.ts';
import { CheckInputError, LimitCheck, grantsFromServers, namedBackends, badValue, modelNamed, noOperations, summarize, unknownOperation, withStaleUnlocks, type KeyVerdict } from './index.ts';

/** A bug in the checker met while streaming (exit 4), told apart from a file that cannot be read (exit 2). */
export class CheckerBug extends Error {
  constructor(readonly bug: unknown) {
    super(`internal error in the streaming check: ${(bug as Error)?.message ?? String(bug)}`);
    this.name = 'CheckerBug';
  }
}

/** Whether checkJsonlStreaming decides this check: a sweep model and no limits (limits are defined on the check after parsing). */
export function streams(o: CheckOptions): boolean {
  const model = modelNamed(o.model);
  return model !== undefined && (SWEEP_OPTIONS.has(model) || PERMIT_MODELS.has(model)) && o.timeLimitMs === undefined && o.maxMemoryBytes === undefined;
}

/**
 * Reads and checks a JSON Lines history in one pass (only when streams(o)). Throws HistoryError
 * for a line that breaks docs/history-format.md, CheckInputError for ops the model cannot read (the first in
 * invoke order, as checkHistory), CheckerBug for a bug of the checker.
 */
export async function checkJsonlStreaming(path: string, o: CheckOptions, chunkBytes?: number, read?: ReadOptions): Promise<CheckResult> {
  const started = performance.now();
  const model = modelNamed(o.model)!;
  const opts = SWEEP_OPTIONS.get(model);
  const permitKind = PERMIT_MODELS.get(model);
  const keys = new Map<string, KeyStream | PermitKeyStream>();
  const limits = new LimitCheck(model);
  /** Processes that ended with info -> the event position of that info: they never act again. */
  const dead = new Map<number, number>();
  /** Backend words run-start records name, in order: the first the registry knows is the history's (read once it is loaded, below). */
  const named = new Set<string>();
  const crashes = new CrashScan();   // client crashes of the lock (checkers/crash.ts)
  const phantoms = new PhantomGrantScan(!grantsFromServers(model)); // acquires ok with no server in reach (checkers/phantom-grant.ts)
  const silences = new SilenceReader(); // when each process was kept from the servers (checkers/silences.ts)
  let bad: { id: number; error: CheckInputError } | undefined;
  const note = (op: Op, error: CheckInputError | undefined) => {
    if (error && (!bad || op.id < bad.id)) bad = { id: op.id, error };
  };
  const known = new Set<string>(); // operations the model has: looked up once each, not at every invoke
  const sink: HistorySink = {
    invoke(op) {
      try {
        if (!known.has(op.f)) {
          const error = unknownOperation(model, op, path);
          if (error) note(op, error); else known.add(op.f);
        }
        const key = model.partition(op);
        let k = keys.get(key);
        if (!k) keys.set(key, (k = opts ? new KeyStream(key, opts, dead, silences.silences) : new PermitKeyStream(key, permitKind!, silences.silences)));
        k.invoke(op);
        if (op.f === 'acquire') note(op, limits.differs(op, path));
      } catch (e) { throw new CheckerBug(e); }
    },
    complete(op) {
      try {
        note(op, badValue(model, op, path));
        if (op.outcome === 'info') dead.set(op.process, op.completeSeq);
        keys.get(model.partition(op))!.complete(op);
        phantoms.complete(op);
      } catch (e) { throw new CheckerBug(e); }
    },
    nemesis(n) { for (const b of namedBackends(n)) named.add(b); crashes.feed(n); silences.feed(n); phantoms.feed(n); },
  };
  // The run's own anomalies beside the keys' verdicts: the lock's crashes, its phantom grants.
  const runWide = () => [...crashes.anomalies, ...phantoms.finish()];
  const b = new HistoryBuilder(path, sink);
  await forEachJsonlEvent(path, (ev, line) => b.add(ev, line), chunkBytes, read, b);
  if (bad) throw bad.error;
  const { ops, nemesis } = b.counts;
  if (ops === 0) return withCrashes(noOperations(model.name, nemesis), runWide());
  const verdicts = (backend: Backend | undefined) => [...keys].map(([key, k]) => [key, k.ops, k.finish(backend)] as [string, number, KeyVerdict]);
  try {
    // A backend's words only explain anomalies: when every key is valid without them, they are
    // not needed, nor the topology registry they come from (~40 ms of CPU at start). finish()
    // may be called again.
    if (o.backend === undefined && named.size > 0 && !backendsLoaded()) {
      const plain = verdicts(undefined);
      if (plain.every(([, , d]) => d.valid === true)) return withCrashes(summarize(model.name, ops, started, plain), runWide());
    }
  } catch (e) {
    throw new CheckerBug(e);
  }
  if (named.size > 0 || o.backend !== undefined) await loadBackends();
  const backend = o.backend ?? (named.size > 0 ? [...named].find((b) => backendNames().includes(b)) : undefined);
  try {
    return withCrashes(summarize(model.name, ops, started, verdicts(backend)), runWide());
  } catch (e) {
    throw new CheckerBug(e);
  }
}

/** A key's table of ended holds is cleared of dead processes when it grows past endedMin (and twice its size after); tests set 0. */
export const STREAM_TUNING = { endedMin: 64 };

/** One key's streaming sweep. */
class KeyStream {
  ops = 0;
  private hasAcquire = false;
  /** Points in event order. */
  private readonly points = new PointQueue();
  private readonly scan: KeyScanner;
  private readonly tokens: TokenCheck;
  /** Beliefs that started while others were open, with those others (the double-holder candidates). */
  private readonly overlaps: { second: Belief; open: Belief[] }[] = [];
  /** Beliefs ended by an ok plain release whose completion is still ahead of the sweep. */
  private flying: Belief[] = [];
  /** Process -> the releases (their beliefs) in flight when its open belief started (a process has one open belief at a time). */
  private readonly flyingAt = new ProcessMap<Belief[]>();
  /** The beliefs findStaleUnlocks needs (see the header). */
  private readonly kept = new Set<Belief>();
  private endedWatermark = STREAM_TUNING.endedMin;
  private drains = 0;

  /** dead: processes that ended with info, shared by all keys (their last holds are forgotten once swept past). */
  constructor(private readonly key: string, private readonly opts: SweepOptions, private readonly dead: ReadonlyMap<number, number>, silences: Silences) {
    this.tokens = new TokenCheck(key);
    this.scan = new KeyScanner(opts.reentrant, (b) => this.belief(b), opts.tokens ? (op) => this.tokens.grant(op) : () => {}, silences);
  }

  invoke(op: Op): void {
    this.ops++;
    if (op.f === 'acquire') this.hasAcquire = true;
    else if (op.f === 'release' || op.f === 'renew') this.points.push(op);
  }

  complete(op: Op): void {
    if (op.f === 'acquire' && op.outcome === 'ok') this.points.push(op);
    this.drain(false);
  }

  private readonly take = (op: Op): void => this.point(op);

  private drain(final: boolean): void {
    this.points.drain(final, this.take);
    // Also at each power of two of drains (checkDue): the engine sees the call early and seldom,
    // so it neither inlines it nor throws drain's optimized code away when the table first grows.
    if (this.scan.ended.size > this.endedWatermark || checkDue(++this.drains, 1 << 30)) this.forgetDead();
  }

  private point(op: Op): void {
    if (pointOf(op) === undefined) return;
    const before = op.f === 'release' ? this.scan.believing.get(op.process)?.belief : undefined;
    this.scan.feed(op);
    if (!before || before.release !== op) return;
    this.flyingAt.delete(before.process);
    if (op.outcome !== 'ok' || releaseKind(op) !== 'plain') return;
    // Shapes C and B2 of findStaleUnlocks are decided by the release's own times.
    const { fromTime: from, fromLease: lease } = leaseOf(before);
    if (lease !== undefined && from !== undefined &&
      ((op.invokeTime !== undefined && op.invokeTime - from > lease) || (op.completeTime !== undefined && op.completeTime - from > lease))) this.kept.add(before);
    this.flying.push(before);
  }

  /** A new belief x, before it is recorded as open. */
  private belief(x: Belief): void {
    this.flyingAt.delete(x.process); // what its last belief left (one that ran out of validity has no release)
    if (this.flying.length) {
      this.flying = this.flying.filter((m) => m.release!.completeSeq > x.start);
      if (this.flying.length) this.flyingAt.set(x.process, this.flying.slice());
    }
    if (this.scan.believing.size === 0) return;
    const open: Belief[] = [];
    for (const { belief: q } of this.scan.believing.values()) {
      open.push(q);
      this.kept.add(q);
      for (const m of this.flyingAt.get(q.process) ?? []) this.kept.add(m);
    }
    this.kept.add(x);
    this.overlaps.push({ second: x, open });
  }

  /**
   * How a process's last hold ended matters only to its own later releases and renews: once it
   * ended with info and every point of it on this key was swept, its entry goes (else a Jepsen
   * history, a fresh process per info, would keep one per process on every key it touched).
   */
  private forgetDead(): void {
    for (const p of this.scan.ended.keys()) {
      const at = this.dead.get(p);
      if (at !== undefined && at < this.points.swept) this.scan.ended.delete(p);
    }
    this.endedWatermark = Math.max(STREAM_TUNING.endedMin, 2 * this.scan.ended.size);
  }

  finish(backend: Backend | undefined): KeyVerdict {
    this.drain(true);
    // findOverlaps' pairing: against the earlier belief that reaches furthest (the first, on a tie).
    const overlaps = this.overlaps.map(({ second, open }) => {
      let first: Belief | undefined;
      for (const q of open.sort((a, b) => a.start - b.start)) if (!first || q.end > first.end) first = q;
      return { first: first!, second };
    });
    const anomalies = sweepAnomalies(this.key, overlaps, this.scan.missteps, this.opts.tokens ? this.tokens.anomalies : [], backend, this.scan.exposures);
    const d: KeyVerdict = { valid: anomalies.length === 0, anomalies };
    return withStaleUnlocks(d, this.hasAcquire, () => {
      const named = new Set(this.scan.missteps.filter((m) => m.kind === 'stale-release').map((m) => m.op.id));
      return findStaleUnlocks(this.key, [...this.kept].sort((a, b) => a.start - b.start), named, backend);
    });
  }
}
