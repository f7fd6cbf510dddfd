"""kazoo's Lock (Debian python3-kazoo) on the ZooKeeper ensemble, as lockpick's process client.

Used as kazoo documents it: KazooClient(hosts).start(), client.Lock(path, identifier),
acquire(timeout=...), release(). Named by its recipe file (a session lock on 3 members):
    lockpick run --lock ./examples/process-clients/kazoo-lock.json --faults client-pause
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kazoo.client import KazooClient  # noqa: E402
from lockpick_client import Held, serve  # noqa: E402

SESSION_S = 2.0   # the recipe file's sessionMs


class KazooLock:
    def __init__(self, start):
        hosts = ",".join(f"{ep['host']}:{ep['port']}" for ep in start["endpoints"])
        self.zk = KazooClient(hosts=hosts, timeout=SESSION_S)
        self.zk.start(timeout=10)
        self.client = start["client"]
        self.locks = {}

    def acquire(self, key, ttl_ms, wait_ms):
        lock = self.zk.Lock(f"/locks/{key}", self.client)
        if not lock.acquire(blocking=wait_ms > 0, timeout=wait_ms / 1000.0 if wait_ms > 0 else None):
            return None
        self.locks[key] = lock
        return Held()

    def release(self, key, state):
        return bool(self.locks.pop(key).release())

    def close(self):
        self.zk.stop()
        self.zk.close()


serve(KazooLock)
