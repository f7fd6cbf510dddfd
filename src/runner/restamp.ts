// A completion is seen in the client's worker and stamped by the parent's recorder when its
// message arrives: later, by however long the parent took to read it (tens of ms on a loaded
// machine). The durations the worker measured at its instant (docs/history-format.md: `valid_ms`
// is what was left of the validity at the ok's `time`, `sent_ms` how long before it the last
// request went out) are moved to the stamp, so the checker's `time + valid_ms` is the lock's own
// end of validity, not that much later (which made a careful client's next holder a double holder).

/** The completion's fields as of `lagMs` after the worker measured them (lagMs ≥ 0). */
export function restamp(extra: Record<string, unknown> | undefined, lagMs: number): Record<string, unknown> | undefined {
  if (!extra || !(lagMs > 0)) return extra;
  const out = { ...extra };
  // Rounded as the worker rounds them: valid_ms up (never shorter than the client's), sent_ms down.
  // A grant with validity left when the worker saw it is no expired grant (valid_ms ≤ 0 is the
  // lock's bug): what ran out while the message waited is kept at 1 ms, and the worker's lapse follows.
  if (typeof out.valid_ms === 'number') out.valid_ms = out.valid_ms > 0 ? Math.max(1, Math.ceil(out.valid_ms - lagMs)) : out.valid_ms;
  if (typeof out.sent_ms === 'number') out.sent_ms = Math.floor(out.sent_ms + lagMs);
  return out;
}
