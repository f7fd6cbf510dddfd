// The one way a fault object is made: it records `<kind>-start` and
// `<kind>-stop` nemesis events (and `<kind>-step` for each step a kind says it
// took on the way), and its stop() is safe to call at any time (before start,
// twice, or after a start that threw halfway).
import type { Fault, FaultSpec, NemesisContext } from './types.ts';
import type { Capability } from '../src/env/capabilities.ts';

/**
 * Records one step of a fault as it takes it (`<kind>-step`, with the fault's id and `step` in
 * words): a fault whose start takes several steps, or seconds, records each, so the timeline
 * draws it from its first step, not from the start record written when it is all done.
 */
export type StepRecorder = (words: string, details?: Record<string, unknown>) => void;

/** What a kind implements: start returns details worth recording (resolved targets, ...). */
export interface FaultImpl {
  start(step: StepRecorder): Promise<Record<string, unknown> | void>;
  /** Undo whatever start did (also after a partial start). Returns details to record. */
  stop(step: StepRecorder): Promise<Record<string, unknown> | void>;
}

let counter = 0;

/** A short unique id for a fault instance (names its toxics, links start/stop events). */
export function nextFaultId(): string {
  return `f${++counter}`;
}

export function defineFault(spec: FaultSpec, ctx: NemesisContext, id: string, impl: FaultImpl): Fault {
  let phase: 'idle' | 'started' | 'stopped' = 'idle';
  let stopping: Promise<void> | undefined;
  const base = () => ({ id, ...(spec.target !== undefined ? { target: spec.target } : {}), ...(spec.params ? { params: spec.params } : {}) });
  const step: StepRecorder = (words, details) => ctx.record(`${spec.kind}-step`, { id, step: words, ...(details ?? {}) });
  return {
    kind: spec.kind,
    async start() {
      if (phase !== 'idle') throw new Error(`nemesis: fault ${id} (${spec.kind}) was already started`);
      phase = 'started';
      // When the start began: what it does (a cut that closes connections) can show before its record.
      const began = ctx.now?.();
      let details: Record<string, unknown> | void;
      try {
        details = await impl.start(step);
      } catch (e) {
        ctx.record(`${spec.kind}-start-failed`, { ...base(), error: e instanceof Error ? e.message : String(e) });
        throw e;
      }
      ctx.record(`${spec.kind}-start`, { ...base(), ...(details ?? {}), ...(began !== undefined ? { began } : {}) });
    },
    stop() {
      if (phase !== 'started') { phase = 'stopped'; return Promise.resolve(); }
      stopping ??= (async () => {
        try {
          // When the heal began: a link may come back before the stop's record is written.
          const began = ctx.now?.();
          const details = await impl.stop(step);
          ctx.record(`${spec.kind}-stop`, { ...base(), ...(details ?? {}), ...(began !== undefined ? { began } : {}) });
        } finally {
          phase = 'stopped';
        }
      })();
      return stopping;
    },
  };
}

/** What a kind's generator may aim at, and the scale of the run (all from the session). */
export interface FaultGenOptions {
  ttlMs: number;
  clients: string[];      // client ids of the run ('c1', ...)
  nodes: string[];        // data node ids node faults may target
  points: string[];       // named points a client pause may land at
  /**
   * I/O points a client pause may land at too (src/runner/io-points.ts): learned ones as named
   * ('send:release:2', only what the lock's operations reached: src/workload/points.ts), or a
   * bare kind ('send', 'reply': the N-th command or reply of an acquire or release, N up to
   * IO_POINT_MAX); absent: none.
   */
  ioPoints?: readonly string[];
  topology: string;       // the environment's topology name ('redis', 'redis-sentinel', ...)
  /** Every server a partition may split (data nodes and others such as Sentinels); default: nodes. */
  servers?: string[];
  /** The servers talk to each other over links the proxy can cut (replication, quorum, Sentinel): splitting them means something. */
  peerLinks?: boolean;
  sessionMs?: number;     // how long the server keeps a silent client's hold (ZooKeeper session timeout), when the lock has one
  restartDelayMs?: number; // operations policy: a killed server stays down at least this long (antirez's delayed restart)
  leaseLagMs?: number;    // how late the servers may act on a lease that ran out (a topology's timescale): pauses may outlast it too
  /** The sends and replies every acquire of a free lock reaches (learned: IoCounts.grantedSends/grantedReplies); beyond them only a waiting acquire goes. */
  grantedAcquireSends?: number;
  grantedAcquireReplies?: number;
}

/** What a fault kind can break of a lock's design (KindDef.breaks). */
export type DesignProperty = 'restart' | 'server-clock' | 'failover';

/**
 * A fault kind, one file each (a nemesis package, as in Jepsen): its schema
 * (validation, `lockpick list`, the topologies it applies to), how to make
 * one, how to draw specs aimed where locks break, and how to say a spec in
 * words. The contract test iterates over every registered kind.
 */
export interface KindDef {
  schema: import('./spec.ts').KindSchema;
  /** What the environment must be able to do for this kind (src/env/capabilities.ts); a run on an environment kind without it is refused (exit 2). */
  needs: readonly Capability[];
  /**
   * The servers' clock it moves ('wall': the clock shim's CLOCK_REALTIME, gettimeofday, time):
   * refused for a topology whose holds expire by another (TopologyDef.expiryClock), where it
   * would be recorded as applied and count toward a SAFE while it changed nothing.
   */
  movesClock?: 'wall';
  /**
   * The design property a fault of this kind can break, which makes a double holder it explains
   * inherent to the design (src/runner/failure-cause.ts): 'restart' (it restarts servers, which
   * forget where the topology and persistence say so), 'server-clock' (it moves a server's clock,
   * beyond the drift the lock allows), 'failover' (it promotes a replica, over asynchronous
   * replication). Aims compose kinds by it too (src/workload/aim.ts AimKind).
   */
  breaks?: DesignProperty;
  /** It keeps the clients it names from reaching the servers while it lasts: no keep-alive gets through. */
  silences?: true;
  /** It ends the sessions of the clients it names (a session lock's hold goes with them). */
  endsSessions?: true;
  /**
   * Whether a fault of this kind, as its start record says (`value`), closes the connections of
   * the clients it names: where a session is its connection (TopologyDef.sessionEndsWithConnection)
   * that ends their sessions at once (a partition in 'disable' mode; not a black hole).
   */
  closesConnections?: (value: Record<string, unknown>) => boolean;
  /**
   * What the fault touches. 'client': only the clients it names (their processes, their
   * clocks), which belong to one run alone, so other runs on other clients and keys may go
   * on beside it (`lockpick run --parallel`). 'server': servers, their links, or anything
   * else every run shares (a client link's proxy is named by client id, the same in every
   * run): a plan with such a fault runs alone.
   */
  scope: 'client' | 'server';
  /** It acts on the lock's own connection of this name (LockRecipe.channels): a lock without one is refused (exit 2) and 'all' leaves the kind out. */
  lockChannel?: string;
  /**
   * Run options (FaultGenOptions keys) this kind acts on, each with what it does here (kill's
   * restartDelayMs: "keeps a killed server down that long"): a run that sets one with no kind
   * among its faults that takes it is refused (exit 2, src/options.ts checkKindOptions).
   */
  takes?: Readonly<Partial<Record<keyof FaultGenOptions, string>>>;
  /** Params that need more when present, e.g. kill's persistence needs 'restart-persistence'. */
  paramNeeds?: Readonly<Record<string, Capability>>;
  create(spec: FaultSpec, ctx: NemesisContext, id: string): FaultImpl;
  /** A small group of specs (usually one) that the nemesis accepts for this topology. */
  generate(o: FaultGenOptions): import('fast-check').Arbitrary<FaultSpec[]>;
  /** The spec in words, e.g. "at 120 ms: partition client c1 for 900 ms". */
  describe(spec: FaultSpec): string;
  /** The fault as the timeline draws it, from its start record: short words on its band, e.g. "kill server n2, down for 300 ms" (every kind has them: a record dumped as it is reads as noise). */
  band(b: import('./band.ts').FaultBand): string;
  /** For histories without its `<kind>-step` records: the steps it took before its start record, placed from what the record says (`a`: the band's start, `at`: the record). */
  bandSteps?(v: Record<string, unknown>, a: number, at: number): import('./band.ts').FaultStep[];
  /** What it did to a client it hit, for an anomaly's cause: "c1 was paused for 900 ms from ..." (default "was hit by <kind>"). */
  clientVerb?: string;
  /** Other names the user may type for this kind (`--faults crash` means kill). */
  aliases?: readonly string[];
  /**
   * A kind that can fire at a client's point (params.point) rather than at at_ms: the client
   * pool asks `is` for each spec of a plan, and calls `fire` the first time, after at_ms, that
   * the spec's client reaches its point (the client waits there until told to go on).
   */
  anchored?: Anchored;
}

export interface Anchored {
  /** Whether this spec waits for its client's point (params.point given, a target one client). */
  is(spec: FaultSpec): boolean;
  /** Act on the client stopped at its point; the client goes on only when told (`a.go`), if ever. */
  fire(spec: FaultSpec, a: AnchorContext): Promise<void>;
}

/** What the client pool hands an anchored kind: the client waiting at its point, and the nemesis. */
export interface AnchorContext {
  client: string;
  point: string;
  /** The command word of the send the client is held at (an I/O point: 'DEL'), when its bytes named one (src/runner/command-word.ts). */
  command?: string;
  /** SIGSTOP / SIGCONT this client (the pool keeps track, and heals a pause left at the end). */
  pause(): void;
  resume(): void;
  /** Set this client's wall-clock skew (ClientPool.setClockOffsetMs): it takes effect before the client goes on. */
  setClockOffsetMs(ms: number): void;
  /** SIGKILL this client: its beliefs end first (recorded as lapses), then it dies; the pool does not count it a crash. */
  kill(): Promise<void>;
  /** A nemesis event in the run's history. */
  record(type: string, details: Record<string, unknown>): void;
  /** Let the client go on; `holdMs`: it holds that much longer (it does not know it was cut off). */
  go(holdMs?: number): void;
  /** Resolves when every client of the run is done: a fault that acts only on what they do (a clock step) may heal then. */
  ended: Promise<void>;
  /** Start the spec through the nemesis (its own start/stop records), let the client go on (holding `holdMs`), heal it duration_ms later. */
  startThenGo(spec: FaultSpec, holdMs?: number): Promise<void>;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, ms)));

/** Polls `probe` every `everyMs` until it returns a value other than undefined, or `timeoutMs` passes (then undefined). */
export async function pollUntil<T>(probe: () => Promise<T | undefined>, timeoutMs: number, everyMs = 100): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() >= deadline) return undefined;
    await sleep(everyMs);
  }
}
