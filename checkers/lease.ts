// What the server holds for an owner-aware lock (docs/history-format.md "Leases and what the server holds"), shared by
// the sweep (checkers/holds.ts) and the search models (checkers/models/mutex.ts) so both judge
// alike. A hold starts at an acquire ok; a failed release leaves it standing; an ok (plain,
// lost, lapse) or info release ends it. For a lease lock (the acquire ok carries lease_ms and
// the history has times) the server may also drop it once the lease has run out, counted from
// the acquire's invoke (the earliest the server can have started it). Expiry is lenient: another
// process's acquire completing after that point is legal, and so is the holder's own later
// release or renew as long as nobody else acquired in between.
import type { Op } from '../src/history/types.ts';

/** ns of a lease_ms, or undefined. */
export const leaseNs = (op: Op): number | undefined => (op.leaseMs === undefined ? undefined : op.leaseMs * 1e6);

/** When the lease op (an acquire or renew) started may run out: its invoke time + lease, or Infinity. */
export function leaseEnd(op: Op, fallbackNs?: number): number {
  const ns = leaseNs(op) ?? fallbackNs;
  return ns !== undefined && op.invokeTime !== undefined ? op.invokeTime + ns : Infinity;
}

/**
 * May a hold whose lease runs out at `deadline`, started by an acquire that completed at event
 * `since`, be gone when `op` (another acquire) completes? Never before its own acquire returned
 * ok: a lock that hands out a lease already gone is broken anyway, and this keeps holds in
 * acquire-completion order (the sweep's proof relies on it).
 */
export function ranOut(deadline: number, since: number, op: Op): boolean {
  return deadline !== Infinity && op.completeTime !== undefined && op.completeTime >= deadline && since < op.completeSeq;
}

/**
 * Whether an acquire ok says its lease is kept alive out of sight (`"value": {"kept_alive": true}`:
 * a watchdog, an auto-refresh): no renew line dates the lease, so its length alone does not end the hold.
 */
export function keptAlive(op: Op): boolean {
  const v = op.value as { kept_alive?: unknown } | null | undefined;
  return v !== null && typeof v === 'object' && v.kept_alive === true;
}

/**
 * ns of the session an acquire ok says its hold lives in (`"value": {"session_ms": N}`: the server
 * keeps it while it hears from the client, and N ms after), or undefined.
 */
export function sessionNs(op: Op): number | undefined {
  const v = op.value as { session_ms?: unknown } | null | undefined;
  const ms = v !== null && typeof v === 'object' ? v.session_ms : undefined;
  return typeof ms === 'number' && Number.isFinite(ms) && ms > 0 ? ms * 1e6 : undefined;
}

/** How a release op ends a hold. A lost or lapse release is legal whoever holds the lock. */
export function releaseKind(op: Op): 'plain' | 'lost' | 'lapse' {
  const v = op.value as { lost?: unknown; lapse?: unknown } | null | undefined;
  if (op.outcome === 'ok' && v !== null && typeof v === 'object') {
    if (v.lapse) return 'lapse';
    if (v.lost) return 'lost';
  }
  return 'plain';
}
