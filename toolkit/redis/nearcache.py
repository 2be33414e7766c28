"""A process-local copy of hot cache entries, kept honest by Redis itself.

Redis's key-tracking (CLIENT TRACKING ... BCAST PREFIX) tells us about every
change to a key under a tracked prefix; a background thread per process
listens and drops the local copy. A cache hit then costs no round trip at all,
which is what a 2-core box serving thousands of reads per second needs.

Freshness rules:
- a local copy exists only while tracking is live; when the listener loses its
  connection, every local copy is dropped and reads go to Redis until it is back;
- a value is stored locally only if no invalidation of its key arrived (and the
  tracking session did not restart) between reading it and storing it;
- the process that writes evicts its own copy synchronously; other processes
  drop theirs when the invalidation arrives, normally well under a millisecond;
- every local copy also expires on its own after `ttl` seconds, as a backstop.
"""

from __future__ import annotations

import logging
import os
import selectors
import threading
import time
from collections import OrderedDict
from enum import Enum
from typing import Any, Final, Literal

import redis
from django.conf import settings

from toolkit import runtime

from . import keys
from .cluster import cluster_client

log = logging.getLogger(__name__)


class _Miss(Enum):
    MISS = "MISS"


MISS: Final = _Miss.MISS  # no local copy (a sentinel its type can tell apart from bytes)
# One prefix tracked for every near cache, so caches created after the tracking
# session started are covered too; invalidations of other cache keys are ignored.
TRACKED_PREFIX = keys.cache_root()
_STAMPS_KEPT = 100_000  # recent invalidations remembered for the read-then-store check
_IDLE_PING = 1.0  # seconds; a silent tracking connection is checked this often
_MAX_ENTRIES = 10_000  # per near cache; the oldest copy makes room for a new one


class NearCache:
    """Local copies of Redis values whose keys start with `prefix`."""

    def __init__(self, prefix: str, *, ttl: float) -> None:
        if not prefix.startswith(TRACKED_PREFIX):
            raise ValueError(f"near-cached keys must start with {TRACKED_PREFIX!r}")
        self.prefix, self.ttl = prefix, ttl
        # key -> (value, expires_at on the monotonic clock, tracking generation)
        self._data: dict[str, tuple[bytes, float, int]] = {}
        _tracker.register(self)

    def get(self, key: str) -> bytes | Literal[_Miss.MISS]:
        """The local copy, or MISS."""
        if not _tracker.ready():
            return MISS
        entry = self._data.get(key)
        if entry is None:
            return MISS
        value, expires_at, generation = entry
        if generation != _tracker.generation or expires_at < time.monotonic():
            return MISS  # from an earlier tracking session, or past its own TTL
        return value

    def read_token(self, key: str) -> object:
        """Call before reading `key` from Redis, and pass the result to `put` with the value
        read: `put` then refuses a value that changed in Redis while it was being read."""
        return _tracker.token(key)

    def put(self, key: str, value: bytes, token: object) -> None:
        # Under the tracker's lock, so no invalidation can slip between the check
        # and the insert (the listener takes the same lock to record and evict).
        with _tracker.lock:
            if token is None or _tracker.token(key) != token:
                return  # tracking was down, or the key changed while we read it
            if len(self._data) >= _MAX_ENTRIES:
                self._data.pop(next(iter(self._data)), None)
            self._data[key] = (value, time.monotonic() + self.ttl, _tracker.generation)

    def evict(self, key: str) -> None:
        self._data.pop(key, None)

    def clear(self) -> None:
        self._data.clear()


class _Tracker:
    """One listener thread per process, started on first use (so forked workers get theirs)."""

    def __init__(self) -> None:
        self._caches: list[NearCache] = []
        self.lock = threading.Lock()
        self._reset()

    def _reset(self) -> None:
        self.lock = threading.Lock()  # a forked child must not inherit a held lock
        self._pid: int | None = None
        self._live = False
        self.generation = 0
        self._stamps: OrderedDict[str, int] = OrderedDict()
        self._counter = 0
        for cache in self._caches:
            cache.clear()

    def register(self, cache: NearCache) -> None:
        self._caches.append(cache)

    def ready(self) -> bool:
        if self._pid != os.getpid():
            self._start()
        return self._live

    def token(self, key: str) -> object:
        if not self.ready():
            return None
        return (self.generation, self._stamps.get(key))

    def clear_all(self) -> None:
        with self.lock:
            self.generation += 1  # copies stored under the old generation are ignored
            for cache in self._caches:
                cache.clear()

    def _start(self) -> None:
        with self.lock:
            if self._pid == os.getpid():
                return
            self._pid, self._live = os.getpid(), False
        self.clear_all()
        threading.Thread(target=self._run, name="nearcache-tracker", daemon=True).start()

    def _run(self) -> None:
        backoff = 0.1
        while True:
            try:
                self._listen()
            except Exception as exc:  # any failure: stop serving local copies, then retry
                log.warning("near cache tracking lost (%s); reading through to Redis", exc)
            if self._live:
                backoff = 0.1  # it had been working: retry quickly
            self._live = False
            self.clear_all()
            time.sleep(backoff)
            backoff = min(backoff * 2, 5.0)

    def _listen(self) -> None:
        """Track the keys of every primary (one on a single Redis, each of a Cluster's):
        per primary a listener subscribed to invalidations and a connection with
        tracking on that redirects to it. Any failure ends them all; `_run` starts over
        from the current list of primaries (after a failover, say)."""
        primaries = _primaries()
        tracked = _addresses(primaries)
        sessions = [_Session(kwargs) for kwargs in primaries]
        selector = selectors.DefaultSelector()
        try:
            for session in sessions:
                session.open()
                selector.register(session.listener._sock, selectors.EVENT_READ, session)
            with self.lock:
                self.generation += 1
                self._live = True
            next_check = time.monotonic() + _IDLE_PING
            while True:
                ready = selector.select(timeout=_IDLE_PING)
                if not ready:
                    for session in sessions:
                        session.ping()  # tracking dies with its connection: keep it alive
                if settings.REDIS_CLUSTER and time.monotonic() >= next_check:
                    next_check = time.monotonic() + _IDLE_PING
                    if _addresses(_primaries()) != tracked:
                        # A master was added (resharding) or replaced: track the new set.
                        raise ConnectionError("the cluster's primaries changed")
                for key, _ in ready:
                    listener = key.data.listener
                    while listener.can_read(timeout=0):  # what the parser already holds too
                        self._invalidate(listener.read_response())
        finally:
            selector.close()
            for session in sessions:
                session.close()

    def _invalidate(self, message: list) -> None:
        if not message or message[0] != b"message":
            return
        changed = message[2]
        if changed is None:  # FLUSHDB / FLUSHALL: everything may have changed
            self.clear_all()
            return
        with self.lock:
            for raw in changed:
                key = raw.decode()
                self._counter += 1
                self._stamps[key] = self._counter
                self._stamps.move_to_end(key)
                if len(self._stamps) > _STAMPS_KEPT:
                    self._stamps.popitem(last=False)
                for cache in self._caches:
                    if key.startswith(cache.prefix):
                        cache.evict(key)


class _Session:
    """Key tracking on one Redis server: a listener and the connection that redirects
    its invalidations to it (RESP2: they arrive as plain pub/sub messages)."""

    def __init__(self, connection_kwargs: dict[str, Any]) -> None:
        kwargs = {**connection_kwargs, "protocol": 2}
        connection_class = kwargs.pop("connection_class", redis.Connection)
        self.listener = connection_class(**kwargs)
        self.tracking = connection_class(**kwargs)

    def open(self) -> None:
        self.listener.send_command("CLIENT", "ID")
        listener_id = self.listener.read_response()
        self.listener.send_command("SUBSCRIBE", "__redis__:invalidate")
        self.listener.read_response()
        self.tracking.send_command(
            "CLIENT", "TRACKING", "ON", "REDIRECT", listener_id, "BCAST", "PREFIX", TRACKED_PREFIX
        )
        if self.tracking.read_response() != b"OK":
            raise redis.RedisError("CLIENT TRACKING refused")

    def ping(self) -> None:
        self.tracking.send_command("PING")
        self.tracking.read_response()

    def close(self) -> None:
        self.listener.disconnect()
        self.tracking.disconnect()


def _primaries() -> list[dict[str, Any]]:
    """Connection settings of each server to track: REDIS_URL's, or each primary of the
    Cluster it names."""
    pool = redis.ConnectionPool.from_url(settings.REDIS_URL)  # credentials, TLS
    options = settings.CACHES["default"].get("OPTIONS", {})
    base = {
        **pool.connection_kwargs,
        "connection_class": pool.connection_class,
        # A ping that never answers must fail, not hang with copies still being served.
        "socket_timeout": options.get("SOCKET_TIMEOUT", 5),
        "socket_connect_timeout": options.get("SOCKET_CONNECT_TIMEOUT", 2),
    }
    if not settings.REDIS_CLUSTER:
        return [base]
    nodes = sorted(cluster_client().get_primaries(), key=lambda node: (node.host, node.port))
    return [{**base, "host": node.host, "port": node.port, "db": 0} for node in nodes]


def _addresses(primaries: list[dict[str, Any]]) -> list[tuple[str, int]]:
    """What identifies a set of primaries (their settings hold objects that compare by
    identity, so two readings of the same set never compare equal)."""
    return [(kwargs.get("host", ""), kwargs.get("port", 0)) for kwargs in primaries]


_tracker = _Tracker()


def _start_if_used() -> None:
    if any(cache.ttl > 0 for cache in _tracker._caches):  # SHOP_NEAR_CACHE_TTL=0: none
        _tracker.ready()


runtime.register(
    runtime.Part(
        "near-cache",
        reset=_tracker.clear_all,
        stop=lambda: None,  # a daemon thread; its connections close with the process
        after_fork=_tracker._reset,
        start=_start_if_used,
    )
)


def clear_all() -> None:
    """Drop every local copy in this process (after maintenance)."""
    _tracker.clear_all()


def ready() -> bool:
    """Whether invalidations are being received, so local copies may be served."""
    return _tracker.ready()


def saw_change(key: str) -> bool:
    """Whether an invalidation of `key` has arrived (recently) in this process."""
    return key in _tracker._stamps
