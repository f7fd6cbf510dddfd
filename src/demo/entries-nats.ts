// NATS JetStream KV locks in the `lockpick demo` catalogue: a plain delete unlock that deletes
// the next holder's entry after its own aged out of the bucket, and the delete that names the
// revision it created, which the server refuses once the key has moved on.
import type { DemoEntry } from './entry.ts';

export const NATS_ENTRIES: DemoEntry[] = [
  {
    name: 'nats-kv-delete-stale-release',
    title: 'NATS KV create + plain delete: the stale release',
    expected: 'UNSAFE',
    lock: "kv.create(key) to lock (it writes only if the key has no value), the bucket's ttl (max_age) as the lease; a plain kv.delete(key) to unlock, whoever's entry the key holds by then.",
    code: [{ file: 'nats-kv.ts', from: 'const plainRelease', to: "return 'released';" }],
    fault: 'Client c1 is stopped (SIGSTOP) for 2400 ms as its release begins, longer than its 2000 ms lease.',
    story: "c1's entry ages out of the bucket while it sleeps and c2 takes the lock. c1 wakes and its delete puts a delete marker on the key, which is c2's entry by then. c3's create now succeeds while c2 is still in its critical section: two holders, and an unlock that freed a lock that was not c1's.",
    fix: 'Unlock with the revision the create returned: kv.delete(key, { previousSeq: rev }) is refused once the key has another revision (nats-kv-delete-rev-stale-release). A holder paused past its lease still needs a fencing token (nats-kv-fenced: the revision).',
    fixDemo: 'nats-kv-delete-rev-stale-release',
    source: 'the common NATS KV lock (create to lock, delete to unlock); the three-unlocks post (first unlock: a plain delete)',
  },
  {
    name: 'nats-kv-delete-rev-stale-release',
    title: 'NATS KV delete with the revision it created: the fix holds',
    expected: 'SAFE',
    lock: 'kv.create(key) to lock, as in nats-kv-delete-stale-release; unlock = kv.delete(key, { previousSeq: rev }) with the revision its create wrote (JetStream checks it atomically).',
    code: [{ file: 'nats-kv.ts', from: 'const revisionRelease', to: "return late ? 'lost' : 'released';" }],
    fault: 'The same pause as nats-kv-delete-stale-release: c1 is stopped for 2400 ms as its release begins (lease 2000 ms).',
    story: "c1's entry ages out and c2 takes the lock, as before. c1's late delete names a revision the key no longer has: the server refuses it, c1 is told its lock was lost, c2's entry stands, and c3 waits until c2 unlocks.",
    fix: 'This is the fix for nats-kv-delete-stale-release.',
    fixDemo: 'nats-kv-delete-stale-release',
    source: 'NATS KV delete with previousSeq (JetStream expected-last-subject-sequence)',
  },
];
