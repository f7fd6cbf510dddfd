// Liveness: a lock nobody could take for longer than a bound after its last
// holder was gone. Safety asks "never two holders"; this asks "a free (or
// abandoned) lock becomes available again". A MySQL unique-key row is never
// expired by the server, so a holder that dies keeps it forever: safe, but
// every other client fails from then on. Pure, like the other checkers.
//
// Per key, in real-time order (line order, docs/history-format.md): a hold starts at an
// acquire ok; the holder's belief ends at its next release invoke (release,
// lapse, or the lapse the runner records when the client process died), or at
// the completion of an acquire that ended `info` (the process may hold and
// never invokes again). When the last live belief ends, a window opens; the
// next acquire ok closes it. Acquires that fail or time out (`info`) while it
// is open are the evidence: if the last of them completed more than `boundMs`
// after the window opened, the key was unavailable that long while clients
// kept trying. Needs `time` on the events; a key without times is not judged.
import type { Op, ParsedHistory } from '../src/history/types.ts';
import type { Anomaly } from './types.ts';

export interface LivenessOptions {
  /** Longest a lock may stay unavailable after its last holder was gone (ms). */
  boundMs: number;
  /** Process → client id ('c1'), for the words (the runner records `client` on invokes). */
  clients?: ReadonlyMap<number, string>;
  /** Lines of release-lapse completions recorded because the client process died. */
  deathLines?: ReadonlySet<number>;
  /** Whether the lock's holds are leases the server expires (false: nothing frees a dead holder's hold). */
  leased?: boolean;
}

export interface LivenessResult {
  violations: Anomaly[];
  /** Longest observed unavailability after a holder was gone (ms), violation or not. */
  longest_unavailable_ms: number;
}

interface Window {
  holder: number;
  cause: string;
  line: number;
  timeNs: number;
  failed: Op[];
}

const NS = 1e6;

/** How the holder's belief ended, in words. */
function goneBecause(op: Op, o: LivenessOptions): string {
  if (op.f === 'acquire') return 'its acquire timed out (unknown outcome) and the process never came back';
  if (o.deathLines?.has(op.completeLine)) return 'died while holding it';
  const v = op.value as { lapse?: boolean; lost?: boolean } | undefined;
  if (v?.lapse) return 'stopped believing it held it (lapse)';
  if (op.outcome === 'fail') return 'left its critical section but failed to release it';
  if (op.outcome === 'info') return 'left its critical section with a release of unknown outcome';
  return 'released it';
}

export function checkLiveness(history: ParsedHistory, o: LivenessOptions): LivenessResult {
  const byKey = new Map<string, Op[]>();
  for (const op of history.ops) {
    if (op.f !== 'acquire' && op.f !== 'release') continue;
    let l = byKey.get(op.key);
    if (!l) byKey.set(op.key, (l = []));
    l.push(op);
  }
  const violations: Anomaly[] = [];
  let longest = 0;
  for (const [key, ops] of byKey) {
    // Events of interest, each at its position in the history: belief starts/ends, attempt outcomes.
    type Ev = { seq: number; kind: 'hold' | 'end' | 'failed'; op: Op };
    const evs: Ev[] = [];
    const holding = new Map<number, number>();   // process → re-entry depth
    for (const op of ops) {
      if (op.f === 'acquire') {
        if (op.outcome === 'ok' && Number.isFinite(op.completeSeq)) evs.push({ seq: op.completeSeq, kind: 'hold', op });
        else if (op.outcome === 'fail' && Number.isFinite(op.completeSeq)) evs.push({ seq: op.completeSeq, kind: 'failed', op });
        else if (op.outcome === 'info' && Number.isFinite(op.completeSeq)) {
          // An unknown acquire: a failed attempt for the clients waiting, and possibly a hold
          // its (now gone) process took: the key may be held by nobody who will ever release it.
          evs.push({ seq: op.completeSeq, kind: 'failed', op });
        }
      } else {
        evs.push({ seq: op.invokeSeq, kind: 'end', op });
      }
    }
    evs.sort((a, b) => a.seq - b.seq);
    let win: Window | undefined;
    const close = (next?: Op) => {
      if (!win) return;
      const w = win;
      win = undefined;
      const last = w.failed.at(-1);
      if (!last || last.completeTime === undefined) return;
      const ms = (last.completeTime - w.timeNs) / NS;
      longest = Math.max(longest, ms);
      if (ms <= o.boundMs) return;
      const who = (p: number) => `process ${p}${o.clients?.get(p) ? ` (client ${o.clients.get(p)})` : ''}`;
      const procs = [...new Set(w.failed.map((f) => f.process))];
      const clientsTrying = new Set(w.failed.map((f) => o.clients?.get(f.process) ?? `p${f.process}`));
      const why = o.leased === false
        ? 'nothing on the server expires this lock\'s hold (it has no lease), so a holder that is gone keeps it'
        : `its lease should have freed it well within ${o.boundMs} ms`;
      const timedOut = w.failed.filter((f) => f.outcome === 'info').length;
      violations.push({
        type: 'liveness', key, processes: [w.holder, ...procs.filter((p) => p !== w.holder)],
        lines: [w.line, w.failed[0]!.completeLine, last.completeLine, ...(next ? [next.completeLine] : [])],
        times: [w.timeNs, last.completeTime],
        message: `${key} was unavailable for ${(ms / 1000).toFixed(1)} s (bound ${o.boundMs} ms) after ${who(w.holder)} ${w.cause} at line ${w.line}: `
          + `${w.failed.length} acquire(s) by ${clientsTrying.size} client(s) failed${timedOut ? ` or timed out (${timedOut})` : ''} meanwhile, the last at line ${last.completeLine}`
          + `${next ? `; ${who(next.process)} acquired it again at line ${next.completeLine}` : '; nobody acquired it again before the history ends'}; ${why}`,
      });
    };
    for (const e of evs) {
      if (e.kind === 'hold') {
        close(e.op);
        holding.set(e.op.process, (holding.get(e.op.process) ?? 0) + 1);
      } else if (e.kind === 'end') {
        const depth = holding.get(e.op.process);
        if (depth === undefined) continue;
        // An inner release of a re-entered lock leaves it held by the same process.
        if (depth > 1) { holding.set(e.op.process, depth - 1); continue; }
        holding.delete(e.op.process);
        if (holding.size > 0) continue;
        const t = e.op.invokeTime;
        if (t === undefined) continue;
        win = { holder: e.op.process, cause: goneBecause(e.op, o), line: o.deathLines?.has(e.op.completeLine) ? e.op.completeLine : e.op.invokeLine, timeNs: t, failed: [] };
      } else if (win) {
        win.failed.push(e.op);
      } else if (e.op.outcome === 'info' && holding.size === 0 && e.op.completeTime !== undefined) {
        // Nobody else holds and this acquire may have taken effect: its process is gone with it.
        win = { holder: e.op.process, cause: goneBecause(e.op, o), line: e.op.completeLine, timeNs: e.op.completeTime, failed: [] };
      }
    }
    close();
  }
  return { violations, longest_unavailable_ms: Math.round(longest) };
}

/**
 * The default bound, from the topology's timescales: what frees a gone holder's lock on its
 * own (its lease, at most one TTL after its acquire; or the server's session timeout for a
 * session lock), how late the servers act on a lease that ran out (`leaseLagMs`: etcd's
 * lessor loop, memcached's whole-second expiry), plus one TTL of slack for the waiters'
 * retries and the server noticing. Not the clients' waits: a failed acquire is evidence up
 * to its completion, and a lock that came free during a wait would have been taken then.
 */
export function defaultLivenessBoundMs(ttlMs: number, t: { sessionMs?: number; leaseLagMs?: number } = {}): number {
  return 2 * ttlMs + (t.sessionMs ?? 0) + (t.leaseLagMs ?? 0);
}
