"""A small helper for lockpick's process client protocol (docs/process-clients.md), for Python.

Copy this one file next to your client; lockpick never requires it (the protocol is a few JSON
lines). Write a class with acquire/release (and renew, close if you need them) and call serve():

    from lockpick_client import serve, Held, Failed, point

    class MyLock:
        def __init__(self, start):           # the start message: endpoints, client id, timeouts
            ...
        def acquire(self, key, ttl_ms, wait_ms):   # a semaphore also gets permits=, limit=; a rwlock mode=
            return Held(token=None)          # or None: busy (certainly not acquired)
        def release(self, key, state):
            return True                      # True: released; False: lost (no longer ours)
        def renew(self, key, ttl_ms, state): # only with "renews": true in the recipe
            return True                      # True: renewed; False: lost; Renewed(valid_until_ms=...)
                                             # when the lock reports the renewed validity

    serve(MyLock)

Raise Failed("why") when an operation certainly did not happen; any other exception is an error
of unknown outcome. point("after-compare") offers lockpick a place to pause the client.
"""
import json
import sys
import time

_out = sys.stdout
_in = sys.stdin


class Failed(Exception):
    """The operation certainly did not take effect (recorded as fail)."""


class Held:
    def __init__(self, token=None, valid_until_ms=None, state=None):
        self.token = token                    # a fencing token, if the lock hands one out
        self.valid_until_ms = valid_until_ms  # on CLOCK_MONOTONIC, in ms: monotonic_ms() + validity
        self.state = state                    # anything JSON that release/renew need back


class Renewed:
    """What renew returns when the lock reports the validity it renewed (as Held.valid_until_ms)."""
    def __init__(self, valid_until_ms=None):
        self.valid_until_ms = valid_until_ms  # on CLOCK_MONOTONIC, in ms; None: renewed, no validity reported


def monotonic_ms():
    """The protocol's clock for valid_until_ms (time.monotonic is CLOCK_MONOTONIC on Linux)."""
    return time.monotonic() * 1000.0


def _send(msg):
    _out.write(json.dumps(msg) + "\n")
    _out.flush()


def _read():
    line = _in.readline()
    if not line:
        sys.exit(0)                           # lockpick closed our stdin: it is done with us
    return json.loads(line)


def point(name):
    """A named point: lockpick may pause this client here; returns once lockpick says go."""
    _send({"t": "point", "name": name})
    while True:
        m = _read()
        if m.get("t") == "go":
            return


def serve(make_lock):
    # print() in the lock goes to stderr (the client's log), never into the protocol.
    sys.stdout = sys.stderr
    start = _read()
    lock = make_lock(start)
    _send({"t": "ready"})
    while True:
        m = _read()
        t, rid = m.get("t"), m.get("id")
        if t == "close":
            close = getattr(lock, "close", None)
            if close:
                try:
                    close()
                except Exception as e:  # closing is not an operation: say it in the log only
                    print(f"close: {e!r}", file=sys.stderr)
            _send({"t": "closed", "id": rid})
            return
        try:
            if t == "acquire":
                # A semaphore's permits and limit, a read-write lock's mode: passed on only when sent.
                shape = {k: m[k] for k in ("mode", "permits", "limit") if k in m}
                h = lock.acquire(m["key"], m["ttlMs"], m["waitMs"], **shape)
                if h is None:
                    reply = {"t": "busy"}
                else:
                    reply = {"t": "held"}
                    if h.token is not None:
                        reply["token"] = h.token
                    if h.valid_until_ms is not None:
                        reply["validUntilMs"] = h.valid_until_ms
                    if h.state is not None:
                        reply["state"] = h.state
            elif t == "release":
                reply = {"t": "released" if lock.release(m["key"], m.get("state")) else "lost"}
            elif t == "renew":
                r = lock.renew(m["key"], m["ttlMs"], m.get("state"))
                reply = {"t": "renewed" if r else "lost"}
                if isinstance(r, Renewed) and r.valid_until_ms is not None:
                    reply["validUntilMs"] = r.valid_until_ms
            else:
                reply = {"t": "error", "error": f"unknown request {t!r}"}
        except Failed as e:
            reply = {"t": "failed", "error": str(e)}
        except Exception as e:  # anything else: it may or may not have happened
            reply = {"t": "error", "error": f"{type(e).__name__}: {e}"}
        reply["id"] = rid
        _send(reply)
