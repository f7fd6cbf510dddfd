// etcd locks in the `lockpick demo` catalogue: a lease lock whose holder is paused
// past its lease (Jepsen's etcd 3.4.3 finding), and the create-revision fence that
// keeps the resource right.
import type { DemoEntry } from './entry.ts';

export const ETCD_ENTRIES: DemoEntry[] = [
  {
    name: 'etcd-lease-lock-pause',
    title: 'etcd lease lock: a holder paused past its lease',
    expected: 'UNSAFE',
    lock: "The etcd3 package's Lock: grant a lease (kept alive by the client while held), put the lock key with it if the key's create revision is 0; unlock = revoke the lease.",
    code: [{ file: 'etcd-lease-lock.ts', from: 'const lock = client.lock(key).ttl(', to: 'return { key, lock };' }],
    fault: 'c1 is paused (SIGSTOP) for 2.5 s in its critical section: a GC pause, a stalled VM. Its lease is 1 s.',
    story: 'While c1 is stopped nobody keeps its lease alive; etcd expires it and deletes the key. c2 gets the lock while c1 still believes it holds; c1 wakes and writes. Its unlock then reports success although the lease was long gone.',
    fix: "A lease cannot promise mutual exclusion to a client that may stop: hand out the lock key's create revision as a fencing token and let the resource refuse older ones (etcd-mutex-fenced-pause).",
    fixDemo: 'etcd-mutex-fenced-pause',
    source: 'Jepsen, etcd 3.4.3 (2020): "etcd locks ... did not, and can not, guarantee mutual exclusion"; issue 22',
  },
  {
    name: 'etcd-mutex-fenced-pause',
    title: "etcd mutex with the key's create revision as a fencing token: the fix holds",
    expected: 'SAFE',
    lock: "Go concurrency.Mutex's algorithm (a leased key under the lock's prefix; the lowest create revision holds), handing out that create revision as a fencing token.",
    code: [{ file: 'etcd-mutex.ts', from: '// The holder is the oldest key under the prefix', to: 'if (first && String(first.create_revision) === rev)' }],
    fault: 'As in etcd-lease-lock-pause: c1 is paused for 2.5 s in its critical section, past its 1 s lease. Property checked: resource.',
    story: "The lock still breaks: c1's lease lapses and c2 holds while c1 works on. But c2's key was created later, so its revision is higher, and the resource refuses c1's write with the older one.",
    fix: 'This is the fix for etcd-lease-lock-pause.',
    fixDemo: 'etcd-lease-lock-pause',
    source: "Jepsen, etcd 3.4.3 (2020): use the lock key's revision as a fencing token; issue 22",
  },
  {
    name: 'etcd-lease-lock-keepalive-cut',
    title: 'etcd lease lock: the keep-alives stop reaching etcd while the holder works',
    expected: 'UNSAFE',
    lock: "The etcd3 package's Lock, as in etcd-lease-lock-pause; its lease's keep-alives go over the Lease service's connection.",
    code: [{ file: 'etcd-client.ts', from: "const via = (service: string) => pool(service === 'Lease' ? lease : main);", to: 'routed.mock({' }],
    fault: "c1 holds for 2.5 s (its keep-alives would cover that); in its critical section its keep-alive connection is cut for 2.5 s while the rest of its traffic flows. Its lease is 1 s.",
    story: "c1 is not paused: it works on, but no keep-alive reaches etcd. The lease expires, etcd deletes the key, c2 gets the lock while c1 still believes it holds. The package's Lock tells c1 nothing (its lease emits 'lost' only to a listener), and its unlock then reports success.",
    fix: "Fence the work with the lock key's create revision (etcd-mutex-fenced-keepalive-cut), and listen for the lease's loss.",
    fixDemo: 'etcd-mutex-fenced-keepalive-cut',
    source: 'Jepsen, etcd 3.4.3 (2020): a lease lapses while its holder still works; issue 22',
  },
  {
    name: 'etcd-mutex-fenced-keepalive-cut',
    title: "etcd mutex fenced by the create revision, under the same keep-alive cut: the fix holds",
    expected: 'SAFE',
    lock: "Go concurrency.Mutex's algorithm, handing out the key's create revision as a fencing token (as in etcd-mutex-fenced-pause).",
    code: [{ file: 'etcd-mutex.ts', from: '// The holder is the oldest key under the prefix', to: 'if (first && String(first.create_revision) === rev)' }],
    fault: "As in etcd-lease-lock-keepalive-cut: c1's keep-alive connection is cut for 2.5 s while it holds. Property checked: resource.",
    story: "The lock still breaks: c1's lease lapses and c2 holds while c1 works on. c2's key has the higher create revision, so the resource refuses c1's write.",
    fix: 'This is the fix for etcd-lease-lock-keepalive-cut.',
    fixDemo: 'etcd-lease-lock-keepalive-cut',
    source: "Jepsen, etcd 3.4.3 (2020): use the lock key's revision as a fencing token; issue 22",
  },
];
