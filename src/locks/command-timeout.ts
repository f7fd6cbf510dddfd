// The budget of one call to the servers (LockContext.commandTimeoutMs): lockpick's default, and
// the bounds of a recipe's own (a library whose timeouts are whole seconds cannot keep 500 ms).

export const COMMAND_TIMEOUT_DEFAULT_MS = 500;
/** A call allowed longer than this would stretch every run past what a search can afford. */
export const COMMAND_TIMEOUT_MAX_MS = 30_000;

/** What is wrong with a recipe's `commandTimeoutMs` (empty when absent or fine). */
export function commandTimeoutProblems(v: unknown): string[] {
  if (v === undefined) return [];
  return typeof v === 'number' && Number.isFinite(v) && v >= 50 && v <= COMMAND_TIMEOUT_MAX_MS
    ? []
    : [`commandTimeoutMs: a number of ms from 50 to ${COMMAND_TIMEOUT_MAX_MS} (the budget of one call to the servers; default ${COMMAND_TIMEOUT_DEFAULT_MS})`];
}
