// Which anomalies are liveness: reported beside the verdict, never making a key invalid (a
// permit leak, docs/history-format.md "Semaphores and read-write locks"). Read by the checker and
// the reports alike.
import type { Anomaly } from './types.ts';

export const LIVENESS_ANOMALIES: ReadonlySet<string> = new Set(['permit-leak']);

/** Whether a key with these anomalies is valid: none but liveness ones. */
export const noSafetyAnomaly = (anomalies: readonly Anomaly[]): boolean => anomalies.every((a) => LIVENESS_ANOMALIES.has(a.type));
