// A fault as the timeline draws it (src/report/timeline-story.ts): what its `<kind>-start`
// record says and how long it lasted, worded by its kind (KindDef.band), e.g.
// "pause c1 1088 ms (> lease 800 ms) at in-critical-section". The shared pieces of
// those words live here, so each kind's file says only what is particular to it.

/** One fault band: its start record, its clients and nodes, how long it lasted. */
export interface FaultBand {
  /** The `<kind>-start` record's value. */
  value: Record<string, unknown>;
  /** Its params (value.params), or {}. */
  params: Record<string, unknown>;
  /** Its clients and nodes, 'c1, n2', or 'all'. */
  who: string;
  /** How long it lasted: as planned (duration_ms), else as measured; undefined when never healed. */
  durMs?: number;
  /** The lease of the hold it hit, when one is known (a client pause). */
  leaseMs?: number;
  /** The point it was anchored at. */
  point?: string;
}

/** A step a kind takes before its start record is written (a failover: replication cut, primary paused, replica promoted). */
export interface FaultStep { a: number; words: string }

export const fmtMs = (ms: number): string => (Math.abs(ms) >= 10_000 ? `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1)} s` : `${Math.round(ms)} ms`);
export const signedMs = (ms: number): string => `${ms >= 0 ? '+' : '−'}${fmtMs(Math.abs(ms))}`;
/** A finite number, else undefined. */
export const finite = (x: unknown): number | undefined => (typeof x === 'number' && Number.isFinite(x) ? x : undefined);
/** " for 900 ms", or "" when it was never healed. */
export const forDur = (b: FaultBand): string => (b.durMs === undefined ? '' : ` for ${fmtMs(b.durMs)}`);
/** " (> lease 800 ms)" when both are known. */
export const vsLease = (b: FaultBand): string => (b.durMs !== undefined && b.leaseMs !== undefined ? ` (${b.durMs > b.leaseMs ? '>' : '≤'} lease ${fmtMs(b.leaseMs)})` : '');
/** " at in-critical-section", or "". */
export const atPoint = (b: FaultBand): string => (b.point === undefined ? '' : ` at ${b.point}`);
