"""Go's etcd lock (go.etcd.io/etcd/client/v3/concurrency.Mutex) through `etcdctl lock`, as
lockpick's process client. etcdctl (Debian etcd-client) is the Go client: `etcdctl lock NAME`
opens a session (a lease of --ttl seconds that it keeps alive), takes the Mutex, prints the
lock's key once it holds it and holds until it gets SIGINT or SIGTERM, when it unlocks. This
wrapper speaks lockpick's protocol and runs one etcdctl per hold; nothing else is needed.

    lockpick run --lock ./examples/process-clients/etcdctl-lock.json --faults client-pause

Its known failure (Jepsen, etcd 3.4.3): a holder stopped past the TTL (the whole client, Go
runtime included: no keep-alive goes out) loses its lease and its key; the next client takes the
lock; the first wakes up still holding as far as it knows, until its keep-alive finds the lease
gone. With --fenced (etcdctl-lock-fenced.json) the key's create revision, which etcdctl prints
with `-w json`, is a fencing token: the resource refuses the late holder's write.
"""
import ctypes
import json
import math
import os
import select
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lockpick_client import Held, serve  # noqa: E402

FENCED = "--fenced" in sys.argv[1:]
ETCDCTL = os.environ.get("ETCDCTL", "etcdctl")
_libc = ctypes.CDLL(None, use_errno=True)


def _die_with_parent():
    # An etcdctl outliving this wrapper (killed at a deadline) would hold the lock, kept alive, for ever.
    _libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


class Hold:
    """One etcdctl lock process; its stderr goes to ours (the client's log), and is watched for the session's end."""

    def __init__(self, argv):
        # Not a new session: etcdctl stays in lockpick's client process group, so a pause stops it too.
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     preexec_fn=_die_with_parent)
        self.expired = False
        threading.Thread(target=self._stderr, daemon=True).start()

    def _stderr(self):
        for line in self.proc.stderr:
            text = line.decode(errors="replace")
            if "session expired" in text:
                self.expired = True
            sys.stderr.write(f"etcdctl[{self.proc.pid}]: {text}")
            sys.stderr.flush()

    def first_line(self, timeout_s):
        """The line etcdctl prints once it holds the lock; None if it did not within timeout_s; b"" if it ended first."""
        ready, _, _ = select.select([self.proc.stdout], [], [], max(0.0, timeout_s))
        return self.proc.stdout.readline() if ready else None

    def stop(self, timeout_s):
        """SIGTERM (etcdctl unlocks, or gives up waiting) and wait; the exit code, or None if it had to be killed."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return None


class EtcdctlLock:
    def __init__(self, start):
        eps = ",".join(f"{ep['host']}:{ep['port']}" for ep in start["endpoints"])
        self.timeout_s = start["commandTimeoutMs"] / 1000.0
        self.base = [ETCDCTL, f"--endpoints={eps}", f"--dial-timeout={start['commandTimeoutMs']}ms",
                     f"--command-timeout={start['commandTimeoutMs']}ms", "-w", "json"]
        self.holds = {}

    def acquire(self, key, ttl_ms, wait_ms):
        h = Hold(self.base + ["lock", f"--ttl={max(1, math.ceil(ttl_ms / 1000.0))}", key])
        # Waiting: wait_ms, plus half a command timeout to start and open the session (lockpick
        # gives up on an acquire after wait_ms and two command timeouts).
        line = h.first_line(wait_ms / 1000.0 + self.timeout_s / 2)
        if line == b"":
            code = h.stop(self.timeout_s / 2)
            raise RuntimeError(f"etcdctl exited ({code}) before it held the lock: unknown outcome (its stderr is above)")
        if line is None:
            code = h.stop(self.timeout_s / 2)
            if code is None:
                raise RuntimeError("etcdctl did not stop after SIGTERM: killed, its key may be in the queue until its lease runs out")
            # Stopped: it gave up waiting (etcdctl takes its key out of the queue), or it had got the
            # lock just then and unlocked on the signal. Either way it certainly does not hold now.
            return None
        got = json.loads(line)
        self.holds[key] = h
        if not FENCED:
            return Held()
        return Held(token=got["kvs"][0]["create_revision"])

    def release(self, key, state):
        h = self.holds.pop(key)
        if h.proc.poll() is not None:
            return False   # etcdctl ended by itself: its session expired, the key went with its lease
        code = h.stop(1.5 * self.timeout_s)
        if code == 0:
            return True
        if h.expired:
            return False
        raise RuntimeError(f"etcdctl {'did not unlock in time (killed)' if code is None else f'exited {code} on unlock'}: unknown outcome")

    def close(self):
        for h in self.holds.values():
            h.stop(self.timeout_s)


serve(EtcdctlLock)
