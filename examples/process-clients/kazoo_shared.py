"""kazoo's Semaphore, or its ReadLock and WriteLock (Debian python3-kazoo), as lockpick's process client.

Used as kazoo documents them: KazooClient(hosts).start(); client.Semaphore(path, identifier,
max_leases=N) or client.ReadLock(path, identifier) / client.WriteLock(path, identifier);
acquire(blocking, timeout), release(). Named by their recipe files (a 3-member ensemble):
    lockpick run --lock ./examples/process-clients/kazoo-semaphore.json --faults partition
    lockpick run --lock ./examples/process-clients/kazoo-rwlock.json --faults partition
lockpick sends the semaphore's limit (N, the recipe file's semaphore.limit) with each acquire, a
read-write lock's mode ("shared": a reader, "exclusive": a writer). As documented, the holder
believes it holds until it releases, whatever its session went through: cut off past its
session timeout, it works on while ZooKeeper hands its lease or lock to the next client.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kazoo.client import KazooClient  # noqa: E402
from kazoo.exceptions import LockTimeout  # noqa: E402
from lockpick_client import Held  # noqa: E402
from lockpick_client import serve  # noqa: E402

SESSION_S = 2.0   # the recipe files' sessionMs
RWLOCK = "--rwlock" in sys.argv[1:]


class KazooShared:
    def __init__(self, start):
        hosts = ",".join(f"{ep['host']}:{ep['port']}" for ep in start["endpoints"])
        self.zk = KazooClient(hosts=hosts, timeout=SESSION_S)
        self.zk.start(timeout=25)   # under the recipe's startMs (30 s): a loaded machine's ensemble can be slow to take a session
        self.client = start["client"]
        self.holds = {}

    def _recipe(self, key, mode, limit):
        if RWLOCK:
            make = self.zk.ReadLock if mode == "shared" else self.zk.WriteLock
            return make(f"/rwlocks/{key}", self.client)
        return self.zk.Semaphore(f"/semaphores/{key}", self.client, max_leases=limit)

    def acquire(self, key, ttl_ms, wait_ms, mode="exclusive", permits=1, limit=1):
        r = self._recipe(key, mode, limit)
        try:
            got = r.acquire(blocking=wait_ms > 0, timeout=wait_ms / 1000.0 if wait_ms > 0 else None)
        except LockTimeout:
            # kazoo's word for "not within timeout": it has removed its node (best effort), so busy.
            return None
        if not got:
            return None
        self.holds[key] = r
        return Held()

    def release(self, key, state):
        return bool(self.holds.pop(key).release())

    def close(self):
        self.zk.stop()
        self.zk.close()


serve(KazooShared)
