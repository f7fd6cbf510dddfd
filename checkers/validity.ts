// Validity checked against physics: a lock that reports its validity (`valid_ms` on the acquire
// ok, or on a renew ok: the renewed lease's) cannot have more left than its lease less the time
// since its granting round began. The
// worker records `sent_ms` (src/runner/send-clock.ts): how long before acquire returned its last
// write went out. That write came after the lock's clock started (a lock must start it before its
// round's first request: a key may be set as soon as a request arrives), so at return the lease at
// the servers has at most lease_ms − sent_ms left, and a correct lock reports no more:
//   valid_ms ≤ lease_ms − sent_ms (− the drift it allows, which no recipe declares: taken as 0,
//   the lenient side).
// Both figures are the worker's, on one monotonic clock: the recorder's invoke→ok span (IPC,
// scheduling under load) is not in them, and retries or sleeps before the last round only make
// sent_ms smaller. TOLERANCE_MS covers the rounding: valid_ms is rounded up, and a lock reading a
// millisecond clock (Date.now) can count up to 1 ms short. An acquire without all three figures is
// not checked; a validity already over is an expired grant instead. A renew is checked the same
// way, against its own lease_ms, else its acquire's (the lease the renew asked for again).
import type { Op } from '../src/history/types.ts';

export const TOLERANCE_MS = 2;

/**
 * How many ms more validity the acquire ok (or renew ok) reported than its lease can have left, or
 * undefined when none (or not checkable). `leaseMs`: a renew's lease when it records none (its acquire's).
 */
export function overstatedMs(op: Op, leaseMs: number | undefined = op.leaseMs): number | undefined {
  const { validMs, sentMs } = op;
  if ((op.f !== 'acquire' && op.f !== 'renew') || op.outcome !== 'ok' || validMs === undefined || leaseMs === undefined || sentMs === undefined || validMs <= 0) return undefined;
  const over = validMs - (leaseMs - sentMs);
  return over > TOLERANCE_MS ? over : undefined;
}
