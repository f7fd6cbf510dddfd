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
    zh: {
      title: "NATS KV create + 普通 delete：误删他人的锁",
      lock: "用 kv.create(key) 加锁（只有 key 没有值时才写入），以 bucket 的 ttl（max_age）作为租约；用普通的 kv.delete(key) 解锁，不管那时 key 里是谁的条目。",
      fault: "客户端 c1 在开始解锁时被暂停（SIGSTOP）2400 ms，比它 2000 ms 的租约还长。",
      story: "c1 暂停期间它的条目在 bucket 中过期，c2 拿到了锁。c1 醒来后它的 delete 在 key 上写了一个删除标记，而那时这个 key 已经是 c2 的条目了。c3 的 create 随即成功，而 c2 还在临界区中：两个客户端同时持有锁，而且这次解锁释放的并不是 c1 的锁。",
      fix: "用 create 返回的 revision 解锁：一旦 key 有了别的 revision，kv.delete(key, { previousSeq: rev }) 就会被拒绝（nats-kv-delete-rev-stale-release）。暂停超过租约的持有者仍然需要栅栏令牌（nats-kv-fenced：revision）。",
      source: "常见的 NATS KV 锁（create 加锁，delete 解锁）；三种解锁方式那篇文章（第一种解锁：直接删除）",
    },
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
    zh: {
      title: "NATS KV 带上自己创建时的 revision 删除：修复有效",
      lock: "用 kv.create(key) 加锁，同 nats-kv-delete-stale-release；解锁 = kv.delete(key, { previousSeq: rev })，带上它的 create 写入的 revision（JetStream 原子地检查它）。",
      fault: "与 nats-kv-delete-stale-release 相同的暂停：c1 在开始解锁时被暂停 2400 ms（租约 2000 ms）。",
      story: "和之前一样，c1 的条目过期，c2 拿到了锁。c1 迟到的 delete 指定了一个 key 已经不再拥有的 revision：服务器拒绝了它，c1 被告知它的锁已丢失，c2 的条目保留，c3 一直等到 c2 解锁。",
      fix: "这是 nats-kv-delete-stale-release 的修复。",
      source: "带 previousSeq 的 NATS KV delete（JetStream expected-last-subject-sequence）",
    },
  },
];
