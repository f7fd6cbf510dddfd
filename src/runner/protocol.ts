// Messages between the runner (parent, the single recorder) and its client
// workers (one child process per client, so a client pause is a real SIGSTOP).
import type { Endpoint } from '../env/types.ts';
import type { EventType } from '../history/types.ts';
import type { LockShape } from '../locks/shape.ts';
import type { Attempt } from '../workload/plan.ts';
import type { ReachedPoints } from '../workload/points.ts';
import type { ProxySends } from './proxy-send-clock.ts';

/** Which lock to build: a registry name or a user's module path. */
export type LockSpec = { name: string } | { path: string };

import type { OrderEvent } from '../../nemesis/order.ts';

export interface RunJob {
  t: 'run';
  run: number;
  clientId: string;
  lock: LockSpec;
  endpoints: Endpoint[];
  /** The topology's extras for this client (LockContext roles, settings, addressMap). */
  roles?: Record<string, Endpoint[]>;
  settings?: Record<string, string>;
  addressMap?: Record<string, { host: string; port: number }>;
  /** The lock's own further connections (LockRecipe.channels), each on links of its own. */
  channels?: Record<string, Endpoint[]>;
  resource: Endpoint;
  fenced: boolean;
  leased: boolean;      // acquires are leases of ttlMs at the server: record lease_ms
  /** The lock's requests leave through the worker's own sockets (proxy-points.ts sendsSeenInProcess): record sent_ms. */
  sendsSeen: boolean;
  /** Else, where its requests are seen: the fault proxy, which frames this client's links (proxy-send-clock.ts): record sent_ms from there. */
  proxySends?: ProxySends;
  /** The lock keeps its lease alive out of sight (LockRecipe.keepsAlive): an acquire ok says so (`kept_alive`), so its lease's length alone does not end the hold. */
  keptAlive?: boolean;
  /** A session lock's session timeout (LockRecipe.sessionMs): an acquire ok says so (`session_ms`), so a silence longer than it ends the hold. */
  sessionMs?: number;
  reentrant: boolean;   // the lock's model is reentrant-mutex: attempts may re-enter
  /** A semaphore's limit or a read-write lock's modes (LockRecipe.semaphore, .modes): what each acquire asks for and records. */
  shape?: LockShape;
  keyPrefix: string;
  ttlMs: number;
  /** The lease recorded as lease_ms: the lock's real lease for ttlMs (LockRecipe.realLease), else ttlMs. */
  leaseMs?: number;
  attempts: Attempt[];
  commandTimeoutMs: number;
  options?: Record<string, unknown>;
  clockOffsetMs: number;
  /** Named points where this client is to ask the parent before going on (anchored pauses). */
  pausePoints: string[];
}

export type ToWorker =
  | RunJob
  | { t: 'ack'; seq: number; process: number }     // the invoke is on disk: go ahead
  | { t: 'go'; seq: number; holdMs?: number }       // reply to a point question (holdMs: an anchored partition there, hold at least this long)
  | { t: 'clock'; offsetMs: number }
  | { t: 'start' }                                  // every client is prepared: time 0 of the run is now
  | { t: 'stop' };                                  // finish the current attempt, close, report done

export type FromWorker =
  | { t: 'ready' }
  | { t: 'prepared'; run: number }                  // lock built and connected; waiting for 'start'
  | { t: 'invoke'; seq: number; f: string; key: string; value?: unknown; extra?: Record<string, unknown> }
  /** at: when the worker saw it, ms on CLOCK_MONOTONIC (the parent stamps the event later: its durations are moved to that stamp). */
  | { t: 'complete'; type: Exclude<EventType, 'invoke'>; f: string; key: string; value?: unknown; error?: string; extra?: Record<string, unknown>; at?: number }
  | { t: 'point'; seq: number; name: string; command?: string }   // command: the word of a held send (DEL, DELETE), when readable
  /** An ordered attempt (Attempt.after): the parent answers 'go' once the event has happened, or cannot (src/runner/order-book.ts). */
  | { t: 'wait'; seq: number; after: OrderEvent; attempt: number }
  | { t: 'log'; message: string }
  /** A fault kind that could not reach this client's lock (LockContext.unreached): recorded as the nemesis event `<kind>-unreached`. */
  | { t: 'unreached'; kind: string; reason: string; always?: true }
  /** The lock broke the Lock contract (src/locks/contract.ts): this client stopped; the run ends with exit 2. */
  | { t: 'contract'; method: string; message: string }
  /**
   * An uncaught exception or unhandled rejection (the worker exits 70 right after this), or the
   * lock's own process.exit(): the error's stack, and whose code threw it (crash-origin.ts).
   */
  | { t: 'crash'; error: string; origin: 'lock' | 'lockpick'; /** The lock's own process ended (a process client): no stack of its to show. */ processExit?: boolean }
  /** The lock's counters (Lock.stats), once per run right before 'done'. */
  | { t: 'lock-stats'; run: number; stats: Record<string, number> }
  /** The points this client reached in the run (most sends/replies per operation kind, named points), once right before 'done'. */
  | { t: 'points'; run: number; reached: ReachedPoints }
  | { t: 'done'; run: number; error?: string };
