// Stale unlocks, named as such: an unlock that ran while another client held
// the lock and reported success. Two shapes:
//  A. the unlock was sent after another process's acquire had returned ok (and
//     that process had not released yet): it can only have removed that
//     process's key (a plain DEL after the lease expired);
//  C. the unlock was sent after the holder's lease had run out (counted from
//     its acquire's ok, so later than the real expiry) and reported success:
//     an unconditional unlock then deletes whichever client's lock is there;
//  B. the unlock was sent before and returned after another process's acquire
//     ok (a pause between compare and delete), and a third process then got
//     the lock while that one still held it, inside its lease: nothing but the
//     unlock can have freed it.
//  B2. as B, but the unlock's reply was recorded just before the next
//     holder's acquire reply (the two raced): the unlock ran while that acquire
//     was in flight and finished after the unlocker's own lease had run out.
// The double holders themselves are the checker's; this names their cause.
import { buildHolds, type Hold } from '../../checkers/holds.ts';
import type { Anomaly } from '../../checkers/types.ts';
import type { Op, ParsedHistory } from '../history/types.ts';

function plainRelease(op: Op): boolean {
  if (op.f !== 'release' || op.outcome !== 'ok') return false;
  const v = op.value as { lost?: unknown; lapse?: unknown } | undefined;
  return !(v && (v.lost || v.lapse));
}

/** leaseMs: the lease every acquire of the run asked for (the plan's TTL). */
export function findStaleUnlocks(h: ParsedHistory, leaseMs: number): Anomaly[] {
  const lease = leaseMs * 1e6;
  const withinLease = (q: Hold, x: Hold) => q.acquire.completeTime === undefined || x.acquire.completeTime === undefined ||
    x.acquire.completeTime - q.acquire.completeTime < lease;
  const byKey = new Map<string, Op[]>();
  for (const op of h.ops) {
    if (!byKey.has(op.key)) byKey.set(op.key, []);
    byKey.get(op.key)!.push(op);
  }
  const out: Anomaly[] = [];
  for (const [key, ops] of byKey) {
    const { holds } = buildHolds(ops);
    for (const mine of holds) {
      const rel = mine.release;
      if (!rel || !plainRelease(rel)) continue;
      // A: sent while a later holder held the lock.
      const victimA = holds.find((q) => q.process !== mine.process && q.start > mine.start && q.start < rel.invokeSeq && q.end > rel.invokeSeq);
      if (victimA) {
        out.push({
          type: 'stale-release', key, processes: [mine.process, victimA.process],
          lines: [mine.acquire.completeLine, victimA.acquire.completeLine, rel.invokeLine],
          times: [rel.invokeTime, victimA.acquire.completeTime].filter((t): t is number => t !== undefined),
          message: `stale unlock: process ${mine.process} unlocked "${key}" at line ${rel.invokeLine} while process ${victimA.process} held it (since line ${victimA.acquire.completeLine}), and the unlock reported success: it removed process ${victimA.process}'s lock`,
        });
        continue;
      }
      // C: sent after the lease had run out, and it reported success.
      const acquired = mine.acquire.completeTime;
      if (acquired !== undefined && rel.invokeTime !== undefined && rel.invokeTime - acquired > lease) {
        const late = Math.round((rel.invokeTime - acquired - lease) / 1e6);
        out.push({
          type: 'stale-release', key, processes: [mine.process],
          lines: [mine.acquire.completeLine, rel.invokeLine, rel.completeLine],
          times: [acquired, rel.invokeTime],
          message: `stale unlock: process ${mine.process} unlocked "${key}" at line ${rel.invokeLine}, ${late} ms after its ${leaseMs} ms lease had run out, and the unlock reported success: an unlock that does not check the owner deletes whichever client's lock is there`,
        });
        continue;
      }
      // B: in flight across a later acquire, and a third process got in while that one held it.
      let named = false;
      for (const q of holds) {
        if (q.process === mine.process || !(q.start > rel.invokeSeq && q.start < rel.completeSeq)) continue;
        // The third may be the unlocking process itself, acquiring again after its unlock returned.
        const r = holds.find((x) => x.process !== q.process && (x.process !== mine.process || x.start > rel.completeSeq) &&
          x.start > q.start && x.start < q.end && withinLease(q, x));
        if (!r) continue;
        out.push({
          type: 'stale-release', key, processes: [mine.process, q.process, r.process],
          lines: [rel.invokeLine, q.acquire.completeLine, rel.completeLine, r.acquire.completeLine],
          message: `stale unlock: process ${mine.process}'s unlock of "${key}" (lines ${rel.invokeLine}–${rel.completeLine}) was still running when process ${q.process} acquired it (line ${q.acquire.completeLine}); then process ${r.process} acquired it (line ${r.acquire.completeLine}) while ${q.process} held it within its lease: the unlock removed process ${q.process}'s lock`,
        });
        named = true;
        break;
      }
      if (named) continue;
      // B2: finished after its own lease ran out, while a later acquire was in flight.
      const done = rel.completeTime;
      if (acquired === undefined || done === undefined || done - acquired <= lease) continue;
      for (const q of holds) {
        if (q.process === mine.process || !(q.start > rel.completeSeq && q.acquire.invokeSeq < rel.completeSeq)) continue;
        const r = holds.find((x) => x.process !== q.process && x.start > q.start && x.start < q.end && withinLease(q, x));
        if (!r) continue;
        out.push({
          type: 'stale-release', key, processes: [mine.process, q.process, r.process],
          lines: [rel.invokeLine, rel.completeLine, q.acquire.completeLine, r.acquire.completeLine],
          message: `stale unlock: process ${mine.process}'s unlock of "${key}" (lines ${rel.invokeLine}–${rel.completeLine}) finished ${Math.round((done - acquired - lease) / 1e6)} ms after its ${leaseMs} ms lease had run out, while process ${q.process}'s acquire was in flight (ok at line ${q.acquire.completeLine}); then process ${r.process} acquired it (line ${r.acquire.completeLine}) while ${q.process} held it within its lease: the unlock removed process ${q.process}'s lock`,
        });
        break;
      }
    }
  }
  return out;
}
