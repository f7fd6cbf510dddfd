// The package's public entry: `import { ... } from 'lockpick'` (and `require('lockpick')`).
// Everything a user's lock module or test suite needs, nothing of the runner's
// insides. Built to dist/ by `npm run build` (tsconfig.build.json) before packing.
//
// The library API (runLockTest, ...) is exported from ./api.ts on its own line
// below; if it defines a checkHistory of its own (file or events), drop the
// checker's checkHistory from the checker line so the names do not collide.

// The lock contract (src/locks/lock.ts): what a user's lock implements.
export type { Lock, LockRecipe, LockContext, Held, AcquireOptions, Clock } from './locks/lock.ts';
export { DefiniteFailure, isDefiniteFailure, LockContractError, isLockContractError } from './locks/lock.ts';
export type { Endpoint } from './env/types.ts';

// The checker: read a history (JSON Lines or Jepsen EDN) and check it against a model.
export { MODELS, CheckInputError } from '../checkers/index.ts';
export type { CheckResult, CheckOptions, Anomaly, Verdict, Model } from '../checkers/types.ts';
export { readHistory, HistoryError } from './history/index.ts';
export type { HistoryEvent, HoldMode, NemesisEvent, Op, ParsedHistory, Process, EventType } from './history/index.ts';

// The exit-code contract of the CLI (README "Exit codes").
export { EXIT, UsageError, InconclusiveError } from './errors.ts';

// The library API for test suites (src/api.ts): runLockTest, and checkHistory of a file, events or a parsed history.
export { runLockTest, checkHistory, mergeRuns } from './api.ts';
export type { LockTestOptions, CheckHistoryOptions, RunSummary, ProgressEvent, MergeRunsOptions, MergeResult, MergedFailure } from './api.ts';
// What a summary holds, typed: result.minimal (MinimalCounterexample: plan, anomalies, resource),
// result.coverage, result.failures (--keep-going's distinct failures), result.liveness, result.throughput.
export type { RunSummaryFields, MinimalCounterexample, FailureJson as DistinctFailure, LivenessTotals } from './runner/index.ts';
export type { Coverage } from './runner/coverage.ts';
export type { Throughput } from './runner/progress.ts';
export type { ResourceResult } from '../checkers/resource.ts';
export type { RunPlan, ClientPlan, Attempt } from './workload/plan.ts';
export type { FaultSpec } from '../nemesis/types.ts';
