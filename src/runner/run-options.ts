// What a search or a replay is asked to do: `lockpick run`'s options after parsing
// (src/options.ts), as runTest and replay take them (runLockTest and the demo build the same).
import type { LockRecipe } from '../locks/lock.ts';
import type { LockSpec } from './protocol.ts';
import type { ProgressEvent, ProgressSink } from './progress.ts';
import type { EnvSpec } from '../env/env-kinds.ts';
import type { LearnedPoints } from '../workload/points.ts';
import type { Shard } from '../workload/shard.ts';
import type { Interrupts } from './with-session.ts';
import type { Lang } from '../i18n/lang.ts';

/**
 * What must hold: the lock's history ('lock'), the protected resource ('resource'),
 * both of these ('both', the default: safety), the lock becoming available again
 * after its holder is gone ('liveness'), or all three ('all').
 */
export type Property = 'lock' | 'resource' | 'both' | 'liveness' | 'all';
export const PROPERTIES: readonly Property[] = ['lock', 'resource', 'both', 'liveness', 'all'];

/** Whether the property asks for liveness (then a liveness violation makes the run unsafe). */
export function wantsLiveness(p: Property): boolean {
  return p === 'liveness' || p === 'all';
}

export interface RunOptions {
  lock: LockSpec;
  recipe: LockRecipe;
  faults: string[];
  clients: number;
  timeS: number;
  runs: number;
  shrinkTimeS: number;
  seed?: number;
  ttlMs: number;
  /** The user chose ttlMs (--ttl): plans aimed at a topology's failure keep it instead of the timescale they need. */
  ttlFixed?: boolean;
  keys: number;
  /** Workload shape: lock attempts per client, fault groups per run, at most (defaults 3 and 2). */
  maxAttempts?: number;
  maxFaults?: number;
  /** Every kill or server-term keeps its server down at least this long (--restart-delay). */
  restartDelayMs?: number;
  /** Named points client pauses may land at (default: 'in-critical-section' and the recipe's own). */
  pausePoints?: string[];
  /** The points to draw from, as an earlier search learned them (--points-from): no calibration run, so its seed draws its plans. */
  learnedPoints?: LearnedPoints;
  storeRoot: string;
  lockOptions?: Record<string, unknown>;
  property?: Property;
  /** The liveness bound (ms); default 2 × TTL (+ the session timeout of a session lock, + the servers' lease lag: Timescales.leaseLagMs). */
  livenessMs?: number;
  log(line: string): void;  // where the human report goes
  /** Where progress lines go (the CLI: process.stderr, unless --json); none when absent. */
  progress?: ProgressSink;
  onProgress?(e: ProgressEvent): void;
  /** Also write the run's JUnit XML here (--junit PATH); store/<lock>/<run-id>/junit.xml is always written. */
  junitPath?: string;
  /** How an interrupt ends the run: see Interrupts. */
  interrupts?: Interrupts;
  /** The environment kind and its servers (default local); stored in test.json for --replay. */
  env?: EnvSpec;
  /** Lock and resource keys start with this, then the run id (default 'lockpick:' on an external environment, none locally). */
  keyPrefix?: string;
  /** At most this many search runs at once, for plans whose faults all touch their own clients only (--parallel; default 1). */
  parallel?: number;
  /** After a violation, search on until timeS is spent and report every distinct failure (--keep-going). */
  keepGoing?: boolean;
  /** Stop at the first failure, even one inherent to the design (--first-failure). */
  firstFailure?: boolean;
  /** This run is shard I of N of one search (--shard): a disjoint part of the plans (src/workload/shard.ts). */
  shard?: Shard;
  /** A SAFE below this percentage of the fault cells known (src/runner/fault-cells.ts) is INCONCLUSIVE, naming the cells missing (--min-coverage, 0–100). */
  minCoverage?: number;
  /** Steer the plans not drawn by an aim toward fault cells not aimed at yet (default true; --coverage-guided false: uniform, for the bench). */
  coverageGuided?: boolean;
  /** The language of the counterexamples' timeline pages (--lang; default en). */
  lang?: Lang;
}

/** What a replay is asked to do: `lockpick run --replay DIR`. */
export interface ReplayOptions {
  dir: string;
  runs: number;
  storeRoot: string;
  /** The recipe of `spec`; `lockOptions`: the stored --lock-opt set its sessionMs is asked for. */
  resolve(spec: LockSpec, lockOptions?: Record<string, unknown>): Promise<LockRecipe>;
  log(line: string): void;
  junitPath?: string;
  interrupts?: Interrupts;
  /** Servers to use instead of the stored ones (--endpoints again: a password is never stored). */
  env?: EnvSpec;
  /** The lock to use instead of the stored one (--lock with --replay: the fixed module, or the same one moved). */
  lock?: LockSpec;
  /** --measure: run all `runs` times (not to the first violation) and say the reproduction rate, stored beside the counterexample. */
  measure?: boolean;
  /** The property to judge by instead of the stored one (--property with --replay: a fix judged for the lock alone). */
  property?: Property;
  /** The language of the counterexample's timeline page (default en). */
  lang?: Lang;
}
