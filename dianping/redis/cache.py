"""A generic read-through cache for JSON values, hardened against the classic failures.

- avalanche: every TTL gets random jitter, so keys written together expire apart;
- penetration: a missing item is cached as a short-lived null marker, and an
  optional Bloom filter turns never-existing ids away before Redis or the DB;
- breakdown (hot key rebuild): on a miss only the holder of a per-key lock runs
  the loader; the others poll the cache briefly and then read what it wrote;
- logical expiry: for preheated keys that never expire physically, a stale value
  is served at once while exactly one background rebuild refreshes it.

Values are stored as JSON bytes and handed back as bytes, so a view can send
them without decoding and re-encoding. The cache knows nothing about shops:
callers pass an identifier and a loader returning a JSON-able value or None.
"""

from __future__ import annotations

import json
import logging
import random
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder
from django.db import connections

from dianping import clock

from . import keys
from .bloom import BloomFilter
from .client import get_redis
from .lock import RedisLock

log = logging.getLogger(__name__)

NULL = b""  # the null marker: valid JSON is never empty
Loader = Callable[[], Any]

_executor: ThreadPoolExecutor | None = None


def _rebuild_pool() -> ThreadPoolExecutor:
    global _executor
    if _executor is None:
        _executor = ThreadPoolExecutor(max_workers=4, thread_name_prefix="cache-rebuild")
    return _executor


def encode(value: Any) -> bytes:
    return json.dumps(
        value, cls=DjangoJSONEncoder, ensure_ascii=False, separators=(",", ":")
    ).encode()


class CacheClient:
    """Read-through JSON cache for one namespace of keys (`cache:<namespace>:<ident>`)."""

    def __init__(
        self,
        namespace: str,
        *,
        ttl: float,
        jitter: float = 0.2,
        null_ttl: float = 60,
        rebuild_wait: float = 2.0,
        lock_ttl: float = 10,
        poll_interval: float = 0.02,
        bloom: BloomFilter | None = None,
    ) -> None:
        self.namespace = namespace
        self.ttl, self.jitter, self.null_ttl = ttl, jitter, null_ttl
        self.rebuild_wait, self.lock_ttl, self.poll_interval = rebuild_wait, lock_ttl, poll_interval
        self.bloom = bloom

    def key(self, ident: object) -> str:
        return keys.cache(self.namespace, str(ident))

    # --- cache-aside with a mutex rebuild ----------------------------------------------

    def get(self, ident: object, loader: Loader) -> bytes | None:
        """The cached JSON for `ident`, loading it on a miss; None if the item does not exist."""
        key = self.key(ident)
        if self.bloom is not None:
            maybe, raw = self._bloom_and_get(str(ident), key)
            if not maybe:
                return None
        else:
            raw = get_redis().get(key)
        if raw is not None:
            return None if raw == NULL else raw
        return self._rebuild(key, loader, read=get_redis().get, store=self._store)

    def put(self, ident: object, value: Any) -> bytes:
        raw = encode(value)
        self._store(self.key(ident), raw)
        return raw

    def evict(self, ident: object) -> None:
        get_redis().delete(self.key(ident))

    def _bloom_and_get(self, item: str, key: str) -> tuple[bool, bytes | None]:
        # One round trip for both: a Bloom "no" simply ignores the GET's answer.
        assert self.bloom is not None
        pipe = get_redis().pipeline(transaction=False)
        self.bloom.queue_check(pipe, item)
        pipe.get(key)
        bits, raw = pipe.execute()
        return self.bloom.verdict(bits), raw

    def _store(self, key: str, raw: bytes) -> None:
        if raw == NULL:
            get_redis().set(key, NULL, px=int(self.null_ttl * 1000))
            return
        base = self.ttl * 1000
        get_redis().set(key, raw, px=int(base + random.uniform(0, self.jitter * base)))

    def _rebuild(
        self,
        key: str,
        loader: Loader,
        *,
        read: Callable[[str], bytes | None],
        store: Callable[[str, bytes], None],
    ) -> bytes | None:
        """Run `loader` under the key's lock, or wait for whoever holds it.

        A reader that cannot get the lock polls the cache (the holder will fill
        it); after `rebuild_wait` it loads for itself without writing, so a dead
        rebuilder costs latency, never an error.
        """
        deadline = time.monotonic() + self.rebuild_wait
        while True:
            lock = RedisLock(f"cache:{key}", ttl=self.lock_ttl)
            if lock.acquire():
                try:
                    raw = read(key)  # someone may have filled it while we queued
                    if raw is None:
                        raw = self._load(loader)
                        store(key, raw)
                finally:
                    lock.release()  # owner-checked: never frees a lock we lost
                return None if raw == NULL else raw
            time.sleep(self.poll_interval)
            raw = read(key)
            if raw is not None:
                return None if raw == NULL else raw
            if time.monotonic() >= deadline:
                log.warning("cache rebuild of %s timed out; loading without caching", key)
                raw = self._load(loader)
                return None if raw == NULL else raw

    @staticmethod
    def _load(loader: Loader) -> bytes:
        value = loader()
        return NULL if value is None else encode(value)

    # --- logical expiry ---------------------------------------------------------------

    def get_logical(self, ident: object, loader: Loader, *, logical_ttl: float) -> bytes | None:
        """Serve even a stale value at once; past its logical expiry, one reader
        schedules a background rebuild and everyone keeps getting the old value
        until it lands. A key that was never preheated is built synchronously."""
        key = self.key(ident)
        data, expire_at = get_redis().hmget(key, "data", "expire_at")
        if data is None:
            return self._rebuild(
                key,
                loader,
                read=lambda k: get_redis().hget(k, "data"),
                store=lambda k, raw: self._store_logical(k, raw, logical_ttl),
            )
        if float(expire_at) <= clock.now_seconds():
            lock = RedisLock(f"cache:{key}", ttl=self.lock_ttl)
            if lock.acquire():
                _rebuild_pool().submit(self._refresh_logical, key, loader, logical_ttl, lock)
        return None if data == NULL else data

    def put_logical(self, ident: object, value: Any, *, logical_ttl: float) -> bytes:
        raw = encode(value)
        self._store_logical(self.key(ident), raw, logical_ttl)
        return raw

    def _store_logical(self, key: str, raw: bytes, logical_ttl: float) -> None:
        expire_at = repr(clock.now_seconds() + logical_ttl)
        pipe = get_redis().pipeline(transaction=True)
        pipe.delete(key)
        pipe.hset(key, mapping={"data": raw, "expire_at": expire_at})
        if raw == NULL:  # do not keep "missing" forever
            pipe.pexpire(key, int(self.null_ttl * 1000))
        pipe.execute()

    def _refresh_logical(
        self, key: str, loader: Loader, logical_ttl: float, lock: RedisLock
    ) -> None:
        try:
            self._store_logical(key, self._load(loader), logical_ttl)
        except Exception:
            log.exception("background rebuild of %s failed; the stale value stays", key)
        finally:
            lock.release()
            connections.close_all()  # this pool thread's own DB connections
