// A lock's real lease, when the library's differs from the TTL lockpick asks for: a library
// that counts whole seconds rounds a lease up (`granularityMs`), one may ask for no less than a
// minimum (`minMs`), and the server may keep the lock a while past it (`marginMs`: memcached's
// once-a-second clock, a library that pads its expiry). Declared by a recipe (`realLease`), it
// is what lockpick records as an acquire's lease_ms and sizes faults by (Timescales).
import type { Timescales } from '../env/topology.ts';

export interface RealLease {
  /** Leases are whole multiples of this (1000: whole seconds), rounded up. */
  granularityMs?: number;
  /** The shortest lease the library asks for. */
  minMs?: number;
  /** How long past its lease the server may still hold the lock. */
  marginMs?: number;
}

/** Each field's bound (ms): an hour, as the TTL's. */
export const REAL_LEASE_MAX_MS = 3_600_000;
export const REAL_LEASE_FIELDS = ['granularityMs', 'minMs', 'marginMs'] as const;

/** The lease the library really asks for when lockpick asks for ttlMs: at least minMs, rounded up to the granularity. */
export function realLeaseMs(ttlMs: number, l: RealLease | undefined): number {
  if (!l) return ttlMs;
  const g = l.granularityMs ?? 0;
  const rounded = g > 0 ? Math.ceil(ttlMs / g) * g : ttlMs;
  return Math.max(rounded, l.minMs ?? 0);
}

/**
 * The servers' timescales with the lock's real lease folded in: no TTL below its minimum, and a
 * fault meant to outlast a lease outlasts its rounding (up to one granule) and margin too.
 */
export function withRealLease(t: Timescales, l: RealLease | undefined): Timescales {
  if (!l) return t;
  const lag = (l.granularityMs ?? 0) + (l.marginMs ?? 0);
  const min = l.minMs ?? 0;
  return {
    ...t,
    ...(min > (t.leaseMinMs ?? 0) ? { leaseMinMs: min } : {}),
    ...(lag > (t.leaseLagMs ?? 0) ? { leaseLagMs: lag } : {}),
    said: [...t.said, `the lock's real lease (its recipe): ${describeRealLease(l)}`],
  };
}

export function describeRealLease(l: RealLease): string {
  const parts = [
    l.granularityMs ? `rounded up to ${l.granularityMs} ms` : undefined,
    l.minMs ? `at least ${l.minMs} ms` : undefined,
    l.marginMs ? `held up to ${l.marginMs} ms past it` : undefined,
  ].filter(Boolean);
  return parts.length ? parts.join(', ') : 'the TTL asked for';
}

/** What is wrong with a declared real lease (a recipe's `realLease`), each naming its field and bound. */
export function realLeaseProblems(v: unknown, where = 'realLease'): string[] {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return [`${where}: an object {"granularityMs": N, "minMs": N, "marginMs": N} (each optional, ms)`];
  const out: string[] = [];
  for (const [k, x] of Object.entries(v)) {
    if (!(REAL_LEASE_FIELDS as readonly string[]).includes(k)) out.push(`${where}.${k}: not a field (known: ${REAL_LEASE_FIELDS.join(', ')})`);
    else if (!(typeof x === 'number' && Number.isFinite(x) && x >= 0 && x <= REAL_LEASE_MAX_MS)) out.push(`${where}.${k}: a number of ms from 0 to ${REAL_LEASE_MAX_MS}`);
  }
  return out;
}
