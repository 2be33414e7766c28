"""A distributed lock on Redis: owner token, lease, re-entry, watchdog, bounded wait.

This is an *efficiency* lock: it keeps two workers from doing the same work at
once, but a paused holder can outlive its lease. Correctness must still be
guarded by the database (unique keys, conditional updates).

One RedisLock object stands for one holder. Do not share an instance between
threads; create one per thread (or pass the same `owner` deliberately).
"""

from __future__ import annotations

import logging
import random
import secrets
import threading
import time
from types import TracebackType

from toolkit import runtime

from . import keys
from .client import get_redis
from .scripts import lua

log = logging.getLogger(__name__)

_ACQUIRE = lua(__file__, "lock_acquire.lua")
_RELEASE = lua(__file__, "lock_release.lua")
_RENEW = lua(__file__, "lock_renew.lua")


class LockTimeout(Exception):
    """The lock could not be taken within the allowed wait."""


class RedisLock:
    """A lease-based, re-entrant lock named `name`.

    ttl: lease in seconds; the lock frees itself if the holder dies.
    watchdog: renew the lease every ttl/3 while held, for work of unknown length.
    wait: default seconds `__enter__` keeps retrying before raising LockTimeout.
    """

    def __init__(
        self,
        name: str,
        *,
        ttl: float = 30.0,
        watchdog: bool = False,
        wait: float = 0.0,
        owner: str | None = None,
        retry_interval: float = 0.05,
    ) -> None:
        if ttl <= 0:
            raise ValueError("ttl must be positive")
        self.name = name
        self.key = keys.lock(name)
        self.owner = owner or secrets.token_hex(16)
        self.ttl_ms = max(1, int(ttl * 1000))
        self.watchdog = watchdog
        self.wait = wait
        self.retry_interval = retry_interval
        self.lost = False  # set when the watchdog found the lease gone
        self._depth = 0
        self._stop_watchdog: threading.Event | None = None

    def acquire(self, wait: float | None = None) -> bool:
        """Take the lock, retrying for up to `wait` seconds. Returns whether it is held."""
        wait = self.wait if wait is None else wait
        deadline = time.monotonic() + max(0.0, wait)
        while True:
            acquired, value = _ACQUIRE([self.key], [self.owner, self.ttl_ms])
            if acquired:
                self._depth = int(value)
                if self._depth == 1:
                    self.lost = False
                    self._start_watchdog()
                return True
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            # Sleep around the retry interval (jittered so waiters do not stampede),
            # never past the deadline nor past the holder's remaining lease.
            lease_left = int(value) / 1000 if int(value) > 0 else self.retry_interval
            pause = min(remaining, lease_left, self.retry_interval * random.uniform(0.5, 1.5))
            time.sleep(max(pause, 0.001))

    def release(self) -> bool:
        """Leave the lock once. False if this owner no longer holds it (lease expired)."""
        result = int(_RELEASE([self.key], [self.owner, self.ttl_ms]))
        if result == -1:
            self._depth = 0
            self._stop()
            return False
        self._depth = max(0, self._depth - 1)
        if result == 1:
            self._stop()
        return True

    def renew(self) -> bool:
        """Reset the lease to the full ttl. False if this owner no longer holds it."""
        return bool(_RENEW([self.key], [self.owner, self.ttl_ms]))

    def owned(self) -> bool:
        """Whether this owner holds the lock right now (asks Redis)."""
        return bool(get_redis().hexists(self.key, self.owner))

    def locked(self) -> bool:
        """Whether anyone holds the lock right now."""
        return bool(get_redis().exists(self.key))

    def __enter__(self) -> RedisLock:
        if not self.acquire():
            raise LockTimeout(f"lock {self.name!r} is busy")
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if not self.release():
            log.warning("lock %s expired before its holder released it", self.name)

    # --- watchdog -------------------------------------------------------------------

    def _start_watchdog(self) -> None:
        if not self.watchdog:
            return
        self._stop()  # a lease lost earlier may have left a watchdog behind
        stop = threading.Event()
        self._stop_watchdog = stop
        _watchdogs.add(stop)
        interval = self.ttl_ms / 3000
        thread = threading.Thread(
            target=self._renew_until, args=(stop, interval), name=f"lock-watchdog:{self.name}"
        )
        thread.daemon = True
        thread.start()

    def _renew_until(self, stop: threading.Event, interval: float) -> None:
        while not stop.wait(interval):
            try:
                if not self.renew():
                    self.lost = True
                    log.warning("lock %s lost: lease expired before renewal", self.name)
                    return
            except Exception:  # a blip must not kill the watchdog; the next tick retries
                log.exception("lock %s: renewal failed", self.name)

    def _stop(self) -> None:
        if self._stop_watchdog is not None:
            self._stop_watchdog.set()
            _watchdogs.discard(self._stop_watchdog)
            self._stop_watchdog = None


# The stop signals of the watchdogs running in this process. Resetting or stopping the
# runtime stops them all (their locks then lapse with their lease); a forked child has
# none of the parent's threads to stop.
_watchdogs: set[threading.Event] = set()


def _stop_watchdogs() -> None:
    for stop in list(_watchdogs):
        stop.set()
    _watchdogs.clear()


runtime.register(
    runtime.Part(
        "lock-watchdogs", reset=_stop_watchdogs, stop=_stop_watchdogs, after_fork=_watchdogs.clear
    )
)
