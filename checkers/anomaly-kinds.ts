// Anomaly types by what they are: overlapping holders, and liveness (reported beside the verdict, never making a key invalid: a
// permit leak, docs/history-format.md "Semaphores and read-write locks"). Read by the checker and
// the reports alike.
import type { Anomaly } from './types.ts';

/**
 * Every anomaly type a checker reports (Anomaly.type is one of them, so a new one is added here,
 * and the pages need its name in each language: src/i18n/messages.ts 'anomaly.<type>').
 */
export const ANOMALY_TYPES = [
  'double-holder', 'over-admission', 'writer-beside-reader', 'writer-beside-writer', 'nonlinearizable',
  'stale-release', 'stale-renew', 'stale-token', 'lost-update', 'stale-write', 'exposure', 'expired-grant',
  'overstated-validity', 'phantom-grant', 'permit-leak', 'liveness', 'client-crash',
] as const;
export type AnomalyType = typeof ANOMALY_TYPES[number];

/** Clients holding at once beyond what the lock allows (times: [the overlap's start, its end]): drawn and classed as a double holder is. */
export const OVERLAPS: ReadonlySet<string> = new Set<AnomalyType>(['double-holder', 'over-admission', 'writer-beside-reader', 'writer-beside-writer']);

/**
 * Anomalies one client shows alone (a grant already over, a validity beyond its lease, a grant with
 * no server reached, the lock's client dying while it held, a holder acting on past its lock's
 * end): a plan that shows one needs no second
 * client to meet the hold, so a fix replayed on it is judged without contention (src/runner/replay.ts).
 */
export const ONE_CLIENT_ANOMALIES: ReadonlySet<string> = new Set<AnomalyType>(['expired-grant', 'overstated-validity', 'phantom-grant', 'client-crash', 'exposure']);

export const LIVENESS_ANOMALIES: ReadonlySet<string> = new Set<AnomalyType>(['permit-leak']);

/** Whether a key with these anomalies is valid: none but liveness ones. */
export const noSafetyAnomaly = (anomalies: readonly Anomaly[]): boolean => anomalies.every((a) => LIVENESS_ANOMALIES.has(a.type));
