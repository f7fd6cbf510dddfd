// Nemesis records a run writes that are not a fault kind's own (docs/history-format.md): the run's
// sections, a heal or a fault that failed, a client's new process joining a fault begun. Counted
// apart from the faults and never taken for a kind's start or stop.
export const RUNNER_RECORDS: ReadonlySet<string> = new Set(['run-start', 'run-end', 'heal-failed', 'fault-not-applied', 'joined-fault']);
