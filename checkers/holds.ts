// Certain holds of an owner-aware lock (HISTORY.md "Double holder"), built per process from its
// own sequence of ops, plus the ops that a process could not have done as the holder.
// A hold runs from its acquire ok to the invoke of the next release that did not fail
// (ok, lost, lapse or info), or to the end of the history.
import type { Op } from '../src/history/types.ts';

export interface Hold {
  process: number;
  acquire: Op;          // the ok acquire that started it
  release?: Op;         // the release that ended it (ok or info); undefined: held to the end
  start: number;        // acquire.completeSeq
  end: number;          // release.invokeSeq, or Infinity
  failedReleases: Op[]; // releases that failed while held (the holder kept the lock)
}

/** A release or renew ok by a process that did not hold the lock, or a second acquire while holding. */
export interface Misstep {
  kind: 'stale-release' | 'stale-renew' | 'reacquire';
  op: Op;
  /** The process's previous hold: for reacquire the one still open, else the last one ended. */
  previous?: Hold;
}

export interface Holds { holds: Hold[]; missteps: Misstep[] }

/**
 * ops: all ops of one key in invoke order. reentrant: the holder's acquires nest and each
 * release takes one off. Info acquires are left out (taking effect could only block others);
 * an info release by the holder takes effect at its invoke (the earliest, most permissive point).
 */
export function buildHolds(ops: readonly Op[], reentrant = false): Holds {
  const open = new Map<number, { hold: Hold; depth: number }>();
  const lastHold = new Map<number, Hold>();
  const holds: Hold[] = [];
  const missteps: Misstep[] = [];
  for (const op of ops) {
    const p = op.process;
    const cur = open.get(p);
    if (op.outcome === 'fail') {
      if (cur && op.f === 'release') cur.hold.failedReleases.push(op);
      continue;
    }
    if (op.f === 'acquire') {
      if (op.outcome !== 'ok') continue;
      if (!cur) {
        const hold: Hold = { process: p, acquire: op, start: op.completeSeq, end: Infinity, failedReleases: [] };
        open.set(p, { hold, depth: 1 });
        holds.push(hold);
      } else if (reentrant) cur.depth++;
      else missteps.push({ kind: 'reacquire', op, previous: cur.hold });
    } else if (op.f === 'release') {
      if (cur) {
        if (--cur.depth === 0) {
          cur.hold.release = op;
          cur.hold.end = op.invokeSeq;
          open.delete(p);
          lastHold.set(p, cur.hold);
        }
      } else if (op.outcome === 'ok') missteps.push({ kind: 'stale-release', op, previous: lastHold.get(p) });
    } else if (op.f === 'renew') {
      if (!cur && op.outcome === 'ok') missteps.push({ kind: 'stale-renew', op, previous: lastHold.get(p) });
    }
  }
  return { holds, missteps };
}

export interface Overlap { first: Hold; second: Hold }

/**
 * Overlapping holds of different processes, found by one pass over holds in acquire-completion
 * order keeping the hold that ends last so far: every hold that overlaps an earlier one is
 * reported once, against the earlier hold that reaches furthest. O(h log h).
 */
export function findOverlaps(holds: Hold[]): Overlap[] {
  const sorted = holds.slice().sort((a, b) => a.start - b.start);
  const out: Overlap[] = [];
  let reach: Hold | undefined;
  for (const h of sorted) {
    if (reach && reach.end > h.start && reach.process !== h.process) out.push({ first: reach, second: h });
    if (!reach || h.end > reach.end) reach = h;
  }
  return out;
}
