"""python-etcd3's Lock (Debian python3-etcd3) on the etcd cluster, as lockpick's process client.

Used as python-etcd3 documents it: etcd3.client(host, port), client.lock(name, ttl=seconds),
acquire(timeout=...), release(). The lock is a key put with a lease of `ttl` seconds that
nothing keeps alive (refresh() is the caller's job): a holder stopped past the TTL (a GC pause, a
SIGSTOP) loses its key to the next client and, resumed, still believes it holds.
    lockpick run --lock ./examples/process-clients/etcd3-lock.json --faults client-pause

With --fenced (etcd3-lock-fenced.json) it hands out the lock key's create revision as a fencing
token (Jepsen's advice for etcd locks): etcd gives every new key a higher revision, so a holder
whose lease lapsed writes with an older token than the next holder, and the resource refuses it.
"""
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import etcd3  # noqa: E402
from lockpick_client import Held, serve  # noqa: E402

FENCED = "--fenced" in sys.argv[1:]


class Etcd3Lock:
    def __init__(self, start):
        ep = start["endpoints"][0]
        self.etcd = etcd3.client(host=ep["host"], port=ep["port"], timeout=start["commandTimeoutMs"] / 1000.0)
        self.locks = {}

    def acquire(self, key, ttl_ms, wait_ms):
        # Leases are whole seconds: never shorter than the TTL asked for.
        lock = self.etcd.lock(key, ttl=max(1, math.ceil(ttl_ms / 1000.0)))
        # acquire(timeout=0) tries once. A longer timeout waits through a tenacity callback that
        # Debian's tenacity (8.x) calls with other arguments than python-etcd3 0.12 expects: a
        # TypeError as soon as the lock is taken. So the waiting is a loop of single tries here.
        deadline = time.monotonic() + wait_ms / 1000.0
        while not lock.acquire(timeout=0):
            if time.monotonic() >= deadline:
                return None
            time.sleep(0.025)
        self.locks[key] = lock
        if not FENCED:
            return Held()
        # Read back the key this acquire put: its create revision is the token. Someone else's
        # value there means our lease lapsed already (and the lock is taken): an unknown outcome.
        value, meta = self.etcd.get(lock.key)
        if value != lock.uuid:
            del self.locks[key]
            raise RuntimeError(f"acquired, then lost before its revision could be read (the key holds {value!r})")
        return Held(token=meta.create_revision)

    def release(self, key, state):
        # Deletes the key only if it still holds this lock's uuid: False when it no longer does.
        return bool(self.locks.pop(key).release())

    def close(self):
        self.etcd.close()


serve(Etcd3Lock)
