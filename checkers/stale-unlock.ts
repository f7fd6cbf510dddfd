// Stale unlocks named as the cause of a violation on their key: an unlock that reported success
// when it cannot have released the unlocker's own lock. checkHistory adds these to a key that is
// already invalid (alone, a late unlock that finds the lock free broke nothing). The plain case,
// an unlock sent after another process had taken the lock, is the model's own stale-release
// (checkers/holds.ts); these are the shapes the model cannot see:
//  C. the unlock was sent after the unlocker's lease had certainly run out (counted from its
//     acquire's ok, or its last renew's, so later than the real expiry) and reported success: it
//     cannot have removed its own lock (whichever client's lock was there, if it does not check
//     the owner; the words do not claim which: the cause names the command when a pause saw it);
//  B. the unlock was sent before and returned after another process q's acquire ok (a pause
//     between compare and delete), and a third process r then got the lock while q held it,
//     inside q's lease: nothing but the unlock can have freed it;
//  B2. as B, but the unlock's reply was recorded just before q's acquire reply (the two raced):
//     the unlock ran while that acquire was in flight and finished after the unlocker's own lease.
// Leases are the lease_ms each acquire recorded; without one, C and B2 do not apply and B counts
// q's hold as unbounded. A backend whose unlock removes only the client's own entry (ZooKeeper's
// sequential znode: TopologyDef.words.ownEntryOnly) cannot free another's lock: B and B2 are not named there.
import type { Op } from '../src/history/types.ts';
import type { Belief } from './holds.ts';
import { lockName, staleUnlockEffect } from './messages.ts';
import { keptAlive, leaseNs, releaseKind } from './lease.ts';
import type { Anomaly, Backend } from './types.ts';
import { backendWords } from './backends.ts';

const ms = (ns: number) => Math.round(ns / 1e6);

/**
 * Where a belief's lease last started and how long it was: its last renewal while held (the
 * acquire's lease if the renew names none), unless the acquire's own lease ends later. Shapes C
 * and B2 are decided by it, here and by the streaming check (checkers/stream.ts), which must agree.
 */
export function leaseOf(mine: Belief): { from: Op; fromTime: number | undefined; fromLease: number | undefined } {
  // A lease kept alive out of sight has no end in the history to be late after.
  if (keptAlive(mine.acquire)) return { from: mine.acquire, fromTime: mine.acquire.completeTime, fromLease: undefined };
  const lease = leaseNs(mine.acquire);
  const renew = mine.renewed;
  const renewLease = renew && (leaseNs(renew) ?? lease);
  const later = renew?.completeTime !== undefined && renewLease !== undefined &&
    (lease === undefined || mine.acquire.completeTime === undefined || renew.completeTime + renewLease > mine.acquire.completeTime + lease);
  const from = later ? renew! : mine.acquire;
  return { from, fromTime: from.completeTime, fromLease: later ? renewLease : lease };
}

/**
 * beliefs: the key's beliefs in acquire-completion order, as scanKey gives them. named: ids of
 * releases the model already named stale. The searches for a later acquire are binary searches
 * over that order, so naming stays O(n log n) on a history of a million ops.
 */
export function findStaleUnlocks(key: string, beliefs: readonly Belief[], named: ReadonlySet<number>, backend?: Backend): Anomaly[] {
  const within = (q: Belief, x: Belief) => {
    const lease = keptAlive(q.acquire) ? undefined : leaseNs(q.acquire);
    return lease === undefined || q.acquire.completeTime === undefined || x.acquire.completeTime === undefined ||
      x.acquire.completeTime - q.acquire.completeTime < lease;
  };
  const name = lockName(key);
  const words = backendWords(backend);
  const out: Anomaly[] = [];
  for (const mine of beliefs) {
    const rel = mine.release;
    if (!rel || rel.outcome !== 'ok' || releaseKind(rel) !== 'plain' || named.has(rel.id)) continue;
    const { from, fromTime, fromLease } = leaseOf(mine);
    const since = from === mine.acquire ? '' : ` (renewed at line ${from.completeLine})`;
    // C: sent after the lease had run out, and it reported success.
    if (fromLease !== undefined && fromTime !== undefined && rel.invokeTime !== undefined && rel.invokeTime - fromTime > fromLease) {
      const late = ms(rel.invokeTime - fromTime - fromLease);
      const effect = words?.lateUnlock ?? 'it cannot have removed its own lock; an unlock that does not check the owner frees whichever client\'s lock is there';
      out.push({
        type: 'stale-release', key, processes: [mine.process],
        lines: [from.completeLine, rel.invokeLine, rel.completeLine],
        times: [fromTime, rel.invokeTime],
        message: `stale unlock: process ${mine.process} unlocked ${name} at line ${rel.invokeLine}, ${late} ms after its ${ms(fromLease)} ms lease${since} had run out, and the unlock reported success: ${effect}`,
      });
      continue;
    }
    if (words?.ownEntryOnly) continue;
    // B: in flight across a later acquire, and a third process got in while that one held it.
    const b = shapeB(beliefs, mine, rel, within);
    if (b) {
      const [q, r] = b;
      out.push({
        type: 'stale-release', key, processes: [mine.process, q.process, r.process],
        lines: [rel.invokeLine, q.acquire.completeLine, rel.completeLine, r.acquire.completeLine],
        message: `stale unlock: process ${mine.process}'s unlock of ${name} (lines ${rel.invokeLine}–${rel.completeLine}) was still running when process ${q.process} acquired it (line ${q.acquire.completeLine}); then process ${r.process} acquired it (line ${r.acquire.completeLine}) while process ${q.process} held it within its lease: ${staleUnlockEffect(backend, q.process)}`,
      });
      continue;
    }
    // B2: finished after its own lease ran out, while a later acquire was in flight.
    const done = rel.completeTime;
    if (fromLease === undefined || fromTime === undefined || done === undefined || done - fromTime <= fromLease) continue;
    for (let i = firstAfter(beliefs, rel.completeSeq); i < beliefs.length; i++) {
      const q = beliefs[i]!;
      if (q.process === mine.process || !(q.acquire.invokeSeq < rel.completeSeq)) continue;
      const r = startingIn(beliefs, q.start, q.end, (x) => x.process !== q.process && within(q, x));
      if (!r) continue;
      out.push({
        type: 'stale-release', key, processes: [mine.process, q.process, r.process],
        lines: [rel.invokeLine, rel.completeLine, q.acquire.completeLine, r.acquire.completeLine],
        message: `stale unlock: process ${mine.process}'s unlock of ${name} (lines ${rel.invokeLine}–${rel.completeLine}) finished ${ms(done - fromTime - fromLease)} ms after its ${ms(fromLease)} ms lease${since} had run out, while process ${q.process}'s acquire was in flight (ok at line ${q.acquire.completeLine}); then process ${r.process} acquired it (line ${r.acquire.completeLine}) while process ${q.process} held it within its lease: ${staleUnlockEffect(backend, q.process)}`,
      });
      break;
    }
  }
  return out;
}

function shapeB(beliefs: readonly Belief[], mine: Belief, rel: Op, within: (q: Belief, x: Belief) => boolean): [Belief, Belief] | undefined {
  for (let i = firstAfter(beliefs, rel.invokeSeq); i < beliefs.length && beliefs[i]!.start < rel.completeSeq; i++) {
    const q = beliefs[i]!;
    if (q.process === mine.process) continue;
    // The third may be the unlocking process itself, acquiring again after its unlock returned.
    const r = startingIn(beliefs, q.start, q.end, (x) => x.process !== q.process && (x.process !== mine.process || x.start > rel.completeSeq) && within(q, x));
    if (r) return [q, r];
  }
  return undefined;
}

/** Index of the first belief that starts after event `seq` (beliefs sorted by start). */
function firstAfter(beliefs: readonly Belief[], seq: number): number {
  let lo = 0, hi = beliefs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (beliefs[mid]!.start > seq) hi = mid; else lo = mid + 1;
  }
  return lo;
}

/** The first belief starting strictly between `from` and `to` that passes `ok`. */
function startingIn(beliefs: readonly Belief[], from: number, to: number, ok: (x: Belief) => boolean): Belief | undefined {
  for (let i = firstAfter(beliefs, from); i < beliefs.length && beliefs[i]!.start < to; i++) if (ok(beliefs[i]!)) return beliefs[i];
  return undefined;
}
