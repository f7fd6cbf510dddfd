// PostgreSQL advisory locks in the `lockpick demo` catalogue: a session lock the
// server ends under its holder, the same fenced, and the session lock through a
// transaction-pooling PgBouncer with the transaction lock that fixes it.
import type { DemoEntry } from './entry.ts';

export const POSTGRES_ENTRIES: DemoEntry[] = [
  {
    name: 'pg-advisory-session-killed',
    title: 'PostgreSQL advisory lock: the server ends the holder\'s session',
    expected: 'UNSAFE',
    lock: 'SELECT pg_try_advisory_lock(id) on a dedicated session, polled while taken; unlock = pg_advisory_unlock(id). The lock belongs to the server session and goes with it, silently.',
    code: [{ file: 'pg-advisory.ts', from: 'const got = await pollAcquire(ctx, a.waitMs', to: 'return holds.hold(key, c' }],
    fault: 'When c1 has the lock, the server ends c1\'s session (pg_terminate_backend of its backend, as an administrator, idle_session_timeout or a pooler would).',
    story: 'c1\'s lock goes with its session; c1 does not talk to the server while it works, so it does not know. c2\'s next pg_try_advisory_lock returns true and both work as the holder. c1 learns it only at its unlock, which finds no session.',
    fix: 'Do not trust a session lock for the length of the work: fence the writes with a number the resource checks (pg-advisory-fenced-session-killed), and treat a dropped session as a lost lock.',
    fixDemo: 'pg-advisory-fenced-session-killed',
    source: 'PostgreSQL documentation, Advisory Locks and pg_terminate_backend; issue 22',
  },
  {
    name: 'pg-advisory-fenced-session-killed',
    title: 'PostgreSQL advisory lock with a fencing row version: the fix holds',
    expected: 'SAFE',
    lock: 'The same session lock, and once held the same session bumps the key\'s row in lockpick_fence and returns its version: a fencing token the resource checks.',
    code: [{ file: 'pg-advisory-fenced.ts', from: 'const [row] = await c.rows', to: 'return { token: Number(row!.version) };' }],
    fault: 'As in pg-advisory-session-killed: the server ends c1\'s session while c1 holds. Property checked: resource.',
    story: 'The lock still breaks: c2 gets it while c1 works on. But c2\'s version is higher, and the resource refuses c1\'s write with its older version: no update is lost.',
    fix: 'This is the fix for pg-advisory-session-killed.',
    fixDemo: 'pg-advisory-session-killed',
    source: 'Kleppmann, How to do distributed locking (2016): fencing tokens; issue 22',
  },
  {
    name: 'pg-advisory-pgbouncer-shared',
    title: 'PostgreSQL session advisory lock through PgBouncer (transaction pooling)',
    expected: 'UNSAFE',
    lock: 'The session advisory lock, with every client connected to PgBouncer in transaction pooling: each statement runs on whichever server connection is free.',
    code: [{ file: 'pg-advisory.ts', from: 'const got = await pollAcquire(ctx, a.waitMs', to: 'return holds.hold(key, c' }],
    fault: 'No fault: the pooler alone.',
    story: 'c1\'s pg_try_advisory_lock takes the lock on a server connection that goes back to the pool at once. c2\'s statement runs on that same server connection, whose session already holds the lock: advisory locks are reentrant within a session, so it returns true. Two holders, and c1\'s later unlock may free c2\'s lock or none.',
    fix: 'Behind transaction pooling, take a transaction advisory lock (pg_try_advisory_xact_lock) inside a transaction that lasts the whole critical section, or connect to the server (or a session-pooling PgBouncer) for locking.',
    fixDemo: 'pg-advisory-xact-pgbouncer',
    source: 'PgBouncer documentation, feature matrix (session-level advisory locks need session pooling); issue 22',
  },
  {
    name: 'pg-advisory-xact-pgbouncer',
    title: 'PostgreSQL transaction advisory lock through PgBouncer: the fix holds',
    expected: 'SAFE',
    lock: 'BEGIN; SELECT pg_try_advisory_xact_lock(id); the open transaction holds the lock; unlock = COMMIT. A transaction keeps its server connection even in transaction pooling.',
    code: [{ file: 'pg-advisory-xact.ts', from: "await c.rows('BEGIN');", to: "await c.rows('ROLLBACK');" }],
    fault: 'No fault: the pooler alone, as in pg-advisory-pgbouncer-shared.',
    story: 'c1\'s transaction keeps its server connection until COMMIT, so the lock is c1\'s alone; c2\'s try runs on another server connection and returns false until c1 commits.',
    fix: 'This is the fix for pg-advisory-pgbouncer-shared.',
    fixDemo: 'pg-advisory-pgbouncer-shared',
    source: 'PostgreSQL documentation, Advisory Locks; PgBouncer feature matrix; issue 22',
  },
];
