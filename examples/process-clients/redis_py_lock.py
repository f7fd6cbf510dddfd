"""redis-py's own lock (redis.lock.Lock, Debian python3-redis) as lockpick's process client.

Used as redis-py documents it: r.lock(name, timeout=..., blocking_timeout=...), acquire(), release().
    lockpick run --lock exec:'/usr/bin/python3 examples/process-clients/redis_py_lock.py'
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import redis  # noqa: E402
from redis.exceptions import LockNotOwnedError  # noqa: E402
from lockpick_client import Held, serve  # noqa: E402


class RedisPyLock:
    def __init__(self, start):
        ep = start["endpoints"][0]
        timeout = start["commandTimeoutMs"] / 1000.0
        self.r = redis.Redis(host=ep["host"], port=ep["port"], socket_timeout=timeout, socket_connect_timeout=timeout)
        self.locks = {}

    def acquire(self, key, ttl_ms, wait_ms):
        lock = self.r.lock(key, timeout=ttl_ms / 1000.0, blocking_timeout=wait_ms / 1000.0, sleep=0.02)
        if not lock.acquire(blocking=wait_ms > 0):
            return None
        self.locks[key] = lock
        return Held()

    def release(self, key, state):
        lock = self.locks.pop(key)
        try:
            lock.release()
            return True
        except LockNotOwnedError:
            return False

    def close(self):
        self.r.close()


serve(RedisPyLock)
