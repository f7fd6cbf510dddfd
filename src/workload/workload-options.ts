// What a plan is drawn for: the run's shape (clients, faults, lease, ...) and what the lock,
// the topology and a calibration run said about it. Read by the generators (arbitraries.ts)
// and by every aim (aims/*), so it sits apart from both.
export interface WorkloadOptions {
  clients: number;        // this many clients (some may shrink to no attempts)
  faults: string[];       // fault kinds to draw from; [] = no faults
  /** A shard's share of `faults` (src/workload/shard.ts shardKinds): every plan starts with a fault of one of these kinds. Absent: any. */
  leadKinds?: string[];
  ttlMs: number;          // lease of every acquire
  keys?: number;          // distinct lock names (default 1)
  maxAttempts?: number;   // per client (default 3)
  maxFaults?: number;     // per run (default 2)
  nodes: string[];        // data node ids the node faults may target
  servers?: string[];     // every server a partition may split (data nodes, Sentinels, ...); default: nodes
  peerLinks?: boolean;    // servers talk to each other over links the proxy can cut
  /**
   * Where client pauses (and anchored faults) may land (default: 'in-critical-section'): named
   * points, I/O kinds ('send', 'reply': N drawn up to IO_POINT_MAX) or, learned from a calibration
   * run (./points.ts), the concrete I/O points the lock's operations reached ('send:release:2').
   */
  points?: string[];
  /** The fewest sends of an acquire that got the lock, as the calibration run saw (IoCounts.grantedSends): sends every acquire of a free lock reaches. */
  grantedAcquireSends?: number;
  grantedAcquireReplies?: number;
  /** The lock reported its validity (valid_ms) in the calibration run (ReachedPoints.validity): a careful client may work until it runs out. */
  reportsValidity?: boolean;
  renew?: boolean;        // the lock has renew() (LockRecipe.renews): let attempts use it
  keepsAlive?: boolean;   // the lock renews its own lease while held (LockRecipe.keepsAlive): holds may span several TTLs
  sessionMs?: number;     // how long the server keeps a silent client's hold (LockRecipe.sessionMs: ZooKeeper's session timeout)
  leased?: boolean;       // holds end by themselves at their TTL (LockRecipe.lease, TopologyDef.leased); false: they live in a server session
  reentrant?: boolean;    // the lock is reentrant: let attempts lock the same key again while holding it
  /** The lock is a semaphore (LockRecipe.semaphore): its limit N, and the most permits one hold may take (1 unless multiPermit). */
  semaphore?: { limit: number; maxPermits: number };
  /** The lock is a read-write lock (LockRecipe.modes): attempts draw a mode among these. */
  modes?: readonly ('exclusive' | 'shared')[];
  topology?: string;      // the environment's topology (what some kinds' specs depend on); default 'redis'
  ttlFixed?: boolean;     // the user set --ttl: aims keep it instead of the timescale their topology needs
  restartDelayMs?: number; // --restart-delay: every kill keeps its node down at least this long
  /** A restart of the servers as they were started forgets their holds (TopologyDef.restartForgets, the recipe's persistence); absent: as without persistence. */
  forgetsAsStarted?: boolean;
  promotionMs?: number;   // the longest failover planned for, as the servers said at start (Timescales)
  leaseLagMs?: number;    // how late the servers may act on a lease that ran out (Timescales.leaseLagMs)
}
