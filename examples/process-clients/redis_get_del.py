"""A hand-written Redis lock with a GET-compare-DEL unlock (two round trips, no named points).

The unlock reads the owner value, compares it here, then deletes: if the lease runs out between
the GET and the DEL and another client takes the lock, this DEL removes the other client's lock.
It offers lockpick no point to pause at, so only I/O points the fault proxy holds can land there.
    lockpick run --lock exec:'/usr/bin/python3 examples/process-clients/redis_get_del.py'
"""
import os
import sys
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import redis  # noqa: E402
from lockpick_client import Held, serve  # noqa: E402


class GetDelLock:
    def __init__(self, start):
        ep = start["endpoints"][0]
        timeout = start["commandTimeoutMs"] / 1000.0
        self.r = redis.Redis(host=ep["host"], port=ep["port"], socket_timeout=timeout, socket_connect_timeout=timeout)

    def acquire(self, key, ttl_ms, wait_ms):
        value = uuid.uuid4().hex
        deadline = time.monotonic() + wait_ms / 1000.0
        while not self.r.set(key, value, nx=True, px=ttl_ms):
            if time.monotonic() >= deadline:
                return None
            time.sleep(0.02)   # wait_ms: retry until the lock is free or the wait is over
        return Held(state=value)

    def release(self, key, value):
        if self.r.get(key) != value.encode():
            return False
        self.r.delete(key)
        return True

    def close(self):
        self.r.close()


serve(GetDelLock)
