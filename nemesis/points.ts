// The points of a client where an anchored fault lands (a client pause, kill or cut
// at the moment the client reaches it): the critical section, the careful client's
// last look before its write, a recipe's own points, and the client's I/O. Plain
// names, shared by the fault kinds that draw them, the plan, the worker and the pool.
export const CRITICAL_SECTION = 'in-critical-section';
/**
 * The worker's point just before its resource write, after the careful client's last look at the
 * validity its lock reported (src/runner/worker.ts): a pause here outlives any client-side check.
 */
export const BEFORE_WRITE = 'before-write';
/**
 * The worker's point just after it recorded a release's invoke (it has stopped believing it holds)
 * and before the lock's release code runs: a pause here is a late unlock, one that reaches the
 * server after the lease ran out and someone else may hold the lock.
 */
export const BEFORE_RELEASE = 'before-release';
/** The points every worker has, whatever the lock. */
export const WORKER_POINTS: readonly string[] = [CRITICAL_SECTION, BEFORE_WRITE, BEFORE_RELEASE];

/**
 * Points made by the client's I/O (src/runner/io-points.ts), no recipe cooperation:
 * 'send:release:2' just before the 2nd command a release sends to a server, 'reply:acquire:1'
 * just after the 1st chunk of reply data an acquire gets (before the client library sees it).
 * Counted within one operation, so the DEL of a GET-then-DEL unlock is 'send:release:2' however
 * many SETs the acquire before it retried. In a points list, 'send' and 'reply' stand for
 * every operation and N (the generator draws them).
 */
export type IoPointKind = 'send' | 'reply';
export const IO_POINT_KINDS: readonly IoPointKind[] = ['send', 'reply'];
export const IO_POINT_OPS = ['acquire', 'release', 'renew'] as const;
export type IoPointOp = typeof IO_POINT_OPS[number];

/**
 * Where an I/O kind given without learning ('send' in --pause-at, or a points list no calibration
 * narrowed) draws N: up to 3 (an acquire is a SET, more while it waits; a release a GET and a DEL,
 * an EVAL, or a few calls of a user's lock). Learned lists name their points (src/workload/points.ts).
 */
export const IO_POINT_MAX = 3;

export function ioPointName(kind: IoPointKind, op: IoPointOp, n: number): string {
  return `${kind}:${op}:${n}`;
}

/** 'send:release:2' → {kind: 'send', op: 'release', n: 2}; anything else (a recipe's named point) → undefined. */
export function parseIoPoint(name: string): { kind: IoPointKind; op: IoPointOp; n: number } | undefined {
  const m = /^(send|reply):(acquire|release|renew):([1-9]\d*)$/.exec(name);
  return m ? { kind: m[1] as IoPointKind, op: m[2] as IoPointOp, n: Number(m[3]) } : undefined;
}

/**
 * The concrete I/O points a list's entries stand for: a learned 'send:release:2' as it is, a bare
 * 'send' for the N-th command (1..IO_POINT_MAX) of every acquire and release, as drawn before
 * points were learned.
 */
export function expandIoPoints(entries: readonly string[]): string[] {
  const out = new Set<string>();
  for (const e of entries) {
    if (parseIoPoint(e)) out.add(e);
    else if ((IO_POINT_KINDS as readonly string[]).includes(e)) {
      for (const op of ['acquire', 'release'] as const) for (let n = 1; n <= IO_POINT_MAX; n++) out.add(ioPointName(e as IoPointKind, op, n));
    }
  }
  return [...out];
}

/**
 * Whether an acquire of a free lock reaches this I/O point: an acquire's point within the sends and
 * replies every granted acquire made (learned; any N when they are not known). Beyond them only an
 * acquire that waits goes.
 */
export function freeAcquirePoint(name: string, granted: { sends?: number; replies?: number }): boolean {
  const p = parseIoPoint(name);
  if (p?.op !== 'acquire') return false;
  const n = p.kind === 'send' ? granted.sends : granted.replies;
  return n === undefined || p.n <= n;
}
