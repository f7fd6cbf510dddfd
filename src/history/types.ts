// The history contract (docs/history-format.md) as TypeScript types.
export type EventType = 'invoke' | 'ok' | 'fail' | 'info';
export type Process = number | 'nemesis';

/** One line of a history file, as written by the recorder and read by `check`. */
export interface HistoryEvent {
  type: EventType;
  f: string;
  process: Process;
  key?: string;
  value?: unknown;
  time?: number;
  index?: number;
  /** On acquire events (docs/history-format.md "Semaphores and read-write locks"). */
  mode?: HoldMode;
  permits?: number;
  limit?: number;
  [extra: string]: unknown;
}

/**
 * An invoke paired with its completion. `outcome` 'info' covers both an info
 * completion and an invoke left unanswered at the end of the file.
 * Lines are 1-based line numbers in the source file (what users see in reports).
 */
export interface Op {
  id: number;                 // 0-based, in invoke order
  process: number;
  f: string;
  key: string;
  outcome: 'ok' | 'fail' | 'info';
  invokeValue: unknown;       // value on the invoke line
  value: unknown;             // value on the completion line (undefined if none)
  invokeLine: number;
  completeLine: number;       // Infinity when unanswered
  invokeTime?: number;        // ns, from `time`
  completeTime?: number;
  invokeSeq: number;          // 0-based position of the invoke among all events (real-time order)
  completeSeq: number;        // position of the completion; Infinity when unanswered
  leaseMs?: number;           // `lease_ms` of the completion (else the invoke): the lease an acquire or renew was granted
  validMs?: number;           // `valid_ms` of an ok acquire or renew: the validity the lock reported left when it returned (a careful client's belief ends then)
  sentMs?: number;            // `sent_ms` of an ok acquire or renew: ms from its last write to a socket until it returned (checkers/validity.ts)
  /** `mode` of an acquire (the completion's, else the invoke's): a read-write lock's read hold is 'shared'; absent means exclusive. */
  mode?: HoldMode;
  /** `permits` of an acquire: how many permits of a counting semaphore the hold takes (integer ≥ 1; absent: 1). */
  permits?: number;
  /** `limit` of an acquire: the semaphore's total permits N (integer ≥ 1; absent: 1, a mutex). */
  limit?: number;
}

/** How a hold shares its key: a read-write lock's read hold is shared, every other hold exclusive. */
export type HoldMode = 'exclusive' | 'shared';

/** A fault-injection record (process "nemesis"). */
export interface NemesisEvent { line: number; seq: number; f: string; type: EventType; value?: unknown; time?: number }

export interface ParsedHistory {
  source: string;            // file path, for messages
  ops: Op[];                 // client operations (not nemesis), invoke order
  nemesis: NemesisEvent[];
  events: number;            // number of event lines read
}
