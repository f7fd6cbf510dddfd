// Catalogue entries of the locks that admit more than one holder: a counting semaphore (at most
// N) and a read-write lock (readers together, a writer alone), each broken and then fixed.
import type { DemoEntry } from './entry.ts';

export const SHARED_ENTRIES: DemoEntry[] = [
  {
    name: 'zset-semaphore-clock-skew',
    title: 'Sorted-set semaphore trimmed by the client\'s clock: one client ahead, one holder too many',
    expected: 'UNSAFE',
    lock: 'A semaphore of N = 2 permits in a sorted set: each client trims the entries older than the lease by ITS clock (ZREMRANGEBYSCORE), adds itself scored with ITS clock (ZADD) and holds if its rank is below N (ZRANK).',
    code: [{ file: 'redis-zset-semaphore.ts', from: 'const now = ctx.clock.wallMs();', to: 'await r.zrem(key, id);' }],
    fault: 'Client c2\'s wall clock runs 2 s ahead while c1 and c3 hold both permits.',
    story: 'To c2, c1\'s and c3\'s entries are already 2 s old, older than the 800 ms lease: its trim deletes them, its own entry ranks 0, and it holds. c1 and c3 are still in their critical sections: three holders of a semaphore of two. Every client\'s clock decides every other client\'s lease.',
    fix: 'Trim, count and add in one Lua script that reads the server\'s clock (TIME), and release only an entry that is still ours and still inside its lease: no client\'s clock decides another\'s lease.',
    fixDemo: 'lua-semaphore-clock-skew',
    source: 'the common Redis sorted-set semaphore (ZADD with the client timestamp, ZREMRANGEBYSCORE, ZRANK); redis-semaphore\'s README ("node time difference")',
  },
  {
    name: 'lua-semaphore-clock-skew',
    title: 'Semaphore by the server\'s clock: the fix holds under the same skew',
    expected: 'SAFE',
    lock: 'The same sorted set, but one Lua script trims by the server\'s TIME, counts (ZCARD < N) and adds; release and renew check the entry is still ours and inside its lease.',
    code: [{ file: 'redis-lua-semaphore.ts', from: 'const ACQUIRE =', to: 'return 1`;' }],
    fault: 'The same as zset-semaphore-clock-skew: c2\'s wall clock runs 2 s ahead while c1 and c3 hold both permits.',
    story: 'c2\'s clock never reaches the server: the script trims by the server\'s time, finds two live entries and answers 0. c2 retries until c1 or c3 releases, then holds with one other: never more than two at once.',
    fix: 'This is the fix for zset-semaphore-clock-skew. The server\'s own clock still decides the leases: a jump of it (clock-bump) ends them all early, as for SET NX PX.',
    fixDemo: 'zset-semaphore-clock-skew',
    source: 'the sorted-set semaphore with the clock bug fixed (server time in one script)',
  },
  {
    name: 'rwlock-check-then-set-race',
    title: 'Read-write lock that checks, then sets: a writer slips in between',
    expected: 'UNSAFE',
    lock: 'A read-write lock on Redis: a hash of readers and a writer key. A reader checks that no writer holds, then adds itself to the readers\' hash: two round trips.',
    code: [{ file: 'redis-rwlock.ts', from: 'async function checkThenSet', to: "return (await r.set(writer, id, 'PX', ttlMs, 'NX'))" }],
    fault: 'Reader c1 is paused 500 ms between its check (no writer) and its HSET.',
    story: 'While c1 sleeps after its check, writer c2 finds no reader and no writer and sets the writer key. c1 wakes and adds itself to the readers as it had decided: it reads while c2 writes, a writer beside a reader.',
    fix: 'Check and set in one step: a Lua script that looks at the writer key and the readers\' hash and adds the holder in the same call (redis-lua-rwlock).',
    fixDemo: 'lua-rwlock-reader-paused',
    source: 'the Redis read-write lock (a hash of readers, a writer key) with its acquire split in two',
  },
  {
    name: 'lua-rwlock-reader-paused',
    title: 'Read-write lock in one script: the writer waits for the paused reader',
    expected: 'SAFE',
    lock: 'A hash of readers and a writer key; each acquire is one Lua script: a reader enters when no writer holds, a writer when no writer and no live reader does. Leases by the server\'s TIME; owner-checked release.',
    code: [{ file: 'redis-rwlock.ts', from: 'const ACQUIRE =', to: "redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])" }],
    fault: 'Reader c1 is paused 500 ms right after its acquire script answered.',
    story: 'There is no gap between c1\'s check and its entry: the pause lands after both. Writer c2 comes while c1 sleeps, sees a live reader and waits; it writes only once c1 released.',
    fix: 'This is the fix for rwlock-check-then-set-race. A pause longer than the reader\'s lease would still let the writer in beside it: the lease decides then, as for any leased lock.',
    fixDemo: 'rwlock-check-then-set-race',
    source: 'the Redis read-write lock in Lua (a hash of readers, a writer key, leases)',
  },
];
