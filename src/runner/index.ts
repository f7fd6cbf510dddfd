// `lockpick run` without the command line: a search (runTest: open a session, calibrate,
// search, shrink, store; run-test.ts) or a stored plan run again (replay.ts), and the
// summary both resolve with (summary.ts). Each step is a file of its own:
//   with-session.ts   the session opened and always closed; an interrupt stores what was found
//   calibrate.ts      the points a search draws from (a calibration run, or --points-from)
//   workload.ts       the workload options, from the run's options and the session's topology
//   search.ts         fast-check over the plans; shrink.ts the shrinking of a failure
//   search-tally.ts   what the search has seen, run by run
//   search-report.ts  the verdict stored and said (a replay's: replay-report.ts)
//   run-files.ts      the files every run writes
export { runTest } from './run-test.ts';
export type { ReplayOptions, RunOptions } from './run-options.ts';
export { replay } from './replay.ts';
export { abortReason, interruptedExit, type Interrupted, type Interrupts } from './with-session.ts';
export type { FailureJson, LivenessTotals, MinimalCounterexample, RunSummary, RunSummaryFields } from './summary.ts';
