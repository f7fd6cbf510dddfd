"""kazoo's Lock (Debian python3-kazoo) on the ZooKeeper ensemble, as lockpick's process client.

Used as kazoo documents it: KazooClient(hosts).start(), client.Lock(path, identifier),
acquire(timeout=...), release(). Named by its recipe file (a session lock on 3 members):
    lockpick run --lock ./examples/process-clients/kazoo-lock.json --faults partition

As is, the holder believes it holds until it releases, whatever its session went through: cut
off past its session timeout, it works on while ZooKeeper has given its node to the next waiter.
With --careful (kazoo-lock-careful.json) it follows kazoo's advice on connection states: a
listener marks every hold lost on SUSPENDED or LOST, and renew (the client's look before it goes
on working) answers lost then, or when its own node cannot be seen in time.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kazoo.client import KazooClient, KazooState  # noqa: E402
from kazoo.exceptions import LockTimeout  # noqa: E402
from lockpick_client import Held, serve  # noqa: E402

SESSION_S = 2.0   # the recipe file's sessionMs
CAREFUL = "--careful" in sys.argv[1:]


class KazooLock:
    def __init__(self, start):
        hosts = ",".join(f"{ep['host']}:{ep['port']}" for ep in start["endpoints"])
        self.zk = KazooClient(hosts=hosts, timeout=SESSION_S)
        self.timeout_s = start["commandTimeoutMs"] / 1000.0
        # Bumped on every SUSPENDED or LOST: a hold taken in an earlier epoch may be gone.
        self.epoch = 0
        if CAREFUL:
            self.zk.add_listener(self._state)
        self.zk.start(timeout=25)   # under the recipe's startMs (30 s): a loaded machine's ensemble can be slow to take a session
        self.client = start["client"]
        self.locks = {}

    def _state(self, state):
        # kazoo's connection thread calls this: only note the change (never block here).
        if state in (KazooState.SUSPENDED, KazooState.LOST):
            self.epoch += 1

    def acquire(self, key, ttl_ms, wait_ms):
        lock = self.zk.Lock(f"/locks/{key}", self.client)
        epoch = self.epoch
        try:
            got = lock.acquire(blocking=wait_ms > 0, timeout=wait_ms / 1000.0 if wait_ms > 0 else None)
        except LockTimeout:
            # kazoo's documented word for "not within timeout" (it removes its node, best effort):
            # the lock was not taken, so busy, as its users treat it.
            return None
        if not got:
            return None
        self.locks[key] = (lock, epoch)
        return Held()

    def _still_mine(self, key):
        lock, epoch = self.locks[key]
        if epoch != self.epoch or lock.node is None:
            return False
        try:  # one round trip: ZooKeeper answers a session only while it lives
            return self.zk.exists_async(f"{lock.path}/{lock.node}").get(timeout=self.timeout_s) is not None
        except Exception:
            return False  # not confirmed in time: the careful holder stops here

    def renew(self, key, ttl_ms, state):
        if self._still_mine(key):
            return True
        lock, _ = self.locks.pop(key)
        # Give the node back if the session still can, so the next waiter need not wait for expiry.
        if lock.node is not None:
            self.zk.delete_async(f"{lock.path}/{lock.node}")
        return False

    def release(self, key, state):
        if CAREFUL:
            lock, epoch = self.locks.get(key, (None, None))
            if lock is None:
                return False   # given up at a renew already
            if epoch != self.epoch:
                self.locks.pop(key)
                if lock.node is not None:
                    self.zk.delete_async(f"{lock.path}/{lock.node}")
                return False
        lock, _ = self.locks.pop(key)
        return bool(lock.release())

    def close(self):
        self.zk.stop()
        self.zk.close()


serve(KazooLock)
